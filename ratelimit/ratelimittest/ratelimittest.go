package ratelimittest

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/store"
)

// Run runs the suite as subtests of t. open must return a limiter with
// opts applied and counts of its own (nothing counted yet, nothing shared
// with another call), and arrange its cleanup with t.Cleanup. The suite
// passes FailClosed and a timeout of 10s before its own options, so that
// a counter that fails makes a subtest fail rather than pass unlimited.
func Run(t *testing.T, open func(t *testing.T, opts ...ratelimit.Option) *ratelimit.PlanLimiter) {
	newLimiter := func(t *testing.T, opts ...ratelimit.Option) *ratelimit.PlanLimiter {
		return open(t, append([]ratelimit.Option{
			ratelimit.WithOutagePolicy(ratelimit.FailClosed),
			ratelimit.WithTimeout(10 * time.Second),
		}, opts...)...)
	}
	t.Run("plan budgets", func(t *testing.T) { planBudgets(t, newLimiter) })
	t.Run("refusal", func(t *testing.T) { refusal(t, newLimiter) })
	t.Run("enterprise is unlimited", func(t *testing.T) { enterprise(t, newLimiter) })
	t.Run("budget per organization", func(t *testing.T) { perOrganization(t, newLimiter) })
	t.Run("WithRate", func(t *testing.T) { withRate(t, newLimiter) })
	t.Run("concurrent requests keep the budget", func(t *testing.T) { concurrent(t, newLimiter) })
	t.Run("refund", func(t *testing.T) { refund(t, newLimiter) })
	t.Run("peek", func(t *testing.T) { peek(t, newLimiter) })
}

// ctx is the context of every call of the suite.
var ctx = context.Background()

type opener = func(t *testing.T, opts ...ratelimit.Option) *ratelimit.PlanLimiter

// principal is a caller of org on plan, through key id keyID.
func principal(org string, plan store.Plan, keyID string) auth.Principal {
	return auth.Principal{
		Org:   store.Organization{ID: org, Plan: plan, RetainerActive: true, APIEnabled: true},
		KeyID: keyID,
	}
}

// allowN calls Allow n times for p and returns how many were allowed. Any
// error fails the test.
func allowN(t *testing.T, lim ratelimit.Limiter, p auth.Principal, n int) int {
	t.Helper()
	allowed := 0
	for i := range n {
		d, err := lim.Allow(ctx, p)
		if err != nil {
			t.Fatalf("Allow %d: %v", i+1, err)
		}
		if d.Allowed {
			allowed++
		}
	}
	return allowed
}

func planBudgets(t *testing.T, open opener) {
	tests := []struct {
		plan store.Plan
		want int
	}{
		{store.PlanStarter, 60},
		{store.PlanGrowth, 300},
		{store.Plan("platinum"), 60}, // an unknown plan gets the starter budget
	}
	for _, tt := range tests {
		t.Run(string(tt.plan), func(t *testing.T) {
			is := is.New(t)
			lim := open(t)
			p := principal("org_a", tt.plan, "k1")
			is.Equal(allowN(t, lim, p, tt.want+40), tt.want) // exactly the plan's budget is allowed
		})
	}
}

func refusal(t *testing.T, open opener) {
	is := is.New(t)
	lim := open(t)
	p := principal("org_a", store.PlanStarter, "k1")

	start := time.Now()
	for i := 1; i <= 60; i++ {
		d, err := lim.Allow(ctx, p)
		is.NoErr(err)
		is.True(d.Limited && d.Allowed)    // within the budget
		is.Equal(d.Remaining, int64(60-i)) // remaining counts down
	}
	before := time.Now()
	d, err := lim.Allow(ctx, p)
	is.NoErr(err)
	is.True(d.Limited)
	is.True(!d.Allowed)             // the 61st request is refused
	is.Equal(d.Remaining, int64(0)) // never negative
	is.Equal(d.Limit, int64(60))
	is.Equal(d.Window, time.Minute)
	is.True(!d.Reset.Before(start.Add(time.Minute)))               // the window ends a minute after it began...
	is.True(!d.Reset.After(before.Add(time.Minute + time.Second))) // ...rounded up to the second
	is.Equal(d.Reset.Nanosecond(), 0)                              // a whole second

	h := http.Header{}
	d.WriteHeaders(h, before)
	retry, err := strconv.Atoi(h.Get("Retry-After"))
	is.NoErr(err)
	is.True(retry >= 1 && retry <= 60) // Retry-After: seconds until the window ends
	is.Equal(h.Get("X-RateLimit-Remaining"), "0")
}

