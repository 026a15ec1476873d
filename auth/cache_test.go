package auth_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/store"
)

// countingResolver counts the lookups that reach it.
type countingResolver struct {
	next   auth.KeyResolver
	mu     sync.Mutex
	n      int
	waited int // lookups on a context that can end: a request's, not a refresh's
}

func (c *countingResolver) Ping(ctx context.Context) error { return c.next.Ping(ctx) }

func (c *countingResolver) Subscribe(fn func(string)) func() { return c.next.Subscribe(fn) }

func (c *countingResolver) Resolve(ctx context.Context, cred string) (auth.Principal, error) {
	c.mu.Lock()
	c.n++
	if ctx.Done() != nil {
		c.waited++
	}
	c.mu.Unlock()
	return c.next.Resolve(ctx, cred)
}

// Waited is the lookups a request waited for, when the requests' context
// can end: a refresh ahead runs on context.WithoutCancel, which cannot.
func (c *countingResolver) Waited() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.waited
}

func (c *countingResolver) Count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

func TestCacheSparesLookups(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	clk := newClock()
	keys, _ := newKeys(t, auth.WithClock(clk.Now))
	plain, _, err := keys.Mint(ctx, "org_a", "ci", nil)
	is.NoErr(err)
	behind := &countingResolver{next: keys}
	c := auth.NewCache(behind, auth.WithCacheTTL(30*time.Second), auth.WithClock(clk.Now))
	for range 100 {
		p, err := c.Resolve(ctx, plain)
		is.NoErr(err)
		is.Equal(p.Org.ID, "org_a")
	}
	for range 100 {
		_, err := c.Resolve(ctx, "csk_unknown")
		is.True(errors.Is(err, auth.ErrInvalidKey)) // refused
	}
	is.Equal(behind.Count(), 2) // one lookup per credential within the ttl
	clk.Advance(30 * time.Second)
	_, err = c.Resolve(ctx, plain)
	is.NoErr(err)
	is.Equal(behind.Count(), 3) // looked up again after the ttl
}

// A credential in use is looked up again in the background in its ttl's
// second half: it never waits for the key store again, and a change no
// invalidation reported is still seen within the ttl.
func TestCacheRefreshesAhead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		is := is.New(t)
		ctx := context.Background()
		clk := newClock()
		keys, ks := newKeys(t, auth.WithClock(clk.Now))
		plain, _, err := keys.Mint(ctx, "org_a", "ci", nil)
		is.NoErr(err)
		behind := &quietResolver{countingResolver{next: keys}}
		c := auth.NewCache(behind, auth.WithCacheTTL(30*time.Second), auth.WithClock(clk.Now))
		_, err = c.Resolve(ctx, plain)
		is.NoErr(err)
		clk.Advance(10 * time.Second)
		_, err = c.Resolve(ctx, plain)
		is.NoErr(err)
		synctest.Wait()
		is.Equal(behind.Count(), 1) // first half of the ttl: nothing more
		for range 3 {
			clk.Advance(16 * time.Second) // second half: served, and looked up again behind
			_, err = c.Resolve(ctx, plain)
			is.NoErr(err)
			synctest.Wait()
		}
		is.Equal(behind.Count(), 4) // one lookup per refresh, none waited for
		// A change nobody reported (a key store without invalidations) is
		// seen by the next refresh, within the ttl.
		a := active
		a.APIEnabled = false
		ks.PutOrganization(a) // behind reports no invalidation
		clk.Advance(16 * time.Second)
		p, err := c.Resolve(ctx, plain)
		is.NoErr(err)
		is.True(p.Org.CanUseAPI()) // served from the entry, still in its ttl
		synctest.Wait()
		p, err = c.Resolve(ctx, plain)
		is.NoErr(err)
		is.True(!p.Org.CanUseAPI()) // the refreshed answer
	})
}

// quietResolver is a countingResolver that reports no invalidations.
type quietResolver struct{ countingResolver }

func (*quietResolver) Subscribe(func(string)) func() { return func() {} }

// changeAccount returns a change to org_a's account.
func changeAccount(change func(*store.Organization)) func(*testing.T, *auth.Keys, *testKeyStore, string) {
	return func(_ *testing.T, _ *auth.Keys, ks *testKeyStore, _ string) {
		a := active
		change(&a)
		ks.PutOrganization(a)
	}
}

func mayNotUseAPI(is *is.I, p auth.Principal, err error) {
	is.NoErr(err)
	is.True(!p.Org.CanUseAPI()) // the account may no longer use the API
}

