package ratelimit

import (
	"context"
	"fmt"
	"time"

	"github.com/clientstatus/clientstatus/auth"
)

// OutagePolicy is what Allow does when the store fails or does not answer
// within the timeout (see WithTimeout).
type OutagePolicy int

const (
	// FailOpen serves the request without a limit: Allow returns a Decision
	// with Limited false (no rate-limit headers) and logs a warning, at most
	// once every WarnInterval. The default: a read-only status API stays up
	// while its counters are unreachable.
	FailOpen OutagePolicy = iota
	// FailClosed refuses the request: Allow returns an error wrapping
	// ErrUnavailable, which the handler answers 503 UNAVAILABLE.
	FailClosed
)

// String returns "open" or "closed".
func (p OutagePolicy) String() string {
	if p == FailClosed {
		return "closed"
	}
	return "open"
}

// MarshalText returns p's String, so that a policy works with flag.TextVar.
func (p OutagePolicy) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText parses "open" or "closed".
func (p *OutagePolicy) UnmarshalText(text []byte) error {
	switch string(text) {
	case "open":
		*p = FailOpen
	case "closed":
		*p = FailClosed
	default:
		return fmt.Errorf("ratelimit: outage policy %q: want open or closed", text)
	}
	return nil
}

// WarnInterval is the least time between two fail-open warnings: an outage
// logs once, then at this pace, with the number of requests served
// unlimited meanwhile.
const WarnInterval = 10 * time.Second

// outage applies the policy to a store call that failed with err. When the
// caller's own ctx ended, that is no outage: its error is returned as is.
func (l *PlanLimiter) outage(ctx context.Context, p auth.Principal, err error) (Decision, error) {
	if ctx.Err() != nil {
		return Decision{}, ctx.Err()
	}
	if l.policy == FailClosed {
		return Decision{}, fmt.Errorf("%w: org %s: %v", ErrUnavailable, p.OrgID, err)
	}
	l.warn(p.OrgID, err)
	return Decision{Allowed: true}, nil
}

// warn logs a failed store call, at most once every WarnInterval.
func (l *PlanLimiter) warn(orgID string, err error) {
	l.unlimited.Add(1)
	now := l.now().UnixNano()
	last := l.warned.Load()
	if last != 0 && now-last < int64(WarnInterval) {
		return
	}
	if !l.warned.CompareAndSwap(last, now) {
		return // another request is logging this one
	}
	n := l.unlimited.Swap(0)
	l.log.Warn("ratelimit: store unavailable, serving without limits",
		"org", orgID, "err", err, "unlimited_requests", n)
}

// bound returns ctx limited to l's timeout, for all the store calls made
// for one request: however many there are, the request waits no longer.
func (l *PlanLimiter) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if !l.blocking {
		return ctx, func() {} // memory: answers at once, or not at all
	}
	return context.WithTimeout(ctx, l.timeout)
}

// call runs fn until ctx ends. For a store that can block (Redis), fn runs
// on its own goroutine and call returns when ctx ends even if the client
// ignores ctx, as go-redis does unless ContextTimeoutEnabled is set. fn then
// finishes in the background, bounded by the client's own timeouts.
func call[T any](ctx context.Context, l *PlanLimiter, fn func(context.Context) (T, error)) (T, error) {
	if !l.blocking {
		return fn(ctx)
	}
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := fn(ctx)
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}
