package auth_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/store"
)

// recorder subscribes to an Invalidations and records what it reports.
type recorder struct {
	mu   sync.Mutex
	orgs []string
}

func (r *recorder) note(orgID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.orgs = append(r.orgs, orgID)
}

func (r *recorder) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.orgs...)
}

func TestBroadcast(t *testing.T) {
	is := is.New(t)
	b := auth.NewBroadcast()
	var one, two recorder
	stopOne := b.Subscribe(one.note)
	stopTwo := b.Subscribe(two.note)
	b.Publish("org_a")
	stopOne()
	stopOne() // a second stop is harmless
	b.Publish("org_b")
	stopTwo()
	b.Publish("org_c")
	is.Equal(one.got(), []string{"org_a"})          // until stopped
	is.Equal(two.got(), []string{"org_a", "org_b"}) // each subscriber on its own
}

func TestSubscribeNilPanics(t *testing.T) {
	for name, inv := range map[string]auth.Invalidations{
		"Broadcast":      auth.NewBroadcast(),
		"Keys":           auth.NewKeys(newKeyStore()),
		"MemoryKeyStore": newKeyStore(),
		"Chain":          auth.Chain(refuseAll).(auth.Invalidations),
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("Subscribe(nil) did not panic")
				}
			}()
			inv.Subscribe(nil)
		})
	}
}

// TestMemoryKeyStoreReports checks that the key store reports the
// organizations its memstore.Store changes or deletes, once the change is
// made, and nothing for a put that changes nothing.
func TestMemoryKeyStoreReports(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	ks := newKeyStore()
	ks.PutOrganization(active)
	var r recorder
	stop := ks.Subscribe(func(orgID string) {
		o, err := ks.Organization(ctx, orgID)
		r.note(fmt.Sprint(orgID, " ", o.APIEnabled, " ", errors.Is(err, store.ErrNotFound)))
	})
	defer stop()
	ks.PutOrganization(active) // no change
	off := active
	off.APIEnabled = false
	ks.PutOrganization(off)
	is.NoErr(ks.orgs.DeleteOrganization(ctx, "org_a"))
	is.Equal(r.got(), []string{"org_a false false", "org_a false true"}) // the change, then the deletion, each once made
}

// fakePublisher records what Keys publishes, fails when told to, and
// reports like a channel that other replicas publish on.
type fakePublisher struct {
	*auth.Broadcast
	mu        sync.Mutex
	published []string
	fail      bool
}

func (p *fakePublisher) Publish(ctx context.Context, orgID string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fail {
		return fmt.Errorf("%w: redis: connection refused", auth.ErrUnavailable)
	}
	p.published = append(p.published, orgID)
	return nil
}

// TestKeysPublishes checks that Revoke tells its subscribers and its
// Publisher, that a failure to publish is logged and does not fail the
// revocation, and that Keys relays what its Publisher reports.
func TestKeysPublishes(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	pub := &fakePublisher{Broadcast: auth.NewBroadcast()}
	var logs bytes.Buffer
	keys, _ := newKeys(t, auth.WithPublisher(pub), auth.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	var r recorder
	stop := keys.Subscribe(r.note)
	defer stop()

	plain1, rec1, err := keys.Mint(ctx, "org_a", "one", nil)
	is.NoErr(err)
	is.Equal(r.got(), []string(nil)) // minting reports nothing
	is.NoErr(keys.Revoke(ctx, "org_a", rec1.ID))
	is.Equal(r.got(), []string{"org_a"})       // Revoke tells this process at once
	is.Equal(pub.published, []string{"org_a"}) // and publishes to the other replicas

	is.True(errors.Is(keys.Revoke(ctx, "org_a", "key_nope"), auth.ErrKeyNotFound))
	is.Equal(len(r.got()), 1) // a failed revocation reports nothing

	pub.fail = true
	plain2, rec2, err := keys.Mint(ctx, "org_a", "two", nil)
	is.NoErr(err)
	is.NoErr(keys.Revoke(ctx, "org_a", rec2.ID)) // a failure to publish does not fail the revocation
	is.Equal(len(r.got()), 2)                    // this process is told all the same
	is.True(strings.Contains(logs.String(), "telling other replicas of a revoked key failed"))
	is.True(strings.Contains(logs.String(), rec2.ID)) // the log names the key's id...
	for _, plain := range []string{plain1, plain2} {
		is.True(!strings.Contains(logs.String(), plain)) // ...never the key
	}

	pub.fail = false
	_, rec3, err := keys.Mint(ctx, "org_a", "three", nil)
	is.NoErr(err)
	_, _, err = keys.Roll(ctx, "org_a", rec3.ID, time.Now().Add(time.Hour), "Ada")
	is.NoErr(err)
	is.Equal(len(r.got()), 3)                           // Roll tells this process
	is.Equal(pub.published, []string{"org_a", "org_a"}) // and the other replicas, as Revoke does

	pub.Broadcast.Publish("org_b") // another replica revoked one of org_b's keys
	is.Equal(r.got()[3], "org_b")  // relayed
}

// TestCacheWithInvalidations checks that a Cache hears the channels of
// WithInvalidations besides its resolver, until Close.
func TestCacheWithInvalidations(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	clk := newClock()
	keys, _ := newKeys(t, auth.WithClock(clk.Now))
	plain, _, err := keys.Mint(ctx, "org_a", "ci", nil)
	is.NoErr(err)
	behind := &countingResolver{next: keys} // reports nothing itself
	elsewhere := auth.NewBroadcast()
	c := auth.NewCache(behind, auth.WithCacheTTL(time.Hour), auth.WithClock(clk.Now),
		auth.WithInvalidations(elsewhere), auth.WithInvalidations(nil))
	_, _ = c.Resolve(ctx, plain)
	_, _ = c.Resolve(ctx, plain)
	is.Equal(behind.Count(), 1) // remembered
	elsewhere.Publish("org_a")
	_, _ = c.Resolve(ctx, plain)
	is.Equal(behind.Count(), 2) // forgotten when the channel reports its organization
	is.NoErr(c.Close())
	is.NoErr(c.Close()) // a second Close is harmless
	elsewhere.Publish("org_a")
	_, _ = c.Resolve(ctx, plain)
	is.Equal(behind.Count(), 2) // a closed cache no longer listens
}
