package redisinvalidate_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"testing"

	"github.com/matryer/is"
	"github.com/redis/go-redis/v9"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/auth/redisinvalidate"
	"github.com/clientstatus/clientstatus/internal/test/revoketest"
	"github.com/clientstatus/clientstatus/internal/test/testenv"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/store"
)

func TestMain(m *testing.M) {
	testenv.Main(m)
}

var quietLog = slog.New(slog.NewTextHandler(io.Discard, nil))

// newClient returns a client (a replica's own pool) of the test Redis,
// through addr when it is not "".
func newClient(t *testing.T, addr string) *redis.Client {
	t.Helper()
	opt, err := redis.ParseURL(testenv.RedisURL(t))
	if err != nil {
		t.Fatalf("TEST_REDIS_URL: %v", err)
	}
	if addr != "" {
		opt.Addr = addr
	}
	opt.MaxRetries = -1 // a cut connection fails at once
	rdb := redis.NewClient(opt)
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

// newChannelName returns a Redis channel of the test's own.
func newChannelName() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return "clientstatus:test:" + hex.EncodeToString(b)
}

// hidden is a KeyStore that reports nothing, as a portal's own or a
// database without triggers: only Redis carries changes between replicas.
type hidden struct{ auth.KeyStore }

// deployment is two replicas of a portal sharing one key store that
// reports nothing and one Redis channel; b reaches Redis through a proxy
// that the test can cut.
type deployment struct {
	a, b   *revoketest.Replica
	chA    *redisinvalidate.Channel
	st     *memstore.Store
	org    store.Organization
	proxyB *testenv.Proxy
}

func newDeployment(t *testing.T) *deployment {
	t.Helper()
	d := &deployment{st: memstore.New()}
	d.org = store.Organization{ID: "org_acme", Name: "Acme", Plan: store.PlanStarter, RetainerActive: true, APIEnabled: true}
	if err := d.st.PutOrganization(context.Background(), d.org); err != nil {
		t.Fatal(err)
	}
	ks := hidden{auth.NewMemoryKeyStore(d.st)}
	name := newChannelName()
	d.chA = redisinvalidate.New(newClient(t, ""), redisinvalidate.WithChannel(name), redisinvalidate.WithLogger(quietLog))
	opt, _ := redis.ParseURL(testenv.RedisURL(t))
	d.proxyB = testenv.NewProxy(t, opt.Addr)
	chB := redisinvalidate.New(newClient(t, d.proxyB.Addr()), redisinvalidate.WithChannel(name), redisinvalidate.WithLogger(quietLog))
	revoketest.Listening(t, d.chA)
	revoketest.Listening(t, chB)
	d.a = revoketest.NewReplica(t, d.st, ks, []auth.Option{auth.WithPublisher(d.chA)})
	d.b = revoketest.NewReplica(t, d.st, ks, []auth.Option{auth.WithPublisher(chB)})
	return d
}

// TestReplicasSeeRevocations: a key revoked through one replica is refused
// by the other within a second, although its cache would remember it for
// an hour and the key store tells nobody.
func TestReplicasSeeRevocations(t *testing.T) {
	d := newDeployment(t)
	key, id := d.a.Mint(t, d.org.ID)
	revoketest.Want(t, d.a, key, 200, "a serves the key")
	revoketest.Want(t, d.b, key, 200, "b serves the key, and caches it for an hour")

	d.a.Revoke(t, d.org.ID, id)
	revoketest.Want(t, d.a, key, 401, "a refuses the key it revoked at once")
	took := revoketest.Within(t, revoketest.Across, d.b, key, 401, "b hears of the revocation through Redis")
	t.Logf("b refused the key %v after a revoked it", took)
}

// TestReplicasSeeAccountChanges: a portal that changes an organization
// publishes it, and both replicas see the change within a second.
func TestReplicasSeeAccountChanges(t *testing.T) {
	ctx := context.Background()
	d := newDeployment(t)
	key, _ := d.a.Mint(t, d.org.ID)
	for _, r := range []*revoketest.Replica{d.a, d.b} {
		revoketest.Want(t, r, key, 200, "the key is served, and cached for an hour")
	}
	off := d.org
	off.RetainerActive = false
	if err := d.st.PutOrganization(ctx, off); err != nil {
		t.Fatal(err)
	}
	if err := d.chA.Publish(ctx, d.org.ID); err != nil {
		t.Fatal(err)
	}
	for _, r := range []*revoketest.Replica{d.a, d.b} {
		revoketest.Within(t, revoketest.Across, r, key, 403, "a retainer ended and published is seen")
	}
	if err := d.st.PutOrganization(ctx, d.org); err != nil {
		t.Fatal(err)
	}
	if err := d.chA.Publish(ctx, d.org.ID); err != nil {
		t.Fatal(err)
	}
	revoketest.Within(t, revoketest.Across, d.b, key, 200, "a retainer started again is seen too")
}

// TestReplicasOutage: while b's subscription is cut, b serves what it
// cached for its ttl, and no longer; once Redis is back, b forgets what it
// may have missed and hears changes again.
func TestReplicasOutage(t *testing.T) {
	d := newDeployment(t)
	revoketest.Outage(t, d.a, d.b, d.org.ID, d.proxyB.Cut, d.proxyB.Restore)
}

// TestPublishUnavailable: a Publish that cannot reach Redis says so with
// auth.ErrUnavailable, and a revocation through Keys still succeeds.
func TestPublishUnavailable(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	opt, _ := redis.ParseURL(testenv.RedisURL(t))
	px := testenv.NewProxy(t, opt.Addr)
	ch := redisinvalidate.New(newClient(t, px.Addr()), redisinvalidate.WithLogger(quietLog))
	px.Cut()
	err := ch.Publish(ctx, "org_a")
	is.True(errors.Is(err, auth.ErrUnavailable)) // Redis is out

	st := memstore.New()
	is.NoErr(st.PutOrganization(ctx, store.Organization{ID: "org_a", Plan: store.PlanStarter}))
	keys := auth.NewKeys(auth.NewMemoryKeyStore(st), auth.WithPublisher(ch), auth.WithLogger(quietLog))
	_, rec, err := keys.Mint(ctx, "org_a", "ci", nil)
	is.NoErr(err)
	is.NoErr(keys.Revoke(ctx, "org_a", rec.ID)) // revoked, although the other replicas could not be told
}

func TestNewNilPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("New(nil) did not panic")
		}
	}()
	redisinvalidate.New(nil)
}