// accountChanges are the changes a Cache must see: each makes org_a's key
// refused, or its principal say that it may not use the API, or carry a
// new plan.
var accountChanges = []struct {
	name   string
	change func(t *testing.T, keys *auth.Keys, ks *testKeyStore, keyID string)
	check  func(is *is.I, p auth.Principal, err error)
}{
	{
		name: "key revoked",
		change: func(t *testing.T, keys *auth.Keys, _ *testKeyStore, keyID string) {
			if err := keys.Revoke(context.Background(), "org_a", keyID); err != nil {
				t.Fatal(err)
			}
		},
		check: refused,
	},
	{
		name: "key rolled, the old one revoked at once",
		change: func(t *testing.T, keys *auth.Keys, _ *testKeyStore, keyID string) {
			if _, _, err := keys.Roll(context.Background(), "org_a", keyID, time.Time{}, "Ada"); err != nil {
				t.Fatal(err)
			}
		},
		check: refused,
	},
	{"retainer ended", changeAccount(func(a *store.Organization) { a.RetainerActive = false }), mayNotUseAPI},
	{"API access turned off", changeAccount(func(a *store.Organization) { a.APIEnabled = false }), mayNotUseAPI},
	{"plan changed", changeAccount(func(a *store.Organization) { a.Plan = store.PlanGrowth }), func(is *is.I, p auth.Principal, err error) {
		is.NoErr(err)
		is.Equal(p.Org.Plan, store.PlanGrowth) // the new plan, and so its rate limit
	}},
	{
		name: "organization deleted",
		change: func(t *testing.T, _ *auth.Keys, ks *testKeyStore, _ string) {
			if err := ks.orgs.DeleteOrganization(context.Background(), "org_a"); err != nil {
				t.Fatal(err)
			}
		},
		check: refused,
	},
}

func refused(is *is.I, _ auth.Principal, err error) {
	is.True(errors.Is(err, auth.ErrInvalidKey)) // the key is refused
}

// TestCacheSeesChangesAtOnce shows that a Cache in front of Keys (alone or
// in a Chain) on a MemoryKeyStore sees a revocation or an account change
// from the next request, however long its ttl, with no other wiring.
func TestCacheSeesChangesAtOnce(t *testing.T) {
	for _, front := range []struct {
		name string
		wrap func(*auth.Keys) auth.KeyResolver
	}{
		{"keys", func(k *auth.Keys) auth.KeyResolver { return k }},
		{"chain", func(k *auth.Keys) auth.KeyResolver { return auth.Chain(refuseAll, k) }},
	} {
		for _, tt := range accountChanges {
			t.Run(front.name+"/"+tt.name, func(t *testing.T) {
				is := is.New(t)
				ctx := context.Background()
				clk := newClock()
				keys, ks := newKeys(t, auth.WithClock(clk.Now))
				plain, rec, err := keys.Mint(ctx, "org_a", "ci", nil)
				is.NoErr(err)
				c := auth.NewCache(front.wrap(keys), auth.WithCacheTTL(time.Hour), auth.WithClock(clk.Now))
				t.Cleanup(func() { c.Close() })
				p, err := c.Resolve(ctx, plain)
				is.NoErr(err)
				is.True(p.Org.CanUseAPI()) // allowed before the change

				tt.change(t, keys, ks, rec.ID)
				p, err = c.Resolve(ctx, plain)
				tt.check(is, p, err) // seen at once, the clock unmoved
			})
		}
	}
}

// TestCacheHonoursRolledExpiry shows that a Cache forgets a key rolled
// with a time to keep it: its next answer carries the new expiry, and the
// key is refused from then on, however long the ttl.
func TestCacheHonoursRolledExpiry(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	clk := newClock()
	keys, _ := newKeys(t, auth.WithClock(clk.Now))
	plain, rec, err := keys.Mint(ctx, "org_a", "ci", nil)
	is.NoErr(err)
	c := auth.NewCache(keys, auth.WithCacheTTL(time.Hour), auth.WithClock(clk.Now))
	t.Cleanup(func() { c.Close() })
	p, err := c.Resolve(ctx, plain)
	is.NoErr(err)
	is.True(p.Expiry.IsZero()) // cached as never expiring

	keep := clk.Now().Add(10 * time.Minute)
	newPlain, _, err := keys.Roll(ctx, "org_a", rec.ID, keep, "Ada")
	is.NoErr(err)
	p, err = c.Resolve(ctx, plain)
	is.NoErr(err)                 // the old key still works
	is.True(p.Expiry.Equal(keep)) // with its new expiry, not the cached answer
	clk.Advance(10 * time.Minute)
	_, err = c.Resolve(ctx, plain)
	is.True(errors.Is(err, auth.ErrExpired)) // refused from keepUntil on, the ttl not over
	_, err = c.Resolve(ctx, newPlain)
	is.NoErr(err) // the new key works
}

