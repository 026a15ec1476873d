package ratelimit_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/store"
)

// spyCounter is a Counter that counts in a map and records how it is
// called. hang makes its calls wait until the test ends, ignoring ctx, as
// a client without a deadline on a hung server would; pingErr is what
// Ping returns.
type spyCounter struct {
	hang    chan struct{}
	pingErr error

	mu        sync.Mutex
	counts    map[string]int64
	keys      []string
	rates     []ratelimit.Rate
	deadlines []bool // whether each call's ctx had a deadline
}

func newSpyCounter(t *testing.T) *spyCounter {
	c := &spyCounter{counts: map[string]int64{}, hang: make(chan struct{})}
	t.Cleanup(func() { close(c.hang) })
	return c
}

func (c *spyCounter) record(ctx context.Context, key string, r ratelimit.Rate) {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := ctx.Deadline()
	c.keys, c.rates, c.deadlines = append(c.keys, key), append(c.rates, r), append(c.deadlines, ok)
}

func (c *spyCounter) Take(ctx context.Context, key string, r ratelimit.Rate) (ratelimit.Window, error) {
	c.record(ctx, key, r)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.counts[key]++
	return ratelimit.Window{Count: c.counts[key], End: time.Now().Add(r.Period)}, nil
}

// Peek reads key's count without counting; its window ends a minute on.
func (c *spyCounter) Peek(_ context.Context, key string, _ ratelimit.Rate) (ratelimit.Window, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return ratelimit.Window{Count: c.counts[key], End: time.Now().Add(time.Minute)}, nil
}

// Ping returns pingErr.
func (c *spyCounter) Ping(context.Context) error { return c.pingErr }

func (c *spyCounter) GiveBack(ctx context.Context, key string, r ratelimit.Rate) error {
	c.record(ctx, key, r)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.counts[key] > 0 {
		c.counts[key]--
	}
	return nil
}

// hangingCounter is a spyCounter whose calls hang.
type hangingCounter struct{ *spyCounter }

func (c hangingCounter) Take(ctx context.Context, key string, r ratelimit.Rate) (ratelimit.Window, error) {
	<-c.hang
	return c.spyCounter.Take(ctx, key, r)
}

func (c hangingCounter) Ping(context.Context) error {
	<-c.hang
	return nil
}

// pinger is a spyCounter, named for the Ping cases.
type pinger struct{ *spyCounter }

func TestNewNeedsACounter(t *testing.T) {
	is := is.New(t)
	defer func() {
		is.Equal(recover(), "ratelimit: New needs a Counter") // a nil Counter is refused at construction
	}()
	ratelimit.New(nil)
}

func TestNewCountsInTheCounterGiven(t *testing.T) {
	is := is.New(t)
	c := newSpyCounter(t)
	lim := ratelimit.New(c, ratelimit.WithPrefix("portal"),
		ratelimit.WithRate(store.PlanStarter, ratelimit.Rate{Limit: 2, Period: time.Hour}))
	p := principal("org_a", store.PlanStarter, "k1")
	is.Equal(allowN(t, p, 3, lim), 2) // the Rate's budget, counted in c
	is.Equal(c.keys, []string{"portal:starter:org_a", "portal:starter:org_a", "portal:starter:org_a", "portal:starter:org_a"})
	// three Takes and the GiveBack of the refused one, under "<prefix>:<plan>:<org id>"
	is.Equal(c.rates[0], ratelimit.Rate{Limit: 2, Period: time.Hour}) // the plan's Rate
	is.Equal(c.counts["portal:starter:org_a"], int64(2))              // the refused request was given back
	is.Equal(c.deadlines, []bool{true, true, true, true})             // a Counter that may block is called under the timeout
}

func TestNonBlockingCounterIsCalledDirectly(t *testing.T) {
	is := is.New(t)
	c := newSpyCounter(t)
	lim := ratelimit.New(c, ratelimit.WithNonBlockingCounter())
	is.Equal(allowN(t, principal("org_a", store.PlanStarter, ""), 1, lim), 1)
	is.Equal(c.deadlines, []bool{false}) // no timeout: it is called with the request's own ctx
}

