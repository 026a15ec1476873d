package ratelimit

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/clientstatus/clientstatus/store"
)

// DefaultTimeout bounds the time a request spends on a Counter that can
// block, such as Redis (see WithTimeout): far above a healthy round trip
// (under a millisecond), far below what a client would notice.
const DefaultTimeout = 100 * time.Millisecond

// DefaultPrefix is the start of every counter key (see WithPrefix): an
// organization's counter is "clientstatus:ratelimit:<plan>:<org id>".
const DefaultPrefix = "clientstatus:ratelimit"

// Option configures a PlanLimiter (New, NewMemory, redislimit.New). See
// the package documentation for the rule on zero and invalid values.
type Option func(*config)

// config is what the options set, the defaults first (newConfig).
type config struct {
	rates   map[store.Plan]Rate
	prefix  string
	timeout time.Duration
	backoff time.Duration
	policy  OutagePolicy
	log     *slog.Logger
	now     func() time.Time
}

// newConfig returns the defaults with opts applied in order. An option
// given a value that no default stands for panics, naming itself.
func newConfig(opts []Option) config {
	c := config{
		rates:   DefaultRates(),
		prefix:  DefaultPrefix,
		timeout: DefaultTimeout,
		backoff: DefaultOutageBackoff,
		policy:  FailOpen,
		log:     slog.Default(),
		now:     time.Now,
	}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// invalid panics for an option given a value it cannot take: a programming
// error, reported when the limiter is made rather than at its first request.
func invalid(option, format string, args ...any) {
	panic("ratelimit: " + option + ": " + fmt.Sprintf(format, args...))
}

// WithRate sets plan's budget, replacing its default (see DefaultRates).
// Unlimited (a Rate with Limit 0) makes the plan unlimited; a limited Rate
// with Period 0 counts per minute. A negative Limit or Period, or an empty
// plan, panics.
func WithRate(plan store.Plan, r Rate) Option {
	return func(c *config) {
		switch {
		case plan == "":
			invalid("WithRate", "empty plan")
		case r.Limit < 0:
			invalid("WithRate", "%s: Limit %d is negative", plan, r.Limit)
		case r.Period < 0:
			invalid("WithRate", "%s: Period %v is negative", plan, r.Period)
		}
		if r.Limit > 0 && r.Period == 0 {
			r.Period = time.Minute
		}
		c.rates[plan] = r
	}
}

// WithTimeout bounds the time Allow, Refund or Ping spends on a Counter
// that can block (one that is not NonBlocking, such as Redis),
// DefaultTimeout when d is 0. A counter that has not answered by then is
// out, and the OutagePolicy applies: a request waits no longer, whatever
// the counter's own timeouts. (The memory counter never waits.) A negative
// d panics.
func WithTimeout(d time.Duration) Option {
	return func(c *config) {
		if d < 0 {
			invalid("WithTimeout", "%v is negative", d)
		}
		if d > 0 {
			c.timeout = d
		}
	}
}

// WithOutageBackoff sets how long, after a counter call that failed or
// timed out, Allow applies the OutagePolicy at once without calling the
// counter, DefaultOutageBackoff when d is 0. Once it has run out, one
// request at a time probes the counter (the others still get the policy at
// once): if the probe succeeds, limiting resumes for all; if not, a new
// period starts. So during an outage only one request per period, per
// replica, waits for the counter; a shorter d notices recovery sooner at
// that cost. The period does not grow while the outage lasts: a probe costs
// one request at most the timeout. A negative d panics.
func WithOutageBackoff(d time.Duration) Option {
	return func(c *config) {
		if d < 0 {
			invalid("WithOutageBackoff", "%v is negative", d)
		}
		if d > 0 {
			c.backoff = d
		}
	}
}

// WithOutagePolicy sets what happens when the counter fails or times out:
// FailOpen, the zero value and the default, or FailClosed. Any other value
// panics.
func WithOutagePolicy(p OutagePolicy) Option {
	return func(c *config) {
		if p != FailOpen && p != FailClosed {
			invalid("WithOutagePolicy", "%d is neither FailOpen nor FailClosed", int(p))
		}
		c.policy = p
	}
}

// WithPrefix sets the start of every counter key, DefaultPrefix when
// prefix is "": two limiters with the same prefix on one Redis share their
// budgets, two with different prefixes (two deployments, or tests) are
// independent.
func WithPrefix(prefix string) Option {
	return func(c *config) {
		if prefix != "" {
			c.prefix = prefix
		}
	}
}

// WithLogger sets where the fail-open warning goes, slog.Default() when
// log is nil.
func WithLogger(log *slog.Logger) Option {
	return func(c *config) {
		if log != nil {
			c.log = log
		}
	}
}

// WithClock sets the clock that spaces the fail-open warnings, times the
// outage backoff (see WithOutageBackoff) and runs NewMemory's windows,
// time.Now when now is nil. A shared counter's windows run on its own
// clock (Redis's).
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		if now != nil {
			c.now = now
		}
	}
}