// refuseAll refuses every credential, as a resolver of another kind does.
var refuseAll = auth.ResolverFunc(func(context.Context, string) (auth.Principal, error) {
	return auth.Principal{}, fmt.Errorf("%w: not mine", auth.ErrInvalidKey)
})

// TestCacheBound shows that a change no Invalidations reports (a resolver
// that reports nothing, or a cache closed) takes effect within the cache's
// ttl, and not before.
func TestCacheBound(t *testing.T) {
	const ttl = 30 * time.Second
	for _, quiet := range []struct {
		name  string
		cache func(*auth.Keys, ...auth.Option) *auth.Cache
	}{
		{"resolver that reports nothing", func(k *auth.Keys, opts ...auth.Option) *auth.Cache {
			return auth.NewCache(auth.ResolverFunc(k.Resolve), opts...)
		}},
		{"cache closed", func(k *auth.Keys, opts ...auth.Option) *auth.Cache {
			c := auth.NewCache(k, opts...)
			c.Close()
			return c
		}},
	} {
		for _, tt := range accountChanges {
			t.Run(quiet.name+"/"+tt.name, func(t *testing.T) {
				is := is.New(t)
				ctx := context.Background()
				clk := newClock()
				keys, ks := newKeys(t, auth.WithClock(clk.Now))
				plain, rec, err := keys.Mint(ctx, "org_a", "ci", nil)
				is.NoErr(err)
				c := quiet.cache(keys, auth.WithCacheTTL(ttl), auth.WithClock(clk.Now))
				p, err := c.Resolve(ctx, plain)
				is.NoErr(err)
				is.True(p.Org.CanUseAPI()) // allowed before the change

				clk.Advance(10 * time.Second)
				tt.change(t, keys, ks, rec.ID)
				clk.Advance(ttl - 10*time.Second - time.Nanosecond)
				p, err = c.Resolve(ctx, plain)
				is.NoErr(err)
				is.True(p.Org.CanUseAPI())        // the cached answer may last until the ttl...
				is.Equal(p.Org.Plan, active.Plan) // ...plan included...

				clk.Advance(time.Nanosecond)
				p, err = c.Resolve(ctx, plain)
				tt.check(is, p, err) // ...and no longer
			})
		}
	}
}

// TestCacheForget checks what Forget drops: the organization's principals,
// not another's, nor refusals; AllOrganizations drops everything.
func TestCacheForget(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	behind := &countingResolver{next: auth.ResolverFunc(func(_ context.Context, cred string) (auth.Principal, error) {
		org, ok := strings.CutPrefix(cred, "key-of-")
		if !ok {
			return auth.Principal{}, fmt.Errorf("%w: unknown", auth.ErrInvalidKey)
		}
		return auth.Principal{Org: store.Organization{ID: org}}, nil
	})}
	c := auth.NewCache(behind, auth.WithCacheTTL(time.Hour))
	creds := []string{"key-of-org_a", "key-of-org_b", "bad"}
	resolveAll := func() {
		for _, cred := range creds {
			_, _ = c.Resolve(ctx, cred)
		}
	}
	resolveAll()
	is.Equal(behind.Count(), 3)
	resolveAll()
	is.Equal(behind.Count(), 3) // all remembered

	c.Forget("org_a")
	resolveAll()
	is.Equal(behind.Count(), 4) // org_a's principal looked up again, org_b's and the refusal remembered
	c.Forget("org_c")
	resolveAll()
	is.Equal(behind.Count(), 4) // an organization the cache does not know changes nothing

	c.Forget(auth.AllOrganizations)
	resolveAll()
	is.Equal(behind.Count(), 7) // everything looked up again
}

