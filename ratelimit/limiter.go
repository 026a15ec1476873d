package ratelimit

import (
	"context"
	"time"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/store"
)

// ErrUnavailable is returned (wrapped) when the limiter's counter cannot be
// reached or does not answer in time and the limiter is set to fail closed.
// The handler answers 503 UNAVAILABLE. It is store.ErrUnavailable, the
// module's one error for a backend that does not answer: errors.Is matches
// either name, and a caller need test only one.
var ErrUnavailable = store.ErrUnavailable

// Limiter decides whether an organization may make one more request.
// Implementations are safe for concurrent use and honour ctx.
type Limiter interface {
	// Allow takes one request from the budget of p's organization (all its
	// keys share one) and reports the outcome. A refused request takes
	// nothing.
	Allow(ctx context.Context, p auth.Principal) (Decision, error)
	// Refund gives back one request taken by Allow, for a response that
	// must not cost the client (a 304 Not Modified).
	Refund(ctx context.Context, p auth.Principal) error
	// Peek reports the budget of p's organization as Allow would see it
	// now, without counting a request: Limit, Remaining (what Allow may
	// still take), Reset and Window when Limited; Decision{Allowed: true}
	// with Limited false on an unlimited plan. Allowed says whether one
	// more request would be. statusapi serves GET /v1/rate_limit from it.
	Peek(ctx context.Context, p auth.Principal) (Decision, error)
	// Ping reports whether the limiter's counts answer, for a readiness
	// check (statusapi.Ready): nil when they do (in memory, always), an
	// error wrapping ErrUnavailable (or ctx's) when they do not.
	Ping(ctx context.Context) error
}

// Decision is the outcome of Limiter.Allow.
type Decision struct {
	// Limited is false when no limit applied (an unlimited plan, or a
	// limiter that failed open): the response then carries no rate-limit
	// headers.
	Limited   bool
	Allowed   bool
	Limit     int64         // requests per window
	Remaining int64         // requests left in this window
	Reset     time.Time     // when the window ends, rounded up to the second
	Window    time.Duration // the window's length
}
