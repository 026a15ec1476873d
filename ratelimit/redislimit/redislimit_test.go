package redislimit_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matryer/is"
	"github.com/redis/go-redis/v9"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/internal/test/testenv"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/ratelimit/ratelimittest"
	"github.com/clientstatus/clientstatus/ratelimit/redislimit"
	"github.com/clientstatus/clientstatus/store"
)

// redisOptions returns the options of the test Redis (TEST_REDIS_URL); the
// test skips without one.
func redisOptions(t testing.TB) *redis.Options {
	t.Helper()
	opt, err := redis.ParseURL(testenv.RedisURL(t))
	if err != nil {
		t.Fatalf("TEST_REDIS_URL: %v", err)
	}
	return opt
}

// newClient returns a new client (a replica's own connection pool) to addr,
// or to the test Redis when addr is "".
func newClient(t testing.TB, addr string) *redis.Client {
	t.Helper()
	opt := redisOptions(t)
	if addr != "" {
		opt.Addr = addr
	}
	rdb := redis.NewClient(opt)
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

// testPrefix returns a key prefix of the test's own, so that tests running
// in parallel on one Redis do not share counters, and deletes its keys at
// the end.
func testPrefix(t testing.TB) string {
	t.Helper()
	rdb := newClient(t, "") // skips the test here without Redis
	b := make([]byte, 6)
	rand.Read(b)
	prefix := "clientstatus-test:" + hex.EncodeToString(b)
	t.Cleanup(func() {
		ctx := context.Background()
		keys, _ := rdb.Keys(ctx, prefix+":*").Result()
		if len(keys) > 0 {
			rdb.Del(ctx, keys...)
		}
	})
	return prefix
}

func TestReplicasShareBudget(t *testing.T) {
	is := is.New(t)
	prefix := testPrefix(t)
	// Two replicas: two limiters, each on its own client, one Redis.
	a := redislimit.New(newClient(t, ""), ratelimit.WithPrefix(prefix), ratelimit.WithTimeout(5*time.Second), ratelimit.WithOutagePolicy(ratelimit.FailClosed))
	b := redislimit.New(newClient(t, ""), ratelimit.WithPrefix(prefix), ratelimit.WithTimeout(5*time.Second), ratelimit.WithOutagePolicy(ratelimit.FailClosed))

	p := principal("org_a", store.PlanStarter, "k1")
	is.Equal(allowN(t, p, 100, a, b), 60) // 100 requests spread over two replicas: exactly the plan's 60 pass

	d, err := a.Allow(context.Background(), p)
	is.NoErr(err)
	is.True(!d.Allowed) // the 101st is refused on either replica
	d, err = b.Allow(context.Background(), p)
	is.NoErr(err)
	is.True(!d.Allowed)

	g := principal("org_g", store.PlanGrowth, "k2")
	is.Equal(allowN(t, g, 350, a, b), 300) // growth: 300 across replicas
}

func TestConcurrentRequestsOnReplicasKeepTheBudget(t *testing.T) {
	is := is.New(t)
	prefix := testPrefix(t)
	opts := []ratelimit.Option{ratelimit.WithPrefix(prefix), ratelimit.WithTimeout(10 * time.Second), ratelimit.WithOutagePolicy(ratelimit.FailClosed)}
	replicas := []ratelimit.Limiter{
		redislimit.New(newClient(t, ""), opts...),
		redislimit.New(newClient(t, ""), opts...),
	}
	p := principal("org_a", store.PlanStarter, "k1")

	var allowed, failed atomic.Int64
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := replicas[i%2].Allow(context.Background(), p)
			switch {
			case err != nil:
				failed.Add(1)
			case d.Allowed:
				allowed.Add(1)
			}
		}()
	}
	wg.Wait()
	is.Equal(failed.Load(), int64(0))   // no call failed (else the count below means nothing)
	is.Equal(allowed.Load(), int64(60)) // 200 concurrent requests: never more than the budget
}

func TestKeyLayoutAndExpiry(t *testing.T) {
	is := is.New(t)
	prefix := testPrefix(t)
	rdb := newClient(t, "")
	lim := redislimit.New(rdb, ratelimit.WithPrefix(prefix))
	ctx := context.Background()

	for _, plan := range []store.Plan{store.PlanStarter, store.PlanGrowth} {
		_, err := lim.Allow(ctx, principal("org_a", plan, ""))
		is.NoErr(err)
		key := prefix + ":" + string(plan) + ":org_a"
		n, err := rdb.Get(ctx, key).Int64()
		is.NoErr(err)         // one key per plan and organization
		is.Equal(n, int64(1)) // it counts the request
		ttl, err := rdb.PTTL(ctx, key).Result()
		is.NoErr(err)
		is.True(ttl > 0 && ttl <= time.Minute) // the key expires with its window
	}
	_, err := lim.Allow(ctx, principal("org_e", store.PlanEnterprise, ""))
	is.NoErr(err)
	keys, err := rdb.Keys(ctx, prefix+":*").Result()
	is.NoErr(err)
	is.Equal(len(keys), 2) // enterprise writes nothing
}