func TestBlockingCounterWaitsNoLongerThanTheTimeout(t *testing.T) {
	for _, policy := range []ratelimit.OutagePolicy{ratelimit.FailOpen, ratelimit.FailClosed} {
		t.Run("fail "+policy.String(), func(t *testing.T) {
			is := is.New(t)
			lim := ratelimit.New(hangingCounter{newSpyCounter(t)}, ratelimit.WithTimeout(20*time.Millisecond),
				ratelimit.WithOutagePolicy(policy), ratelimit.WithLogger(quietLogger()))
			start := time.Now()
			d, err := lim.Allow(context.Background(), principal("org_a", store.PlanStarter, ""))
			is.True(time.Since(start) < 5*time.Second) // the counter ignores ctx, yet Allow returns
			isOutage(is, policy, d, err)               // with the policy's answer
		})
	}
}

func TestPing(t *testing.T) {
	ctx := context.Background()
	down := errors.New("connection refused")
	t.Run("memory has nothing to ping", func(t *testing.T) {
		is := is.New(t)
		is.NoErr(ratelimit.NewMemory().Ping(ctx))
	})
	t.Run("a counter that answers", func(t *testing.T) {
		is := is.New(t)
		is.NoErr(ratelimit.New(pinger{newSpyCounter(t)}).Ping(ctx))
	})
	t.Run("a counter that fails", func(t *testing.T) {
		is := is.New(t)
		c := newSpyCounter(t)
		c.pingErr = down
		err := ratelimit.New(pinger{c}).Ping(ctx)
		is.True(errors.Is(err, ratelimit.ErrUnavailable)) // a readiness check answers 503
	})
	t.Run("a counter that hangs", func(t *testing.T) {
		is := is.New(t)
		lim := ratelimit.New(hangingCounter{newSpyCounter(t)}, ratelimit.WithTimeout(20*time.Millisecond))
		err := lim.Ping(ctx)
		is.True(errors.Is(err, ratelimit.ErrUnavailable)) // out at the timeout
	})
	t.Run("the caller gives up", func(t *testing.T) {
		is := is.New(t)
		lim := ratelimit.New(hangingCounter{newSpyCounter(t)}, ratelimit.WithTimeout(time.Minute))
		cctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
		defer cancel()
		is.Equal(lim.Ping(cctx), context.DeadlineExceeded) // ctx's own error: no outage
	})
	t.Run("does not touch the outage state", func(t *testing.T) {
		is := is.New(t)
		c := newSpyCounter(t)
		c.pingErr = down
		lim := ratelimit.New(pinger{c}, ratelimit.WithOutagePolicy(ratelimit.FailClosed))
		is.True(lim.Ping(ctx) != nil)
		d, err := lim.Allow(ctx, principal("org_a", store.PlanStarter, ""))
		is.NoErr(err) // a failed ping starts no outage: requests still count
		is.True(d.Limited && d.Allowed)
	})
}

// failingPeeker is a spyCounter whose Peek fails.
type failingPeeker struct{ *spyCounter }

func (failingPeeker) Peek(context.Context, string, ratelimit.Rate) (ratelimit.Window, error) {
	return ratelimit.Window{}, errors.New("connection refused")
}

// TestPeekDuringAnOutage checks that Peek follows the OutagePolicy, as
// Allow does.
func TestPeekDuringAnOutage(t *testing.T) {
	is := is.New(t)
	p := principal("org_a", store.PlanStarter, "k1")
	open := ratelimit.New(failingPeeker{newSpyCounter(t)}, ratelimit.WithLogger(quietLogger()))
	d, err := open.Peek(context.Background(), p)
	is.NoErr(err)
	is.True(d.Allowed && !d.Limited) // fail open: served unlimited, so no figures
	closed := ratelimit.New(failingPeeker{newSpyCounter(t)}, ratelimit.WithOutagePolicy(ratelimit.FailClosed))
	_, err = closed.Peek(context.Background(), p)
	is.True(errors.Is(err, ratelimit.ErrUnavailable)) // fail closed: 503
}