func enterprise(t *testing.T, open opener) {
	is := is.New(t)
	lim := open(t)
	p := principal("org_big", store.PlanEnterprise, "k1")
	for range 1000 {
		d, err := lim.Allow(ctx, p)
		is.NoErr(err)
		is.True(d.Allowed)
		is.True(!d.Limited) // no limit, hence no headers
		h := http.Header{}
		d.WriteHeaders(h, time.Now())
		is.Equal(len(h), 0) // enterprise responses carry no rate-limit headers
	}
	is.NoErr(lim.Refund(ctx, p)) // refunding an unlimited plan is a no-op
}

func perOrganization(t *testing.T, open opener) {
	is := is.New(t)
	lim := open(t)
	// Two keys of org_a share one budget...
	a1 := principal("org_a", store.PlanStarter, "k1")
	a2 := principal("org_a", store.PlanStarter, "k2")
	is.Equal(allowN(t, lim, a1, 30)+allowN(t, lim, a2, 50), 60) // an organization's keys share its budget
	// ...and org_b has its own.
	b := principal("org_b", store.PlanStarter, "k3")
	is.Equal(allowN(t, lim, b, 70), 60) // another organization is not affected
	// A plan change starts a fresh window.
	g := principal("org_a", store.PlanGrowth, "k1")
	is.Equal(allowN(t, lim, g, 310), 300) // org_a on growth counts apart from its starter window
}

func withRate(t *testing.T, open opener) {
	is := is.New(t)
	lim := open(t,
		ratelimit.WithRate(store.PlanStarter, ratelimit.Rate{Limit: 3, Period: time.Hour}),
		ratelimit.WithRate(store.PlanGrowth, ratelimit.Unlimited),
	)
	is.Equal(allowN(t, lim, principal("a", store.PlanStarter, ""), 10), 3)   // overridden budget
	is.Equal(allowN(t, lim, principal("b", store.PlanGrowth, ""), 500), 500) // plan made unlimited
	d, err := lim.Allow(ctx, principal("a", store.PlanStarter, ""))
	is.NoErr(err)
	is.Equal(d.Window, time.Hour) // the overridden period
	is.True(d.Reset.After(time.Now().Add(59 * time.Minute)))
}

func concurrent(t *testing.T, open opener) {
	is := is.New(t)
	lim := open(t)
	p := principal("org_a", store.PlanStarter, "k1")

	var allowed, failed atomic.Int64
	var wg sync.WaitGroup
	for range 200 {
		wg.Go(func() {
			d, err := lim.Allow(ctx, p)
			switch {
			case err != nil:
				failed.Add(1)
			case d.Allowed:
				allowed.Add(1)
			}
		})
	}
	wg.Wait()
	is.Equal(failed.Load(), int64(0))   // no call failed (else the count below means nothing)
	is.Equal(allowed.Load(), int64(60)) // 200 concurrent requests: never more than the budget
}

