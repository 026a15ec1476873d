package ratelimit_test

import (
	"context"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/internal/test/testenv"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/ratelimit/ratelimittest"
	"github.com/clientstatus/clientstatus/store"
)

func TestMemoryConformance(t *testing.T) {
	ratelimittest.Run(t, func(t *testing.T, opts ...ratelimit.Option) *ratelimit.PlanLimiter {
		return ratelimit.NewMemory(opts...)
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
