package redislimit_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"
	"github.com/redis/go-redis/v9"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/internal/test/testenv"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/ratelimit/redislimit"
	"github.com/clientstatus/clientstatus/store"
)

// requestTag marks a request's ctx, so that spy knows which request a Redis
// command was sent for.
type requestTag struct{}

func tagged(tag string) context.Context {
	return context.WithValue(context.Background(), requestTag{}, tag)
}

// spy is a go-redis hook that records what a client sends to Redis: each
// command, by the tag of the request it was sent for, and each dial. It can
// hold commands (see holdNext) to keep a probe in flight.
type spy struct {
	mu      sync.Mutex
	sent    map[string]int // commands, by request tag ("" when untagged)
	dials   int
	hold    chan struct{} // while non-nil, a command waits for it to close, or for its ctx
	entered chan string   // the tag of each command held
}

// spiedClient returns a client to addr that reports to a spy. Its calls
// end at the limiter's timeout (ContextTimeoutEnabled), as New advises.
func spiedClient(t *testing.T, addr string) (*redis.Client, *spy) {
	t.Helper()
	opt := redisOptions(t)
	opt.Addr = addr
	opt.ContextTimeoutEnabled = true
	rdb := redis.NewClient(opt)
	t.Cleanup(func() { rdb.Close() })
	s := &spy{sent: map[string]int{}, entered: make(chan string, 1000)}
	rdb.AddHook(s)
	return rdb, s
}

func (s *spy) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		s.mu.Lock()
		s.dials++
		s.mu.Unlock()
		return next(ctx, network, addr)
	}
}

func (s *spy) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		s.record(ctx, 1)
		return next(ctx, cmd)
	}
}

func (s *spy) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		s.record(ctx, len(cmds))
		return next(ctx, cmds)
	}
}

// record counts n commands of ctx's request, then holds them if asked to.
func (s *spy) record(ctx context.Context, n int) {
	tag, _ := ctx.Value(requestTag{}).(string)
	s.mu.Lock()
	s.sent[tag] += n
	hold := s.hold
	s.mu.Unlock()
	if hold == nil {
		return
	}
	s.entered <- tag
	select {
	case <-hold:
	case <-ctx.Done():
	}
}

// total is the number of commands and dials so far: what reached Redis.
func (s *spy) total() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.dials
	for _, c := range s.sent {
		n += c
	}
	return n
}

// requests returns the tags of the requests that sent Redis anything.
func (s *spy) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var tags []string
	for tag := range s.sent {
		tags = append(tags, tag)
	}
	slices.Sort(tags)
	return tags
}

// holdNext makes commands wait until release.
func (s *spy) holdNext() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hold = make(chan struct{})
}

func (s *spy) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	close(s.hold)
	s.hold = nil
}

// isOutage asserts that Allow answered with policy's outage answer.
func isOutage(is *is.I, policy ratelimit.OutagePolicy, d ratelimit.Decision, err error) {
	is.Helper()
	if policy == ratelimit.FailClosed {
		is.True(errors.Is(err, ratelimit.ErrUnavailable)) // fail closed: 503
		is.True(errors.Is(err, store.ErrUnavailable))     // the module's one unavailability error
		return
	}
	is.NoErr(err)                    // fail open: served...
	is.True(d.Allowed && !d.Limited) // ...without a limit
}