// TestCacheForgetsDuringLookup checks that an answer looked up while its
// organization (or every organization) is reported changed is returned but
// not remembered: it may have been read before the change. A report of
// another organization does not concern it; a refusal, which has no
// organization, is not remembered across any report.
func TestCacheForgetsDuringLookup(t *testing.T) {
	for _, tc := range []struct {
		name       string
		refused    bool   // the lookup refuses the credential
		forget     string // what is reported during the lookup
		remembered bool
	}{
		{"its organization", false, "org_a", false},
		{"every organization", false, auth.AllOrganizations, false},
		{"another organization", false, "org_b", true},
		{"a refusal, another organization", true, "org_b", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			ctx := context.Background()
			inside, release := make(chan struct{}), make(chan struct{})
			// The first lookup waits for the test, inside; the later ones
			// answer at once. (A non-blocking send here would let the
			// first lookup run through before the test waits for it, and
			// both would hang.)
			var first atomic.Bool
			behind := &countingResolver{next: auth.ResolverFunc(func(context.Context, string) (auth.Principal, error) {
				if first.CompareAndSwap(false, true) {
					inside <- struct{}{}
					<-release
				}
				if tc.refused {
					return auth.Principal{}, fmt.Errorf("%w: unknown", auth.ErrInvalidKey)
				}
				return auth.Principal{Org: active}, nil
			})}
			c := auth.NewCache(behind, auth.WithCacheTTL(time.Hour))
			done := make(chan error)
			go func() {
				_, err := c.Resolve(ctx, "token")
				done <- err
			}()
			<-inside // the lookup has read the old account
			c.Forget(tc.forget)
			close(release)
			is.Equal(<-done == nil, !tc.refused) // the answer is returned either way
			_, _ = c.Resolve(ctx, "token")
			if tc.remembered {
				is.Equal(behind.Count(), 1) // the answer of the lookup under way was remembered
				return
			}
			is.Equal(behind.Count(), 2) // the answer of the lookup under way was not remembered
			_, _ = c.Resolve(ctx, "token")
			is.Equal(behind.Count(), 2) // the next one was
		})
	}
}

func TestCacheDropsExpiredKeyAtItsExpiry(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	clk := newClock()
	keys, _ := newKeys(t, auth.WithClock(clk.Now))
	exp := clk.Now().Add(5 * time.Second)
	plain, _, err := keys.Mint(ctx, "org_a", "ci", &exp)
	is.NoErr(err)
	c := auth.NewCache(keys, auth.WithCacheTTL(time.Minute), auth.WithClock(clk.Now))
	_, err = c.Resolve(ctx, plain)
	is.NoErr(err)
	clk.Advance(5 * time.Second)
	_, err = c.Resolve(ctx, plain)
	is.True(errors.Is(err, auth.ErrInvalidKey)) // refused at its expiry, well inside the ttl
}

// TestCacheDropsPrincipalAtItsExpiry checks that a principal of any
// resolver (a JWT's, a portal's own) is forgotten at its Expiry.
func TestCacheDropsPrincipalAtItsExpiry(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	clk := newClock()
	exp := clk.Now().Add(10 * time.Second)
	behind := &countingResolver{next: auth.ResolverFunc(func(context.Context, string) (auth.Principal, error) {
		if !clk.Now().Before(exp) {
			return auth.Principal{}, fmt.Errorf("%w: expired", auth.ErrInvalidKey)
		}
		return auth.Principal{Org: active, Subject: "user_1", Expiry: exp}, nil
	})}
	c := auth.NewCache(behind, auth.WithCacheTTL(time.Minute), auth.WithClock(clk.Now))
	_, err := c.Resolve(ctx, "token")
	is.NoErr(err)
	clk.Advance(10*time.Second - time.Nanosecond)
	_, err = c.Resolve(ctx, "token")
	is.NoErr(err)
	is.Equal(behind.Count(), 1) // remembered until its expiry
	clk.Advance(time.Nanosecond)
	_, err = c.Resolve(ctx, "token")
	is.True(errors.Is(err, auth.ErrInvalidKey)) // refused at its expiry, inside the ttl
}

