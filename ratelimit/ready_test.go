package ratelimit_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/internal/testenv"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/store"
)

func TestPingMemory(t *testing.T) {
	is := is.New(t)
	is.NoErr(ratelimit.NewMemory().Ping(context.Background())) // memory is always ready
}

// TestPingRedis checks that Ping asks Redis itself, within the limiter's
// timeout, whatever the outage backoff says, and leaves the backoff alone.
func TestPingRedis(t *testing.T) {
	for _, tt := range []struct {
		name   string
		outage func(*testenv.Proxy)
	}{
		{"redis stopped", (*testenv.Proxy).Cut},
		{"redis hung", (*testenv.Proxy).Blackhole},
	} {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			ctx := context.Background()
			px, spy, _, lim := outageSetup(t, ratelimit.FailClosed)
			p := principal("org_a", store.PlanStarter, "k1")
			is.NoErr(lim.Ping(ctx)) // Redis answers

			tt.outage(px)
			_, err := allowTimed(t, lim, p)
			is.True(errors.Is(err, ratelimit.ErrUnavailable)) // the outage starts a backoff
			before := spy.total()
			start := time.Now()
			err = lim.Ping(ctx)
			is.True(errors.Is(err, ratelimit.ErrUnavailable)) // not ready
			is.True(time.Since(start) < hangBound)            // within the limiter's timeout
			is.True(spy.total() > before)                     // Ping asked Redis despite the backoff

			px.Restore()
			is.NoErr(lim.Ping(ctx)) // ready again at once, the backoff notwithstanding
			_, err = lim.Allow(ctx, p)
			is.True(errors.Is(err, ratelimit.ErrUnavailable)) // Ping left the backoff to Allow's probe
		})
	}
}
