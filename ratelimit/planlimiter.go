package ratelimit

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/ulule/limiter/v3"

	"github.com/clientstatus/clientstatus/auth"
)

// PlanLimiter is the Limiter of the status API: each organization gets its
// plan's budget (see DefaultRates), counted by ulule/limiter in fixed
// windows, in memory (NewMemory) or in a Redis shared by replicas
// (NewRedis). All keys of an organization share its budget. It is safe for
// concurrent use.
type PlanLimiter struct {
	counters counters
	blocking bool // the store can block: guard each call (see call)

	cfg config

	breaker breaker // the store's recent failure, if any

	warned    atomic.Int64 // when the last fail-open warning was logged, Unix ns
	unlimited atomic.Int64 // requests served unlimited since that warning
}

var _ Limiter = (*PlanLimiter)(nil)

// counters is where PlanLimiter keeps its counts: ulule's memory or Redis
// store, plus a way to give one request back, which ulule lacks.
type counters interface {
	// take counts one request and reports the state of the window.
	take(ctx context.Context, key string, r limiter.Rate) (limiter.Context, error)
	// giveBack uncounts one request of the current window, if it has any:
	// it never opens a window, nor takes a count below zero.
	giveBack(ctx context.Context, key string, r limiter.Rate) error
}

func newPlanLimiter(opts []Option) *PlanLimiter {
	return &PlanLimiter{cfg: newConfig(opts)}
}

// Allow counts one request against the budget of p's organization under its
// plan. An unlimited plan answers Decision{Allowed: true} without touching
// the store. A refused request is given back at once, so it costs the
// organization nothing and Refund stays exact.
//
// When the store fails or does not answer within the timeout, Allow follows
// the OutagePolicy: FailOpen returns Decision{Allowed: true} (no headers)
// and a nil error; FailClosed an error wrapping ErrUnavailable. It then
// follows the policy at once, without calling the store, for the backoff
// period (see WithOutageBackoff); after it one request at a time probes the
// store, and the first that succeeds ends the outage for all. When ctx
// itself ends first, Allow returns ctx's error.
func (l *PlanLimiter) Allow(ctx context.Context, p auth.Principal) (Decision, error) {
	key, rate, ok := l.limit(p)
	if !ok {
		return Decision{Allowed: true}, nil
	}
	pass, probing, err := l.breaker.enter(l.cfg.now(), true)
	if !pass {
		return l.outage(ctx, p, err)
	}
	sctx, cancel := l.bound(ctx)
	defer cancel()
	c, err := call(sctx, l, func(ctx context.Context) (limiter.Context, error) {
		return l.counters.take(ctx, key, rate)
	})
	l.breaker.done(probing, l.cfg.now(), l.cfg.backoff, err, ctx.Err() != nil)
	if err != nil {
		return l.outage(ctx, p, err)
	}
	if c.Reached {
		// Best effort, within the same timeout: if it fails, the window
		// ends a request fuller than it should, for an organization
		// already refused.
		_, _ = call(sctx, l, func(ctx context.Context) (struct{}, error) {
			return struct{}{}, l.counters.giveBack(ctx, key, rate)
		})
	}
	return Decision{
		Limited:   true,
		Allowed:   !c.Reached,
		Limit:     c.Limit,
		Remaining: max(c.Remaining, 0),
		// ulule rounds the window's end down to the second; round it up,
		// so that a client waiting until Reset is not refused again.
		Reset:  time.Unix(c.Reset+1, 0),
		Window: rate.Period,
	}, nil
}

// Refund gives back one request that Allow counted in the current window,
// for a response that must not cost the client (304 Not Modified). Call it
// only after a Decision that was Limited and Allowed. It does nothing for an
// unlimited plan, nor once the window has ended, nor during an outage (it
// never probes the store: see Allow). Store failures follow the
// OutagePolicy: FailOpen logs (rate-limited) and returns nil, FailClosed
// returns an error wrapping ErrUnavailable.
func (l *PlanLimiter) Refund(ctx context.Context, p auth.Principal) error {
	key, rate, ok := l.limit(p)
	if !ok {
		return nil
	}
	if pass, _, _ := l.breaker.enter(l.cfg.now(), false); !pass {
		return nil
	}
	sctx, cancel := l.bound(ctx)
	defer cancel()
	_, err := call(sctx, l, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, l.counters.giveBack(ctx, key, rate)
	})
	l.breaker.done(false, l.cfg.now(), l.cfg.backoff, err, ctx.Err() != nil)
	if err != nil {
		_, err = l.outage(ctx, p, err)
	}
	return err
}

// limit returns the counter key and rate of p's organization, and false
// when its plan is unlimited. The key is "<plan>:<org id>": a plan change
// starts a fresh window.
func (l *PlanLimiter) limit(p auth.Principal) (string, limiter.Rate, bool) {
	plan, r := l.rateOf(p.Org.Plan)
	if r.Limit <= 0 {
		return "", limiter.Rate{}, false
	}
	return string(plan) + ":" + p.Org.ID, limiter.Rate{Limit: r.Limit, Period: r.Period}, true
}