// TestCacheForgetsNotYetValid checks that a refusal that time may turn into
// an acceptance (ErrNotYetValid) is not remembered, while other refusals are.
func TestCacheForgetsNotYetValid(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	clk := newClock()
	validFrom := clk.Now().Add(time.Minute)
	behind := &countingResolver{next: auth.ResolverFunc(func(_ context.Context, cred string) (auth.Principal, error) {
		if cred != "token" {
			return auth.Principal{}, fmt.Errorf("%w: unknown", auth.ErrInvalidKey)
		}
		if clk.Now().Before(validFrom) {
			return auth.Principal{}, fmt.Errorf("%w: %w", auth.ErrInvalidKey, auth.ErrNotYetValid)
		}
		return auth.Principal{Org: active}, nil
	})}
	c := auth.NewCache(behind, auth.WithCacheTTL(time.Hour), auth.WithClock(clk.Now))
	for range 3 {
		_, err := c.Resolve(ctx, "token")
		is.True(errors.Is(err, auth.ErrNotYetValid)) // refused for now
	}
	is.Equal(behind.Count(), 3) // and asked again each time
	clk.Advance(time.Minute)
	_, err := c.Resolve(ctx, "token")
	is.NoErr(err) // accepted once valid, although the ttl is an hour

	for range 3 {
		_, err := c.Resolve(ctx, "other")
		is.True(errors.Is(err, auth.ErrInvalidKey))
	}
	is.Equal(behind.Count(), 5) // an ordinary refusal is remembered
}

func TestCacheForgetsOutages(t *testing.T) {
	is := is.New(t)
	calls := 0
	down := auth.ResolverFunc(func(context.Context, string) (auth.Principal, error) {
		calls++
		return auth.Principal{}, fmt.Errorf("%w: timeout", auth.ErrUnavailable)
	})
	c := auth.NewCache(down, auth.WithCacheTTL(time.Minute))
	for range 3 {
		_, err := c.Resolve(context.Background(), "csk_any")
		is.True(errors.Is(err, auth.ErrUnavailable)) // the outage is reported
	}
	is.Equal(calls, 3) // and never remembered
}

func TestCacheIsBounded(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	behind := &countingResolver{next: auth.ResolverFunc(func(context.Context, string) (auth.Principal, error) {
		return auth.Principal{}, auth.ErrInvalidKey
	})}
	c := auth.NewCache(behind, auth.WithCacheTTL(time.Minute), auth.WithMaxEntries(10))
	for i := range 1000 {
		_, _ = c.Resolve(ctx, fmt.Sprintf("random-%d", i))
	}
	before := behind.Count()
	for i := range 1000 {
		_, _ = c.Resolve(ctx, fmt.Sprintf("random-%d", i))
	}
	is.True(behind.Count()-before >= 990) // at most 10 of 1000 credentials were still remembered
}

func TestCacheConcurrent(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	keys, _ := newKeys(t)
	plain, _, err := keys.Mint(ctx, "org_a", "ci", nil)
	is.NoErr(err)
	c := auth.NewCache(keys, auth.WithCacheTTL(time.Minute), auth.WithMaxEntries(4))
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cred := plain
			if i%2 == 1 {
				cred = fmt.Sprintf("bad-%d", i)
			}
			_, _ = c.Resolve(ctx, cred)
		}()
	}
	wg.Wait()
	_, err = c.Resolve(ctx, plain)
	is.NoErr(err) // still answers after concurrent use and evictions
}

// TestCacheReportsOnceForgotten: a subscriber of a Cache hears a report
// once the cache has forgotten it, so that a resolve it makes then sees
// the change (a live stream re-checking its key does so).
func TestCacheReportsOnceForgotten(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	keys, _ := newKeys(t)
	c := auth.NewCache(keys, auth.WithCacheTTL(time.Hour))
	t.Cleanup(func() { c.Close() })
	// Subscribers are called in no set order: with 20 keys, a report
	// that came before the forgetting would show.
	type minted struct{ plain, id string }
	var all []minted
	for range 20 {
		plain, rec, err := keys.Mint(ctx, "org_a", "ci", nil)
		is.NoErr(err)
		_, err = c.Resolve(ctx, plain)
		is.NoErr(err) // remembered
		all = append(all, minted{plain, rec.ID})
	}
	var revoked string
	var seen []error
	stop := c.Subscribe(func(string) {
		_, err := c.Resolve(ctx, revoked)
		seen = append(seen, err)
	})
	defer stop()
	for _, k := range all {
		revoked = k.plain
		is.NoErr(keys.Revoke(ctx, "org_a", k.id))
	}
	is.Equal(len(seen), len(all))
	for _, err := range seen {
		is.True(errors.Is(err, auth.ErrInvalidKey)) // the revocation, not the remembered principal
	}
	c.Close()
	plain, rec, err := keys.Mint(ctx, "org_a", "ci", nil)
	is.NoErr(err)
	revoked = plain
	is.NoErr(keys.Revoke(ctx, "org_a", rec.ID))
	is.Equal(len(seen), len(all)) // a closed cache reports nothing
}
