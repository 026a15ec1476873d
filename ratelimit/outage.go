package ratelimit

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/clientstatus/clientstatus/auth"
)

// OutagePolicy is what Allow does when the counter fails or does not answer
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

// DefaultOutageBackoff is how long the limiter leaves the counter alone after
// a failed or timed-out call (see WithOutageBackoff).
const DefaultOutageBackoff = time.Second

// breaker remembers that the counter just failed, so that during an outage
// only one request per backoff period waits for it (see WithOutageBackoff).
// Its zero value is a counter that is up.
type breaker struct {
	mu      sync.Mutex
	until   time.Time // when the counter may be probed again; zero while it is up
	probing bool      // a probe is in flight
	err     error     // the failure that started the backoff
}

// enter reports whether a request may call the counter at now: always while
// it is up; during an outage, once the backoff has run out, for one probe
// at a time, and only when probe is true (Allow; Refund never probes).
// When it may not, err is the counter's last failure. A request that entered
// as the probe must report with done(probe = true).
func (b *breaker) enter(now time.Time, probe bool) (pass, probing bool, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.until.IsZero():
		return true, false, nil
	case probe && !b.probing && !now.Before(b.until):
		b.probing = true
		return true, true, nil
	}
	return false, false, b.err
}

// done records the outcome of a counter call that entered: err nil means the
// counter is up; a counter failure (err non-nil, ctxDone false) starts a new
// backoff at now; a call cut short by its caller's ctx (ctxDone) says
// nothing about the counter, so the next request may probe at once.
func (b *breaker) done(probing bool, now time.Time, backoff time.Duration, err error, ctxDone bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if probing {
		b.probing = false
	}
	switch {
	case ctxDone:
	case err == nil:
		b.until, b.err = time.Time{}, nil
	default:
		b.until, b.err = now.Add(backoff), err
	}
}

// outage applies the policy to a counter call that failed with err. When the
// caller's own ctx ended, that is no outage: its error is returned as is.
func (l *PlanLimiter) outage(ctx context.Context, p auth.Principal, err error) (Decision, error) {
	if ctx.Err() != nil {
		return Decision{}, ctx.Err()
	}
	if l.cfg.policy == FailClosed {
		return Decision{}, fmt.Errorf("ratelimit: org %s: %w: %v", p.Org.ID, ErrUnavailable, err)
	}
	l.warn(p.Org.ID, err)
	return Decision{Allowed: true}, nil
}

// warn logs a failed counter call, at most once every WarnInterval.
func (l *PlanLimiter) warn(orgID string, err error) {
	l.unlimited.Add(1)
	now := l.cfg.now().UnixNano()
	last := l.warned.Load()
	if last != 0 && now-last < int64(WarnInterval) {
		return
	}
	if !l.warned.CompareAndSwap(last, now) {
		return // another request is logging this one
	}
	n := l.unlimited.Swap(0)
	l.cfg.log.Warn("ratelimit: store unavailable, serving without limits",
		"org", orgID, "err", err, "unlimited_requests", n)
}

// bound returns ctx limited to l's timeout, for all the counter calls made
// for one request: however many there are, the request waits no longer.
func (l *PlanLimiter) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if !l.blocking {
		return ctx, func() {} // WithNonBlockingCounter: answers at once
	}
	return context.WithTimeout(ctx, l.cfg.timeout)
}

// call runs fn until ctx ends. For a counter that can block (not
// WithNonBlockingCounter), fn runs on its own goroutine and call returns when ctx ends
// even if the counter ignores ctx, as go-redis does unless
// ContextTimeoutEnabled is set. fn then finishes in the background, bounded
// by the counter's own timeouts.
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
