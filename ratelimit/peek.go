package ratelimit

import (
	"context"

	"github.com/clientstatus/clientstatus/auth"
)

// Peek reports the budget of p's organization without spending it (see
// Limiter). With no window in progress the whole budget remains, and Reset
// is when a window opened now would end: a client that waits until then
// finds a full budget either way.
//
// A counter that fails or does not answer in time follows the
// OutagePolicy and the backoff, as Allow does: FailOpen answers unlimited
// (Limited false), FailClosed an error wrapping ErrUnavailable.
func (l *PlanLimiter) Peek(ctx context.Context, p auth.Principal) (Decision, error) {
	key, rate, limited := l.limit(p)
	if !limited {
		return Decision{Allowed: true}, nil
	}
	cctx, cancel := l.bound(ctx)
	defer cancel()
	w, ok, d, err := l.guard(ctx, cctx, p, func(ctx context.Context) (Window, error) {
		return l.counter.Peek(ctx, key, rate)
	})
	if !ok {
		return d, err
	}
	end := w.End
	if end.IsZero() { // no window in progress: the whole budget
		w.Count, end = 0, l.cfg.now().Add(rate.Period)
	}
	remaining := max(rate.Limit-w.Count, 0)
	return Decision{
		Limited:   true,
		Allowed:   remaining > 0,
		Limit:     rate.Limit,
		Remaining: remaining,
		Reset:     ceilSecond(end),
		Window:    rate.Period,
	}, nil
}
