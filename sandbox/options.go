package sandbox

import (
	"cmp"
	"log/slog"
	"time"

	"github.com/clientstatus/clientstatus/option"
)

// DefaultInterval is how often, by default, a Simulator changes each
// sandbox: a few changes every ten minutes, some twenty an hour.
const DefaultInterval = 10 * time.Minute

// DefaultChanges is how many changes, by default, a Simulator makes to
// each sandbox at every interval.
const DefaultChanges = 2

// Option configures Seed and New. Options follow the module's one policy
// (see package [github.com/clientstatus/clientstatus/option]): a nil
// Option is ignored, nil or a zero value keeps the default, and a negative
// value is an *option.Error naming the option, with which New panics and
// which Validate returns. Seed reads only WithClock.
type Option func(*config)

type config struct {
	every   time.Duration
	changes int
	seed    uint64
	seeded  bool
	now     func() time.Time
	log     *slog.Logger
	option.Check
}

func newConfig(opts []Option) config {
	c := config{every: DefaultInterval, changes: DefaultChanges, now: time.Now, log: slog.Default()}
	option.Apply(&c, opts)
	return c
}

// Validate reports the *option.Error with which New would panic given
// opts, or nil: a program that builds its options from configuration
// calls it first.
func Validate(opts ...Option) error {
	c := newConfig(opts)
	return c.Err()
}

// WithInterval sets how often Run changes each sandbox (DefaultInterval
// when d is 0). A negative d is an error.
func WithInterval(d time.Duration) Option {
	return func(c *config) { option.NonNegative(&c.Check, "sandbox", "WithInterval", &c.every, d, DefaultInterval) }
}

// WithChanges sets how many changes Step makes to each sandbox
// (DefaultChanges when n is 0). A negative n is an error.
func WithChanges(n int) Option {
	return func(c *config) { option.NonNegative(&c.Check, "sandbox", "WithChanges", &c.changes, n, DefaultChanges) }
}

// WithSeed makes the Simulator's choices deterministic: the same seed,
// clock and data give the same changes. Without it, or given 0, they are
// random.
func WithSeed(seed uint64) Option {
	return func(c *config) { c.seed, c.seeded = seed, seed != 0 }
}

// WithClock sets the clock that dates the demo data and the changes
// (time.Now by default, and given nil). Run's ticker runs on the real
// clock (or a testing/synctest bubble's).
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		c.now = now
		if now == nil {
			c.now = time.Now
		}
	}
}

// WithLogger sets where Run logs a failed step (slog.Default by default,
// and given nil).
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.log = cmp.Or(l, slog.Default()) }
}
