package ratelimit_test

import (
	"context"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/internal/testenv"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/store"
)

func TestMemoryPlanBudgets(t *testing.T) {
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
			lim := ratelimit.NewMemory()
			p := principal("org_a", tt.plan, "k1")
			is.Equal(allowN(t, p, tt.want+40, lim), tt.want) // exactly the plan's budget is allowed
		})
	}
}

func TestMemoryRefusalCarriesRetryAfter(t *testing.T) {
	is := is.New(t)
	lim := ratelimit.NewMemory()
	p := principal("org_a", store.PlanStarter, "k1")
	ctx := context.Background()

	for i := 1; i <= 60; i++ {
		d, err := lim.Allow(ctx, p)
		is.NoErr(err)
		is.True(d.Allowed)                 // within the budget
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
	is.True(!d.Reset.Before(before.Add(time.Minute - time.Second))) // the window ends about a minute after it began
	is.True(!d.Reset.After(before.Add(time.Minute + time.Second)))

	h := http.Header{}
	d.WriteHeaders(h, before)
	retry, err := strconv.Atoi(h.Get("Retry-After"))
	is.NoErr(err)
	is.True(retry >= 1 && retry <= 61) // Retry-After: seconds until the window ends
	is.Equal(h.Get("X-RateLimit-Remaining"), "0")
}

func TestMemoryEnterpriseIsUnlimited(t *testing.T) {
	is := is.New(t)
	lim := ratelimit.NewMemory()
	p := principal("org_big", store.PlanEnterprise, "k1")
	for range 1000 {
		d, err := lim.Allow(context.Background(), p)
		is.NoErr(err)
		is.True(d.Allowed)
		is.True(!d.Limited) // no limit, hence no headers
		h := http.Header{}
		d.WriteHeaders(h, time.Now())
		is.Equal(len(h), 0) // enterprise responses carry no rate-limit headers
	}
	is.NoErr(lim.Refund(context.Background(), p)) // refunding an unlimited plan is a no-op
}

func TestMemoryBudgetIsPerOrganization(t *testing.T) {
	is := is.New(t)
	lim := ratelimit.NewMemory()
	// Two keys of org_a share one budget...
	a1 := principal("org_a", store.PlanStarter, "k1")
	a2 := principal("org_a", store.PlanStarter, "k2")
	is.Equal(allowN(t, a1, 30, lim)+allowN(t, a2, 50, lim), 60) // an organization's keys share its budget
	// ...and org_b has its own.
	b := principal("org_b", store.PlanStarter, "k3")
	is.Equal(allowN(t, b, 70, lim), 60) // another organization is not affected
}

func TestMemoryWithRate(t *testing.T) {
	is := is.New(t)
	lim := ratelimit.NewMemory(
		ratelimit.WithRate(store.PlanStarter, ratelimit.Rate{Limit: 3, Period: time.Hour}),
		ratelimit.WithRate(store.PlanGrowth, ratelimit.Unlimited),
	)
	is.Equal(allowN(t, principal("a", store.PlanStarter, ""), 10, lim), 3)   // overridden budget
	is.Equal(allowN(t, principal("b", store.PlanGrowth, ""), 500, lim), 500) // plan made unlimited
	d, err := lim.Allow(context.Background(), principal("a", store.PlanStarter, ""))
	is.NoErr(err)
	is.Equal(d.Window, time.Hour)
}

func TestMemoryRefund(t *testing.T) {
	testRefund(t, func(t *testing.T) ratelimit.Limiter { return ratelimit.NewMemory() })
}

// testRefund checks Refund against any store: it gives back exactly one
// counted request, refused requests take nothing, and it never creates
// credit.
func testRefund(t *testing.T, open func(t *testing.T) ratelimit.Limiter) {
	ctx := context.Background()
	t.Run("gives back one request", func(t *testing.T) {
		is := is.New(t)
		lim := open(t)
		p := principal("org_r1", store.PlanStarter, "")
		is.Equal(allowN(t, p, 60, lim), 60)
		is.NoErr(lim.Refund(ctx, p))
		is.Equal(allowN(t, p, 5, lim), 1) // one refund, one more request
	})
	t.Run("refused requests take nothing", func(t *testing.T) {
		is := is.New(t)
		lim := open(t)
		p := principal("org_r2", store.PlanStarter, "")
		is.Equal(allowN(t, p, 70, lim), 60) // ten refused
		is.NoErr(lim.Refund(ctx, p))
		is.Equal(allowN(t, p, 5, lim), 1) // the refund frees a request despite the refusals
	})
	t.Run("no credit without a request", func(t *testing.T) {
		is := is.New(t)
		lim := open(t)
		p := principal("org_r3", store.PlanStarter, "")
		is.NoErr(lim.Refund(ctx, p))
		is.NoErr(lim.Refund(ctx, p))
		is.Equal(allowN(t, p, 70, lim), 60) // refunds before any request give nothing
	})
	t.Run("remaining counts back up", func(t *testing.T) {
		is := is.New(t)
		lim := open(t)
		p := principal("org_r4", store.PlanStarter, "")
		d, err := lim.Allow(ctx, p)
		is.NoErr(err)
		is.Equal(d.Remaining, int64(59))
		is.NoErr(lim.Refund(ctx, p))
		d, err = lim.Allow(ctx, p)
		is.NoErr(err)
		is.Equal(d.Remaining, int64(59)) // the refunded request did not count
	})
}

func TestMemoryWindows(t *testing.T) {
	is := is.New(t)
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 250_000_000, time.UTC)
	clk := testenv.NewClock(t0)
	lim := ratelimit.NewMemory(ratelimit.WithClock(clk.Now))
	ctx := context.Background()
	a := principal("org_a", store.PlanStarter, "")
	b := principal("org_b", store.PlanStarter, "")

	is.Equal(allowN(t, a, 60, lim), 60)
	clk.Advance(30 * time.Second)
	is.Equal(allowN(t, b, 60, lim), 60) // org_b's window starts at its own first request
	clk.Advance(29 * time.Second)
	d, err := lim.Allow(ctx, a)
	is.NoErr(err)
	is.True(!d.Allowed)                                                 // org_a's window has a second left
	is.True(d.Reset.Equal(time.Date(2026, 3, 1, 9, 1, 1, 0, time.UTC))) // its end (9:01:00.25), rounded up to the second

	clk.Advance(time.Second)
	d, err = lim.Allow(ctx, a)
	is.NoErr(err)
	is.True(d.Allowed)               // a minute after its first request, org_a has a new window...
	is.Equal(d.Remaining, int64(59)) // ...and a full budget
	d, err = lim.Allow(ctx, b)
	is.NoErr(err)
	is.True(!d.Allowed) // while org_b's window has 30 seconds to go

	clk.Advance(30 * time.Second)
	is.NoErr(lim.Refund(ctx, b))        // org_b's window has ended: nothing to give back...
	is.Equal(allowN(t, b, 70, lim), 60) // ...and no window opened with a free request
}
