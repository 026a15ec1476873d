package ratelimit_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/option"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/store"
)

func TestOptionsPanicOnValuesWithoutADefault(t *testing.T) {
	tests := []struct {
		opt  ratelimit.Option
		want string
	}{
		{ratelimit.WithTimeout(-time.Second), "ratelimit: WithTimeout: -1s is negative"},
		{ratelimit.WithOutageBackoff(-time.Millisecond), "ratelimit: WithOutageBackoff: -1ms is negative"},
		{ratelimit.WithOutagePolicy(ratelimit.OutagePolicy(7)), "ratelimit: WithOutagePolicy: 7 is neither FailOpen nor FailClosed"},
		{ratelimit.WithRate(store.PlanStarter, ratelimit.Rate{Limit: -1, Period: time.Minute}), "ratelimit: WithRate: starter: Limit -1 is negative"},
		{ratelimit.WithRate(store.PlanGrowth, ratelimit.Rate{Limit: 10, Period: -time.Minute}), "ratelimit: WithRate: growth: Period -1m0s is negative"},
		{ratelimit.WithRate(store.PlanGrowth, ratelimit.Rate{Period: -time.Minute}), "ratelimit: WithRate: growth: Period -1m0s is negative"},
		{ratelimit.WithRate("", ratelimit.Rate{Limit: 10, Period: time.Minute}), "ratelimit: WithRate: empty plan"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			is := is.New(t)
			defer func() {
				is.Equal(fmt.Sprint(recover()), tt.want) // the constructor panics, naming the option
			}()
			var oe *option.Error
			is.True(errors.As(ratelimit.Validate(tt.opt), &oe)) // Validate returns the same error, typed
			is.Equal(oe.Error(), tt.want)
			ratelimit.NewMemory(tt.opt)
		})
	}
}

func TestOptionsZeroValuesMeanTheDefaults(t *testing.T) {
	is := is.New(t)
	lim := ratelimit.NewMemory(
		ratelimit.WithTimeout(0),
		ratelimit.WithOutageBackoff(0),
		ratelimit.WithOutagePolicy(0),
		ratelimit.WithPrefix(""),
		ratelimit.WithLogger(nil),
		ratelimit.WithClock(nil),
		nil, // a nil Option is ignored
		ratelimit.WithRate(store.PlanStarter, ratelimit.Rate{Limit: 2}),
		ratelimit.WithRate(store.PlanGrowth, ratelimit.Unlimited),
	)
	d, err := lim.Allow(context.Background(), principal("org_a", store.PlanStarter, ""))
	is.NoErr(err)
	is.Equal(d.Limit, int64(2))     // the Rate given
	is.Equal(d.Window, time.Minute) // a Period of 0 is a minute
	d, err = lim.Allow(context.Background(), principal("org_b", store.PlanGrowth, ""))
	is.NoErr(err)
	is.True(d.Allowed && !d.Limited) // Unlimited, the zero Rate, lifts the limit
}
