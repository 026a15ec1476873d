package ratelimit

import (
	"cmp"
	"log/slog"
	"time"

	"github.com/clientstatus/clientstatus/option"
	"github.com/clientstatus/clientstatus/store"
)

// DefaultTimeout bounds the time a request spends on a Counter that can
// block, such as Redis (see WithTimeout): far above a healthy round trip
// (under a millisecond), far below what a client would notice.
const DefaultTimeout = 100 * time.Millisecond

// DefaultPrefix is the start of every counter key (see WithPrefix): an
// organization's counter is "clientstatus:ratelimit:<plan>:<org id>".
const DefaultPrefix = "clientstatus:ratelimit"

// Option configures a PlanLimiter (New, NewMemory, redislimit.New).
// Options follow the module's one policy (see package
// [github.com/clientstatus/clientstatus/option]): a nil Option is
// ignored, nil or a zero value keeps the default, and a value no default
// stands for is an *option.Error naming the option, with which the
// constructor panics and which Validate returns.
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
	// direct is WithNonBlockingCounter: the counter is called on the
	// request's goroutine, unguarded.
	direct bool
	option.Check
}

// newConfig returns the defaults with opts applied in order, and the
// first value no default stands for as an *option.Error.
func newConfig(opts []Option) (config, error) {
	c := config{
		rates:   DefaultRates(),
		prefix:  DefaultPrefix,
		timeout: DefaultTimeout,
		backoff: DefaultOutageBackoff,
		policy:  FailOpen,
		log:     slog.Default(),
		now:     time.Now,
	}
	option.Apply(&c, opts)
	return c, c.Err()
}

// mustConfig is newConfig for the constructors, which panic with its
// error: a programming error, reported when the limiter is made rather
// than at its first request.
func mustConfig(opts []Option) config {
	c, err := newConfig(opts)
	if err != nil {
		panic(err)
	}
	return c
}

// Validate reports the *option.Error with which New, NewMemory and
// redislimit.New would panic given opts, or nil: a program that builds
// its options from configuration calls it first.
func Validate(opts ...Option) error {
	_, err := newConfig(opts)
	return err
}

// refuse records an *option.Error of this package.
func (c *config) refuse(name, format string, args ...any) {
	c.Refuse("ratelimit", name, format, args...)
}

// WithRate sets plan's budget, replacing its default (see DefaultRates).
// Unlimited (a Rate with Limit 0) makes the plan unlimited; a limited Rate
// with Period 0 counts per minute. A negative Limit or Period, or an empty
// plan, is an error.
func WithRate(plan store.Plan, r Rate) Option {
	return func(c *config) {
		switch {
		case plan == "":
			c.refuse("WithRate", "empty plan")
		case r.Limit < 0:
			c.refuse("WithRate", "%s: Limit %d is negative", plan, r.Limit)
		case r.Period < 0:
			c.refuse("WithRate", "%s: Period %v is negative", plan, r.Period)
		default:
			if r.Limit > 0 && r.Period == 0 {
				r.Period = time.Minute
			}
			c.rates[plan] = r
		}
	}
}

// WithTimeout bounds the time Allow, Refund or Ping spends on a Counter
// that can block (one not declared WithNonBlockingCounter, such as Redis),
// DefaultTimeout when d is 0. A counter that has not answered by then is
// out, and the OutagePolicy applies: a request waits no longer, whatever
// the counter's own timeouts. (The memory counter never waits.) A negative
// d is an error.
func WithTimeout(d time.Duration) Option {
	return func(c *config) {
		option.NonNegative(&c.Check, "ratelimit", "WithTimeout", &c.timeout, d, DefaultTimeout)
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
// one request at most the timeout. A negative d is an error.
func WithOutageBackoff(d time.Duration) Option {
	return func(c *config) {
		option.NonNegative(&c.Check, "ratelimit", "WithOutageBackoff", &c.backoff, d, DefaultOutageBackoff)
	}
}

// WithOutagePolicy sets what happens when the counter fails or times out:
// FailOpen, the zero value and the default, or FailClosed. Any other value
// is an error.
func WithOutagePolicy(p OutagePolicy) Option {
	return func(c *config) {
		if p != FailOpen && p != FailClosed {
			c.refuse("WithOutagePolicy", "%d is neither FailOpen nor FailClosed", int(p))
			return
		}
		c.policy = p
	}
}

// WithNonBlockingCounter says that New's Counter never waits on anything
// but a mutex (it keeps its counts in the process, as NewMemory's does):
// PlanLimiter then calls it directly on the request's goroutine, without
// the cost of guarding each call, and WithTimeout does not apply. Without
// it a Counter is taken to block (a network call) and is called under the
// timeout. NewMemory sets it for its own counter.
func WithNonBlockingCounter() Option {
	return func(c *config) { c.direct = true }
}

// WithPrefix sets the start of every counter key, DefaultPrefix when
// prefix is "": two limiters with the same prefix on one Redis share their
// budgets, two with different prefixes (two deployments, or tests) are
// independent.
func WithPrefix(prefix string) Option {
	return func(c *config) { c.prefix = cmp.Or(prefix, DefaultPrefix) }
}

// WithLogger sets where the fail-open warning goes, slog.Default() when
// log is nil.
func WithLogger(log *slog.Logger) Option {
	return func(c *config) { c.log = cmp.Or(log, slog.Default()) }
}

// WithClock sets the clock that spaces the fail-open warnings, times the
// outage backoff (see WithOutageBackoff) and runs NewMemory's windows,
// time.Now when now is nil. A shared counter's windows run on its own
// clock (Redis's).
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		c.now = now
		if now == nil {
			c.now = time.Now
		}
	}
}