// refund checks that Refund gives back exactly one counted request,
// that refused requests take nothing, and that it never creates credit.
func refund(t *testing.T, open opener) {
	t.Run("gives back one request", func(t *testing.T) {
		is := is.New(t)
		lim := open(t)
		p := principal("org_r1", store.PlanStarter, "")
		is.Equal(allowN(t, lim, p, 60), 60)
		is.NoErr(lim.Refund(ctx, p))
		is.Equal(allowN(t, lim, p, 5), 1) // one refund, one more request
	})
	t.Run("refused requests take nothing", func(t *testing.T) {
		is := is.New(t)
		lim := open(t)
		p := principal("org_r2", store.PlanStarter, "")
		is.Equal(allowN(t, lim, p, 70), 60) // ten refused
		is.NoErr(lim.Refund(ctx, p))
		is.Equal(allowN(t, lim, p, 5), 1) // the refund frees a request despite the refusals
	})
	t.Run("no credit without a request", func(t *testing.T) {
		is := is.New(t)
		lim := open(t)
		p := principal("org_r3", store.PlanStarter, "")
		is.NoErr(lim.Refund(ctx, p))
		is.NoErr(lim.Refund(ctx, p))
		is.Equal(allowN(t, lim, p, 70), 60) // refunds before any request give nothing
	})
	t.Run("no credit beyond the requests", func(t *testing.T) {
		is := is.New(t)
		lim := open(t)
		p := principal("org_r4", store.PlanStarter, "")
		is.Equal(allowN(t, lim, p, 2), 2)
		for range 5 {
			is.NoErr(lim.Refund(ctx, p)) // three too many: ignored
		}
		is.Equal(allowN(t, lim, p, 70), 60) // the count went back to zero, not below
	})
	t.Run("remaining counts back up", func(t *testing.T) {
		is := is.New(t)
		lim := open(t)
		p := principal("org_r5", store.PlanStarter, "")
		d, err := lim.Allow(ctx, p)
		is.NoErr(err)
		is.Equal(d.Remaining, int64(59))
		is.NoErr(lim.Refund(ctx, p))
		d, err = lim.Allow(ctx, p)
		is.NoErr(err)
		is.Equal(d.Remaining, int64(59)) // the refunded request did not count
	})
}

// peek checks PlanLimiter.Peek: the figures Allow would give, without
// spending anything, before the first request, during a window and once
// the budget is spent; unlimited plans unlimited.
func peek(t *testing.T, open opener) {
	is := is.New(t)
	lim := open(t)
	p := principal("org_a", store.PlanStarter, "k1")
	start := time.Now()
	d, err := lim.Peek(ctx, p)
	is.NoErr(err)
	is.True(d.Limited && d.Allowed)                                    // a fresh budget
	is.Equal(d.Limit, int64(60))                                       // the plan's
	is.Equal(d.Remaining, int64(60))                                   // whole
	is.Equal(d.Window, time.Minute)                                    // per minute
	is.True(!d.Reset.Before(start.Add(time.Minute)))                   // a window opened now would end a minute on
	is.True(!d.Reset.After(time.Now().Add(time.Minute + time.Second))) // rounded up to the second
	is.Equal(d.Reset.Nanosecond(), 0)                                  // a whole second

	is.Equal(allowN(t, lim, p, 3), 3)
	allowed, err := lim.Allow(ctx, p)
	is.NoErr(err)
	for range 10 {
		d, err = lim.Peek(ctx, p)
		is.NoErr(err)
		is.Equal(d.Remaining, allowed.Remaining) // what Allow left, however often it is read
		is.Equal(d.Reset, allowed.Reset)         // the window Allow counted in
	}
	is.Equal(allowN(t, lim, p, 100), 56) // peeking spent nothing
	d, err = lim.Peek(ctx, p)
	is.NoErr(err)
	is.True(d.Limited && !d.Allowed) // a spent budget
	is.Equal(d.Remaining, int64(0))

	d, err = lim.Peek(ctx, principal("org_big", store.PlanEnterprise, "k1"))
	is.NoErr(err)
	is.True(d.Allowed && !d.Limited) // an unlimited plan has no figures
}