// outageSetup returns a limiter with policy and opts on a spied client,
// through a proxy to the test Redis, on a test clock.
func outageSetup(t *testing.T, policy ratelimit.OutagePolicy, opts ...ratelimit.Option) (*testenv.Proxy, *spy, *testenv.Clock, *ratelimit.PlanLimiter) {
	t.Helper()
	px := testenv.NewProxy(t, redisOptions(t).Addr)
	rdb, spy := spiedClient(t, px.Addr())
	clk := testenv.NewClock(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	lim := redislimit.New(rdb, append([]ratelimit.Option{
		ratelimit.WithPrefix(testPrefix(t)),
		ratelimit.WithTimeout(outageTimeout),
		ratelimit.WithOutagePolicy(policy),
		ratelimit.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
		ratelimit.WithClock(clk.Now),
	}, opts...)...)
	return px, spy, clk, lim
}

var policies = []ratelimit.OutagePolicy{ratelimit.FailOpen, ratelimit.FailClosed}

func TestOutageBackoff(t *testing.T) {
	for _, policy := range policies {
		t.Run("fail "+policy.String(), func(t *testing.T) {
			is := is.New(t)
			px, spy, clk, lim := outageSetup(t, policy)
			p := principal("org_a", store.PlanStarter, "k1")
			is.Equal(allowN(t, p, 10, lim), 10) // Redis up: limited as usual

			px.Blackhole()
			start := time.Now()
			d, err := lim.Allow(tagged("first"), p)
			isOutage(is, policy, d, err)
			is.True(time.Since(start) >= outageTimeout)     // the first request waits the timeout...
			is.Equal(spy.requests(), []string{"", "first"}) // ...for Redis ("" is allowN's requests)

			before := spy.total()
			start = time.Now()
			for i := range 20 {
				d, err := lim.Allow(tagged(fmt.Sprint("next", i)), p)
				isOutage(is, policy, d, err)
			}
			is.NoErr(lim.Refund(context.Background(), p)) // Refund during an outage does nothing...
			is.Equal(spy.total(), before)                 // ...and, like the 20 requests after the first, sends Redis nothing
			is.True(time.Since(start) < outageTimeout)    // so none of them waited for it

			px.Restore()
			clk.Advance(ratelimit.DefaultOutageBackoff - time.Millisecond)
			d, err = lim.Allow(tagged("early"), p)
			isOutage(is, policy, d, err)  // Redis is back, but the backoff is not over
			is.Equal(spy.total(), before) // so it was not asked

			clk.Advance(time.Millisecond)
			d, err = lim.Allow(tagged("probe"), p)
			is.NoErr(err)
			is.True(d.Limited && d.Allowed)     // the backoff over, a probe finds Redis back: limited again
			is.Equal(d.Remaining, int64(60-11)) // the window kept its 10, and the outage counted nothing
			d, err = lim.Allow(tagged("after"), p)
			is.NoErr(err)
			is.Equal(d.Remaining, int64(60-12)) // exact counting resumes for everyone
		})
	}
}

func TestOutageOneProbeAtATime(t *testing.T) {
	for _, policy := range policies {
		t.Run("fail "+policy.String(), func(t *testing.T) {
			is := is.New(t)
			backoff := 3 * time.Second
			px, spy, clk, lim := outageSetup(t, policy, ratelimit.WithOutageBackoff(backoff))
			p := principal("org_a", store.PlanStarter, "k1")
			is.Equal(allowN(t, p, 10, lim), 10)

			px.Blackhole()
			d, err := lim.Allow(tagged("first"), p)
			isOutage(is, policy, d, err)

			const n = 30
			type result struct {
				d   ratelimit.Decision
				err error
			}
			burst := func(round int) <-chan result {
				results := make(chan result, n)
				for i := range n {
					go func() {
						d, err := lim.Allow(tagged(fmt.Sprintf("r%d-%02d", round, i)), p)
						results <- result{d, err}
					}()
				}
				return results
			}
			want := []string{"", "first"}
			for round := range 3 {
				clk.Advance(backoff) // the backoff is over: the next request probes
				spy.holdNext()       // and stays in flight until released
				results := burst(round)
				probe := <-spy.entered
				for range n - 1 {
					r := <-results
					isOutage(is, policy, r.d, r.err) // the others get the policy at once, while the probe is in flight
				}
				want = append(want, probe)
				slices.Sort(want)
				is.Equal(spy.requests(), want) // of n concurrent requests, only the probe reached Redis
				spy.release()
				r := <-results
				isOutage(is, policy, r.d, r.err) // the probe found Redis still out
			}

			px.Restore()
			clk.Advance(backoff)
			limited := 0
			results := burst(3)
			for range n {
				r := <-results
				if r.err == nil && r.d.Limited {
					is.True(r.d.Allowed)
					limited++
				}
			}
			is.True(limited > 0) // the probe found Redis back, and so did the requests after it
			d, err = lim.Allow(context.Background(), p)
			is.NoErr(err)
			is.Equal(d.Remaining, int64(60-10-limited-1)) // exact counting: the outage counted nothing
		})
	}
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
	testenv.Poll(t, 10*time.Second, func() error {
		d, err := lim.Allow(context.Background(), p)
		if err == nil && d.Limited {
			return nil
		}
		return fmt.Errorf("the limiter did not recover by itself after Redis came back: limited %v, error %v", d.Limited, err)
	})
}

func TestOutage(t *testing.T) {
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
			lim := redislimit.New(newClient(t, px.Addr()),
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
	lim := redislimit.New(newClient(t, px.Addr()),
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
	lim := redislimit.New(newClient(t, px.Addr()),
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
