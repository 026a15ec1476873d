package ratelimit_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matryer/is"
	"github.com/redis/go-redis/v9"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/internal/testenv"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/ratelimit/ratelimittest"
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

func TestRedisReplicasShareBudget(t *testing.T) {
	is := is.New(t)
	prefix := testPrefix(t)
	// Two replicas: two limiters, each on its own client, one Redis.
	a := ratelimit.NewRedis(newClient(t, ""), ratelimit.WithPrefix(prefix), ratelimit.WithTimeout(5*time.Second), ratelimit.WithOutagePolicy(ratelimit.FailClosed))
	b := ratelimit.NewRedis(newClient(t, ""), ratelimit.WithPrefix(prefix), ratelimit.WithTimeout(5*time.Second), ratelimit.WithOutagePolicy(ratelimit.FailClosed))

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

func TestRedisConcurrentRequestsKeepTheBudget(t *testing.T) {
	is := is.New(t)
	prefix := testPrefix(t)
	opts := []ratelimit.Option{ratelimit.WithPrefix(prefix), ratelimit.WithTimeout(10 * time.Second), ratelimit.WithOutagePolicy(ratelimit.FailClosed)}
	replicas := []ratelimit.Limiter{
		ratelimit.NewRedis(newClient(t, ""), opts...),
		ratelimit.NewRedis(newClient(t, ""), opts...),
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

func TestRedisKeyLayoutAndExpiry(t *testing.T) {
	is := is.New(t)
	prefix := testPrefix(t)
	rdb := newClient(t, "")
	lim := ratelimit.NewRedis(rdb, ratelimit.WithPrefix(prefix))
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

func TestRedisConformance(t *testing.T) {
	rdb := newClient(t, "")
	ratelimittest.Run(t, func(t *testing.T, opts ...ratelimit.Option) *ratelimit.PlanLimiter {
		return ratelimit.NewRedis(rdb, append([]ratelimit.Option{ratelimit.WithPrefix(testPrefix(t))}, opts...)...)
	})
}

func TestRedisRefundKeepsTheWindowsExpiry(t *testing.T) {
	is := is.New(t)
	prefix := testPrefix(t)
	rdb := newClient(t, "")
	lim := ratelimit.NewRedis(rdb, ratelimit.WithPrefix(prefix))
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

// logBuffer is a concurrency-safe log destination.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// outageTimeout is the limiter's timeout in the outage tests; an Allow that
// takes more than hangBound has hung (a generous bound, not a timing test).
const (
	outageTimeout = 200 * time.Millisecond
	hangBound     = 5 * outageTimeout
)

// allowTimed calls Allow and fails the test if it hangs.
func allowTimed(t *testing.T, lim ratelimit.Limiter, p auth.Principal) (ratelimit.Decision, error) {
	t.Helper()
	start := time.Now()
	d, err := lim.Allow(context.Background(), p)
	if took := time.Since(start); took > hangBound {
		t.Fatalf("Allow took %v during an outage, timeout %v: it hung", took, outageTimeout)
	}
	return d, err
}

// waitLimited calls Allow until the limiter limits again, as it must once
// Redis is back, and fails the test if it does not within a few seconds.
func waitLimited(t *testing.T, lim ratelimit.Limiter, p auth.Principal) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		d, err := lim.Allow(context.Background(), p)
		if err == nil && d.Limited {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the limiter did not recover by itself after Redis came back")
}

func TestRedisOutage(t *testing.T) {
	tests := []struct {
		name   string
		policy ratelimit.OutagePolicy
		outage func(*testenv.Proxy)
	}{
		{"redis stopped, fail open", ratelimit.FailOpen, (*testenv.Proxy).Cut},
		{"redis stopped, fail closed", ratelimit.FailClosed, (*testenv.Proxy).Cut},
		{"redis hung, fail open", ratelimit.FailOpen, (*testenv.Proxy).Blackhole},
		{"redis hung, fail closed", ratelimit.FailClosed, (*testenv.Proxy).Blackhole},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			px := testenv.NewProxy(t, redisOptions(t).Addr)
			var logs logBuffer
			lim := ratelimit.NewRedis(newClient(t, px.Addr()),
				ratelimit.WithPrefix(testPrefix(t)),
				ratelimit.WithTimeout(outageTimeout),
				ratelimit.WithOutagePolicy(tt.policy),
				ratelimit.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))),
			)
			p := principal("org_a", store.PlanStarter, "k1")
			is.Equal(allowN(t, p, 10, lim), 10) // Redis up: limited as usual

			tt.outage(px)
			for range 5 {
				d, err := allowTimed(t, lim, p)
				if tt.policy == ratelimit.FailClosed {
					is.True(errors.Is(err, ratelimit.ErrUnavailable)) // fail closed: the handler answers 503
					continue
				}
				is.NoErr(err) // fail open: served...
				is.True(d.Allowed)
				is.True(!d.Limited) // ...without rate-limit headers
			}
			if tt.policy == ratelimit.FailOpen {
				is.Equal(strings.Count(logs.String(), "level=WARN"), 1) // one warning for the outage, not one per request
				is.True(!strings.Contains(logs.String(), "k1"))         // no key material in the log
			}

			px.Restore()
			waitLimited(t, lim, p)
			d, err := lim.Allow(context.Background(), p)
			is.NoErr(err)
			is.True(d.Limited && d.Remaining < 50) // the window's count survived the outage
		})
	}
}

func TestRedisDownAtStart(t *testing.T) {
	is := is.New(t)
	px := testenv.NewProxy(t, redisOptions(t).Addr)
	px.Cut()
	lim := ratelimit.NewRedis(newClient(t, px.Addr()),
		ratelimit.WithPrefix(testPrefix(t)),
		ratelimit.WithTimeout(outageTimeout),
		ratelimit.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
	)
	p := principal("org_a", store.PlanStarter, "k1")
	d, err := allowTimed(t, lim, p)
	is.NoErr(err)
	is.True(d.Allowed && !d.Limited) // fail open (the default) while Redis has never answered

	px.Restore()
	waitLimited(t, lim, p)
	is.True(allowN(t, p, 100, lim) < 60) // limits apply once Redis answers
}

func TestFailOpenWarningsAreSpaced(t *testing.T) {
	is := is.New(t)
	px := testenv.NewProxy(t, redisOptions(t).Addr)
	px.Cut()
	var logs logBuffer
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	lim := ratelimit.NewRedis(newClient(t, px.Addr()),
		ratelimit.WithPrefix(testPrefix(t)),
		ratelimit.WithTimeout(outageTimeout),
		ratelimit.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))),
		ratelimit.WithClock(func() time.Time { return now }),
	)
	p := principal("org_a", store.PlanStarter, "k1")
	warnings := func() int { return strings.Count(logs.String(), "level=WARN") }

	for range 3 {
		_, err := allowTimed(t, lim, p)
		is.NoErr(err)
	}
	is.Equal(warnings(), 1) // the first failure warns
	now = now.Add(ratelimit.WarnInterval - time.Second)
	_, _ = allowTimed(t, lim, p)
	is.Equal(warnings(), 1) // not again within WarnInterval
	now = now.Add(2 * time.Second)
	_, _ = allowTimed(t, lim, p)
	is.Equal(warnings(), 2)                                          // again after it
	is.True(strings.Contains(logs.String(), "unlimited_requests=4")) // saying how many went unlimited since the last warning
}