func TestDefaultPrefix(t *testing.T) {
	is := is.New(t)
	rdb := newClient(t, "")
	ctx := context.Background()
	org := "org_" + testPrefix(t) // an organization of this test's own, in the default namespace
	key := ratelimit.DefaultPrefix + ":starter:" + org
	t.Cleanup(func() { rdb.Del(context.Background(), key) })

	lim := redislimit.New(rdb, ratelimit.WithPrefix("")) // "" keeps the default
	_, err := lim.Allow(ctx, principal(org, store.PlanStarter, ""))
	is.NoErr(err)
	n, err := rdb.Get(ctx, key).Int64()
	is.NoErr(err)         // "clientstatus:ratelimit:<plan>:<org id>"
	is.Equal(n, int64(1)) // counts the request
}

func TestConformance(t *testing.T) {
	rdb := newClient(t, "")
	ratelimittest.Run(t, func(t *testing.T, opts ...ratelimit.Option) *ratelimit.PlanLimiter {
		return redislimit.New(rdb, append([]ratelimit.Option{ratelimit.WithPrefix(testPrefix(t))}, opts...)...)
	})
}

func TestRefundKeepsTheWindowsExpiry(t *testing.T) {
	is := is.New(t)
	prefix := testPrefix(t)
	rdb := newClient(t, "")
	lim := redislimit.New(rdb, ratelimit.WithPrefix(prefix))
	p := principal("org_ttl", store.PlanStarter, "")
	ctx := context.Background()
	is.Equal(allowN(t, p, 2, lim), 2)
	is.NoErr(lim.Refund(ctx, p))
	is.NoErr(lim.Refund(ctx, p))
	is.NoErr(lim.Refund(ctx, p)) // one too many: ignored
	key := prefix + ":starter:org_ttl"
	n, err := rdb.Get(ctx, key).Int64()
	is.NoErr(err)
	is.Equal(n, int64(0)) // never below zero
	ttl, err := rdb.PTTL(ctx, key).Result()
	is.NoErr(err)
	is.True(ttl > 0) // still expires
}

// principal is a caller of org on plan, through key id keyID.
func principal(org string, plan store.Plan, keyID string) auth.Principal {
	return auth.Principal{
		Org:   store.Organization{ID: org, Plan: plan, RetainerActive: true, APIEnabled: true},
		KeyID: keyID,
	}
}

// allowN calls Allow n times for p, round robin over limiters (replicas),
// and returns how many were allowed. Any error fails the test.
func allowN(t *testing.T, p auth.Principal, n int, limiters ...ratelimit.Limiter) int {
	t.Helper()
	allowed := 0
	for i := range n {
		d, err := limiters[i%len(limiters)].Allow(context.Background(), p)
		if err != nil {
			t.Fatalf("Allow %d: %v", i+1, err)
		}
		if d.Allowed {
			allowed++
		}
	}
	return allowed
}

func TestNewNeedsAClient(t *testing.T) {
	is := is.New(t)
	defer func() {
		is.Equal(recover(), "redislimit: New needs a Redis client") // a nil client is refused at construction
	}()
	redislimit.New(nil)
}

func TestPing(t *testing.T) {
	is := is.New(t)
	px := testenv.NewProxy(t, redisOptions(t).Addr)
	lim := redislimit.New(newClient(t, px.Addr()), ratelimit.WithTimeout(outageTimeout))
	ctx := context.Background()
	is.NoErr(lim.Ping(ctx)) // Redis answers

	px.Cut()
	err := lim.Ping(ctx)
	is.True(errors.Is(err, ratelimit.ErrUnavailable)) // Redis stopped: not ready

	px.Restore()
	px.Blackhole()
	start := time.Now()
	err = lim.Ping(ctx)
	is.True(errors.Is(err, ratelimit.ErrUnavailable)) // Redis hung: not ready...
	is.True(time.Since(start) < hangBound)            // ...said within the timeout

	px.Restore()
	testenv.Poll(t, 10*time.Second, func() error { return lim.Ping(ctx) }) // ready again once Redis is back
}
