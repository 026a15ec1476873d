package ratelimit

import (
	"context"
	"errors"
	"fmt"

	"github.com/clientstatus/clientstatus/auth"
)

// CounterPeeker is the optional interface of a Counter that can read a
// key's window without counting in it: NewMemory's and redislimit's
// counters implement it. A Counter written before it keeps working;
// PlanLimiter.Peek then returns ErrCannotPeek.
type CounterPeeker interface {
	Counter
	// Peek reports key's window in progress, as Take would after counting
	// one request less: Count is what it holds (0 with no window in
	// progress) and End when it ends (zero with none). It never opens a
	// window nor changes a count.
	Peek(ctx context.Context, key string, r Rate) (Window, error)
}

// ErrCannotPeek is returned (wrapped) by PlanLimiter.Peek when its Counter
// is not a CounterPeeker: the budget cannot be read without spending it.
// statusapi then answers GET /v1/rate_limit 404, as a route it does not
// serve.
var ErrCannotPeek = errors.New("ratelimit: the counter cannot read a budget without spending it")

var _ Limiter = (*PlanLimiter)(nil)

// Peek reports the budget of p's organization without spending it (see
// Limiter). With no window in progress the whole budget remains, and Reset
// is when a window opened now would end: a client that waits until then
// finds a full budget either way.
//
// A counter that fails or does not answer in time follows the
// OutagePolicy and the backoff, as Allow does: FailOpen answers unlimited
// (Limited false), FailClosed an error wrapping ErrUnavailable. With a
// Counter that is not a CounterPeeker, Peek returns ErrCannotPeek for
// every plan, so that a deployment answers the route alike for all.
func (l *PlanLimiter) Peek(ctx context.Context, p auth.Principal) (Decision, error) {
	peeker, ok := l.counter.(CounterPeeker)
	if !ok {
		return Decision{}, fmt.Errorf("%w (%T)", ErrCannotPeek, l.counter)
	}
	key, rate, limited := l.limit(p)
	if !limited {
		return Decision{Allowed: true}, nil
	}
	cctx, cancel := l.bound(ctx)
	defer cancel()
	w, ok, d, err := l.guard(ctx, cctx, p, func(ctx context.Context) (Window, error) {
		return peeker.Peek(ctx, key, rate)
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
