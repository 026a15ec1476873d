// Package ratelimit enforces each organization's plan budget (starter 60
// and growth 300 requests a minute, enterprise unlimited). A PlanLimiter
// applies the budgets and keeps its counts in a Counter: NewMemory counts
// in this process, for one replica; redislimit.New (package
// ratelimit/redislimit) counts in Redis, shared by replicas; New takes any
// other. This package imports neither a Redis client nor ulule/limiter, so
// that a portal on the memory limiter compiles none of them.
//
// Budgets are per organization: all its keys share one. Windows are fixed,
// starting at an organization's first request. Each window is one count,
// under the key "clientstatus:ratelimit:<plan>:<org id>" (see WithPrefix);
// in Redis it expires with the window.
//
// When the counter fails or does not answer within the timeout (100ms
// unless WithTimeout), the OutagePolicy applies: FailOpen (the default)
// serves the request without limit headers and logs a warning at most
// every WarnInterval; FailClosed makes Allow return ErrUnavailable (503).
// After such a failure the limiter leaves the counter alone for a backoff
// period (1s unless WithOutageBackoff), then lets one request at a time
// probe it: during an outage only one request per backoff period waits for
// the counter; the others get the policy at once, and Refund does nothing.
// The limiter recovers by itself when a probe finds the counter answering
// again. (The memory counter never fails.)
//
// Every Limiter declares Peek, which reads an organization's budget
// without spending it (GET /v1/rate_limit); PlanLimiter's reads its
// Counter's Peek.
//
// Options follow the module's one policy (package
// [github.com/clientstatus/clientstatus/option]): a nil Option is
// ignored; an option given the zero value of its argument (0, "", nil)
// leaves the default; a value that no default stands for (a negative
// duration, a negative Limit, a policy that is neither FailOpen nor
// FailClosed) is an *option.Error naming the option ("ratelimit:
// WithTimeout: -1s is negative"), with which the constructor panics and
// which Validate returns.
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
