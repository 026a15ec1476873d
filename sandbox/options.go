package sandbox

import (
	"log/slog"
	"time"
)

// DefaultInterval is how often, by default, a Simulator changes each
// sandbox: a few changes every ten minutes, some twenty an hour.
const DefaultInterval = 10 * time.Minute

// DefaultChanges is how many changes, by default, a Simulator makes to
// each sandbox at every interval.
const DefaultChanges = 2

// Option configures Seed and New.
type Option func(*config)

type config struct {
	every   time.Duration
	changes int
	seed    uint64
	seeded  bool
	now     func() time.Time
	log     *slog.Logger
}

func newConfig(opts []Option) config {
	c := config{every: DefaultInterval, changes: DefaultChanges, now: time.Now, log: slog.Default()}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// WithInterval sets how often Run changes each sandbox (DefaultInterval
// when d is 0). New panics if d is negative.
func WithInterval(d time.Duration) Option {
	if d < 0 {
		panic("sandbox: WithInterval needs a duration of 0 or more")
	}
	return func(c *config) {
		if d > 0 {
			c.every = d
		}
	}
}

// WithChanges sets how many changes Step makes to each sandbox
// (DefaultChanges when n is 0). It panics if n is negative.
func WithChanges(n int) Option {
	if n < 0 {
		panic("sandbox: WithChanges needs a number of 0 or more")
	}
	return func(c *config) {
		if n > 0 {
			c.changes = n
		}
	}
}

// WithSeed makes the Simulator's choices deterministic: the same seed,
// clock and data give the same changes. Without it, they are random.
func WithSeed(seed uint64) Option {
	return func(c *config) { c.seed, c.seeded = seed, true }
}

// WithClock sets the clock that dates the demo data and the changes
// (time.Now by default). Run's ticker runs on the real clock (or a
// testing/synctest bubble's).
func WithClock(now func() time.Time) Option {
	if now == nil {
		panic("sandbox: WithClock needs a clock")
	}
	return func(c *config) { c.now = now }
}

// WithLogger sets where Run logs a failed step (slog.Default by default).
func WithLogger(l *slog.Logger) Option {
	if l == nil {
		panic("sandbox: WithLogger needs a logger")
	}
	return func(c *config) { c.log = l }
}
