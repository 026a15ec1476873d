package ratelimit

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/clientstatus/clientstatus/auth"
)

// PlanLimiter is the Limiter of the status API: each organization gets its
// plan's budget (see DefaultRates), in fixed windows kept by a Counter: in
// memory (NewMemory), in a Redis shared by replicas (redislimit.New), or
// any other (New). All keys of an organization share its budget. It is
// safe for concurrent use.
type PlanLimiter struct {
	counter  Counter
	blocking bool // not WithNonBlockingCounter: guard each call (see call)

	cfg config

	breaker breaker // the counter's recent failure, if any

	warned    atomic.Int64 // when the last fail-open warning was logged, Unix ns
	unlimited atomic.Int64 // requests served unlimited since that warning
}

var _ Limiter = (*PlanLimiter)(nil)

// New returns a PlanLimiter keeping its counts in c. It panics when c is
// nil, or when an option is given a value it cannot take.
func New(c Counter, opts ...Option) *PlanLimiter {
	if c == nil {
		panic("ratelimit: New needs a Counter")
	}
	return newLimiter(c, mustConfig(opts))
}

func newLimiter(c Counter, cfg config) *PlanLimiter {
	return &PlanLimiter{counter: c, blocking: !cfg.direct, cfg: cfg}
}

// Allow counts one request against the budget of p's organization under its
// plan. An unlimited plan answers Decision{Allowed: true} without touching
// the counter. A refused request is given back at once, so it costs the
// organization nothing and Refund stays exact. The Decision's Reset is the
// window's end rounded up to the second, so that a client that waits until
// then (X-RateLimit-Reset is in whole seconds) is not refused again.
//
// When the counter fails or does not answer within the timeout, Allow
// follows the OutagePolicy: FailOpen returns Decision{Allowed: true} (no
// headers) and a nil error; FailClosed an error wrapping ErrUnavailable.
// It then follows the policy at once, without calling the counter, for the
// backoff period (see WithOutageBackoff); after it one request at a time
// probes the counter, and the first that succeeds ends the outage for all.
// When ctx itself ends first, Allow returns ctx's error.
func (l *PlanLimiter) Allow(ctx context.Context, p auth.Principal) (Decision, error) {
	key, rate, ok := l.limit(p)
	if !ok {
		return Decision{Allowed: true}, nil
	}
	cctx, cancel := l.bound(ctx)
	defer cancel()
	w, ok, d, err := l.guard(ctx, cctx, p, func(ctx context.Context) (Window, error) {
		return l.counter.Take(ctx, key, rate)
	})
	if !ok {
		return d, err
	}
	allowed := w.Count <= rate.Limit
	if !allowed {
		// Best effort, within the same timeout: if it fails, the window
		// ends a request fuller than it should, for an organization
		// already refused.
		_, _ = call(cctx, l, func(ctx context.Context) (struct{}, error) {
			return struct{}{}, l.counter.GiveBack(ctx, key, rate)
		})
	}
	return Decision{
		Limited:   true,
		Allowed:   allowed,
		Limit:     rate.Limit,
		Remaining: max(rate.Limit-w.Count, 0),
		Reset:     ceilSecond(w.End),
		Window:    rate.Period,
	}, nil
}

// guard runs read, a call of the counter for p that may probe it, under
// the outage breaker and within cctx (l's timeout, see bound): not at all
// during a backoff; a failure starts one. ok is false when the counter did
// not answer: d and err are then the OutagePolicy's answer (or ctx's
// error), to return as they are.
func (l *PlanLimiter) guard(ctx, cctx context.Context, p auth.Principal, read func(context.Context) (Window, error)) (w Window, ok bool, d Decision, err error) {
	pass, probing, err := l.breaker.enter(l.cfg.now(), true)
	if !pass {
		d, err = l.outage(ctx, p, err)
		return Window{}, false, d, err
	}
	w, err = call(cctx, l, read)
	l.breaker.done(probing, l.cfg.now(), l.cfg.backoff, err, ctx.Err() != nil)
	if err != nil {
		d, err = l.outage(ctx, p, err)
		return Window{}, false, d, err
	}
	return w, true, Decision{}, nil
}

// Refund gives back one request that Allow counted in the current window,
// for a response that must not cost the client (304 Not Modified). Call it
// only after a Decision that was Limited and Allowed. It does nothing for an
// unlimited plan, nor once the window has ended, nor during an outage (it
// never probes the counter: see Allow). Counter failures follow the
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
	cctx, cancel := l.bound(ctx)
	defer cancel()
	_, err := call(cctx, l, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, l.counter.GiveBack(ctx, key, rate)
	})
	l.breaker.done(false, l.cfg.now(), l.cfg.backoff, err, ctx.Err() != nil)
	if err != nil {
		_, err = l.outage(ctx, p, err)
	}
	return err
}

// Ping reports whether l's counter answers, for a readiness check: nil
// when it does (NewMemory's always does), an error wrapping
// ErrUnavailable when the counter fails or does not answer within the
// timeout (WithTimeout), and ctx's error when ctx ends first. It counts nothing, and neither starts nor
// ends an outage: requests keep to the backoff (see WithOutageBackoff).
func (l *PlanLimiter) Ping(ctx context.Context) error {
	cctx, cancel := l.bound(ctx)
	defer cancel()
	_, err := call(cctx, l, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, l.counter.Ping(ctx)
	})
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	}
	return fmt.Errorf("ratelimit: ping: %w: %v", ErrUnavailable, err)
}

// limit returns the counter key and rate of p's organization, and false
// when its plan is unlimited. The key is "<prefix>:<plan>:<org id>": a plan
// change starts a fresh window.
func (l *PlanLimiter) limit(p auth.Principal) (string, Rate, bool) {
	plan, r := l.rateOf(p.Org.Plan)
	if r.Limit <= 0 {
		return "", Rate{}, false
	}
	return l.cfg.prefix + ":" + string(plan) + ":" + p.Org.ID, r, true
}

// ceilSecond returns t rounded up to a whole second.
func ceilSecond(t time.Time) time.Time {
	s := time.Unix(t.Unix(), 0)
	if s.Before(t) {
		s = s.Add(time.Second)
	}
	return s
}

// Prefix returns the start of the keys l gives its Counter (see
// WithPrefix), for a counter that writes it apart from the rest of the key,
// as redislimit's does.
func (l *PlanLimiter) Prefix() string { return l.cfg.prefix }
