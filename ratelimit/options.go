package ratelimit

import (
	"log/slog"
	"time"

	"github.com/clientstatus/clientstatus/store"
)

// DefaultTimeout bounds the time a request spends on the Redis store (see
// WithTimeout): far above a healthy round trip (under a millisecond), far
// below what a client would notice.
const DefaultTimeout = 100 * time.Millisecond

// DefaultPrefix is the start of every key the limiter writes (see
// WithPrefix): an organization's counter is
// "clientstatus:ratelimit:<plan>:<org id>".
const DefaultPrefix = "clientstatus:ratelimit"

// Option configures NewMemory and NewRedis.
type Option func(*PlanLimiter)

// WithRate sets plan's budget, replacing its default (see DefaultRates). A
// Rate with Limit 0 makes the plan unlimited. A non-positive Period is
// ignored for a limited rate: the default period (a minute) applies.
func WithRate(plan store.Plan, r Rate) Option {
	return func(l *PlanLimiter) {
		if r.Limit > 0 && r.Period <= 0 {
			r.Period = time.Minute
		}
		l.rates[plan] = r
	}
}

// WithTimeout bounds the time Allow or Refund spends on the Redis store,
// DefaultTimeout unless set. A store that has not answered by then is out,
// and the OutagePolicy applies: a request waits no longer, whatever the
// Redis client's own timeouts. (The memory store never waits.) A
// non-positive d is ignored.
func WithTimeout(d time.Duration) Option {
	return func(l *PlanLimiter) {
		if d > 0 {
			l.timeout = d
		}
	}
}

// WithOutageBackoff sets how long, after a store call that failed or timed
// out, Allow applies the OutagePolicy at once without calling the store,
// DefaultOutageBackoff unless set. Once it has run out, one request at a
// time probes the store (the others still get the policy at once): if the
// probe succeeds, limiting resumes for all; if not, a new period starts.
// So during an outage only one request per period, per replica, waits for
// the store; a shorter d notices recovery sooner at that cost. The period
// does not grow while the outage lasts: a probe costs one request at most
// the timeout. A non-positive d is ignored.
func WithOutageBackoff(d time.Duration) Option {
	return func(l *PlanLimiter) {
		if d > 0 {
			l.backoff = d
		}
	}
}

// WithOutagePolicy sets what happens when the store fails or times out,
// FailOpen unless set.
func WithOutagePolicy(p OutagePolicy) Option {
	return func(l *PlanLimiter) { l.policy = p }
}

// WithPrefix replaces DefaultPrefix as the start of the limiter's keys:
// two limiters with the same prefix on one Redis share their budgets, two
// with different prefixes (two deployments, or tests) are independent.
func WithPrefix(prefix string) Option {
	return func(l *PlanLimiter) {
		if prefix != "" {
			l.prefix = prefix
		}
	}
}

// WithLogger sets where the fail-open warning goes, slog.Default() unless
// set.
func WithLogger(log *slog.Logger) Option {
	return func(l *PlanLimiter) {
		if log != nil {
			l.log = log
		}
	}
}

// WithClock sets the clock that spaces the fail-open warnings and times the
// outage backoff (see WithOutageBackoff), time.Now unless set. Windows
// themselves run on the store's clock.
func WithClock(now func() time.Time) Option {
	return func(l *PlanLimiter) {
		if now != nil {
			l.now = now
		}
	}
}
