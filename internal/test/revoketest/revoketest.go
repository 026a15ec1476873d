package revoketest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/internal/test/apitest"
	"github.com/clientstatus/clientstatus/internal/test/testenv"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/store"
)

// TTL is the ttl of a Replica's cache: an hour, so that a change a
// replica sees within a test was reported to it, never outlived.
const TTL = time.Hour

// Across is how soon a change made on one replica must be seen on the
// others while the channel between them is up.
const Across = time.Second

// Reconnect is how soon a channel restored after an outage must be back.
const Reconnect = 10 * time.Second

// Replica is one process of a deployment: a status API handler in front
// of its own Keys and Cache. Its cache's clock is Clock, which only the
// test moves.
type Replica struct {
	Keys  *auth.Keys
	Cache *auth.Cache
	Clock *testenv.Clock
	api   http.Handler
}

// NewReplica returns a replica serving st, with keys on ks (keyOpts are
// given to auth.NewKeys) and a cache of TTL in front of them, which hears
// what the keys report and each of invs. Its cache and keys are closed
// when the test ends.
func NewReplica(t testing.TB, st store.Store, ks auth.KeyStore, keyOpts []auth.Option, invs ...auth.Invalidations) *Replica {
	t.Helper()
	r := &Replica{Clock: testenv.NewClock(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))}
	r.Keys = auth.NewKeys(ks, keyOpts...)
	opts := []auth.Option{auth.WithCacheTTL(TTL), auth.WithClock(r.Clock.Now)}
	for _, inv := range invs {
		opts = append(opts, auth.WithInvalidations(inv))
	}
	r.Cache = auth.NewCache(r.Keys, opts...)
	t.Cleanup(func() {
		r.Cache.Close()
		r.Keys.Close()
	})
	r.api = apitest.Handler(st, r.Cache, unlimited())
	return r
}

// unlimited is a replica's rate limiter: no plan has a limit. The tests
// ask a replica for a status every few milliseconds until it changes
// (Within), and a slow machine (a channel slow to come back) would
// otherwise spend a starter organization's budget, and every key of it
// would then be answered 429.
func unlimited() ratelimit.Limiter {
	var opts []ratelimit.Option
	for _, plan := range store.Plans {
		opts = append(opts, ratelimit.WithRate(plan, ratelimit.Unlimited))
	}
	return ratelimit.NewMemory(opts...)
}

// Listening subscribes to inv and waits until it reports
// auth.AllOrganizations, as a channel does once it listens, so that what
// a test then sees came through the channel, not through the forgetting
// that follows a late start. The subscription, which keeps the channel
// listening, ends with the test.
func Listening(t testing.TB, inv auth.Invalidations) {
	t.Helper()
	up := make(chan struct{})
	var once sync.Once
	stop := inv.Subscribe(func(orgID string) {
		if orgID == auth.AllOrganizations {
			once.Do(func() { close(up) })
		}
	})
	t.Cleanup(stop)
	select {
	case <-up:
	case <-time.After(Reconnect):
		t.Fatalf("not listening after %v", Reconnect)
	}
}

// Status returns the status of GET /v1/projects with key.
func (r *Replica) Status(key string) int {
	res := httptest.NewRecorder()
	r.api.ServeHTTP(res, apitest.NewRequest("GET", "/v1/projects", key))
	return res.Code
}

// Mint mints a key of the organization through r, and returns it and its
// id.
func (r *Replica) Mint(t testing.TB, orgID string) (string, string) {
	t.Helper()
	plain, rec, err := r.Keys.Mint(context.Background(), orgID, "test", nil)
	if err != nil {
		t.Fatalf("mint a key of %s: %v", orgID, err)
	}
	return plain, rec.ID
}

// Revoke revokes the organization's key id through r.
func (r *Replica) Revoke(t testing.TB, orgID, id string) {
	t.Helper()
	if err := r.Keys.Revoke(context.Background(), orgID, id); err != nil {
		t.Fatalf("revoke %s: %v", id, err)
	}
}

// Want fails the test unless r answers key with status now.
func Want(t testing.TB, r *Replica, key string, status int, why string) {
	t.Helper()
	if got := r.Status(key); got != status {
		t.Fatalf("status %d, want %d: %s", got, status, why)
	}
}

// Within fails the test unless r answers key with status before d has
// passed, asking every few milliseconds; it returns how long that took.
func Within(t testing.TB, d time.Duration, r *Replica, key string, status int, why string) time.Duration {
	t.Helper()
	start := time.Now()
	testenv.Poll(t, d, func() error {
		if got := r.Status(key); got != status {
			return fmt.Errorf("status %d, want %d: %s", got, status, why)
		}
		return nil
	})
	return time.Since(start)
}

// Outage checks what happens when the channel between replicas a and b
// goes down (cut) and comes back (restore): b keeps serving what its cache
// remembers for its ttl, and no longer; once the channel is back, b forgets
// everything (it may have missed changes) and hears changes again within
// Across. orgID is an organization that may use the API, whose keys a
// mints and revokes.
func Outage(t *testing.T, a, b *Replica, orgID string, cut, restore func()) {
	t.Helper()
	k1, id1 := a.Mint(t, orgID)
	k2, id2 := a.Mint(t, orgID)
	k3, id3 := a.Mint(t, orgID)
	Want(t, b, k1, 200, "k1 is valid")
	b.Clock.Advance(TTL / 2)
	Want(t, b, k2, 200, "k2 is valid")
	Want(t, b, k3, 200, "k3 is valid")

	cut()
	a.Revoke(t, orgID, id1)
	a.Revoke(t, orgID, id2)
	Want(t, a, k1, 401, "the replica that revoked k1 refuses it at once")
	Want(t, b, k1, 200, "the channel is down: b serves k1 from its cache")
	b.Clock.Advance(TTL / 2)
	Want(t, b, k1, 401, "the channel is down: b refuses k1 once its ttl has passed")
	Want(t, b, k2, 200, "the channel is down: b serves k2, cached later, until its own ttl")

	restore()
	Within(t, Reconnect, b, k2, 401, "once the channel is back, b forgets what it may have missed")
	Want(t, b, k3, 200, "k3 is still valid")
	a.Revoke(t, orgID, id3)
	Within(t, Across, b, k3, 401, "once the channel is back, b hears revocations again")
}
