package auth

import (
	"cmp"
	"log/slog"
	"time"

	"github.com/clientstatus/clientstatus/option"
)

// Option configures NewKeys and NewCache. One type serves both, so that a
// clock or a logger is given to each the same way; each option says which
// constructor reads it, and an option a constructor does not read is
// ignored there, unchecked, so one list of options may be passed to both.
// Options follow the module's one policy (see package
// [github.com/clientstatus/clientstatus/option]): a nil Option is
// ignored, nil or a zero value means the option's default, and a value
// that no default stands for (a negative duration or size) is an
// *option.Error naming the option, with which the constructor that reads
// it panics and which Validate returns.
type Option func(*config)

// config is what the options set, defaults first.
type config struct {
	now        func() time.Time
	logger     *slog.Logger
	flushEvery time.Duration
	cacheTTL   time.Duration
	maxEntries int
	// invalidations are the channels a Cache listens to besides its
	// resolver (WithInvalidations).
	invalidations []Invalidations
	publisher     Publisher
	// keysCheck and cacheCheck hold the errors of the options NewKeys
	// and NewCache read.
	keysCheck, cacheCheck option.Check
}

// newConfig applies opts over the defaults.
func newConfig(opts []Option) config {
	c := config{
		now:        time.Now,
		logger:     slog.Default(),
		flushEvery: DefaultFlushInterval,
		cacheTTL:   DefaultCacheTTL,
		maxEntries: DefaultCacheSize,
	}
	option.Apply(&c, opts)
	return c
}

// Validate reports the *option.Error with which NewKeys or NewCache would
// panic given opts, or nil: a program that builds its options from
// configuration calls it first.
func Validate(opts ...Option) error {
	c := newConfig(opts)
	if err := c.keysCheck.Err(); err != nil {
		return err
	}
	return c.cacheCheck.Err()
}

// WithClock replaces time.Now, for tests; nil means time.Now. NewKeys reads
// it (expiry checks, last-use times, the flush interval) and so does
// NewCache (how long an answer is remembered).
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		if now == nil {
			now = time.Now
		}
		c.now = now
	}
}

// WithLogger sets where Keys reports failed last-use writes, never with key
// material; nil means slog.Default(). NewKeys reads it.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.logger = cmp.Or(l, slog.Default()) }
}

// WithFlushInterval sets how often, at most, Keys writes last-use times
// to its KeyStore, which is also how stale "last used" may be; 0 means
// DefaultFlushInterval, and a negative d is an error. NewKeys reads it.
func WithFlushInterval(d time.Duration) Option {
	return func(c *config) {
		option.NonNegative(&c.keysCheck, "auth", "WithFlushInterval", &c.flushEvery, d, DefaultFlushInterval)
	}
}

// WithCacheTTL sets how long a Cache remembers an answer, which bounds how
// long a revoked key, or an account turned off, may still be served when
// no Invalidations reports the change (see Cache); 0 means
// DefaultCacheTTL, and a negative d is an error. NewCache reads it.
func WithCacheTTL(d time.Duration) Option {
	return func(c *config) {
		option.NonNegative(&c.cacheCheck, "auth", "WithCacheTTL", &c.cacheTTL, d, DefaultCacheTTL)
	}
}

// WithMaxEntries bounds how many credentials a Cache remembers; 0 means
// DefaultCacheSize, and a negative n is an error. NewCache reads it.
func WithMaxEntries(n int) Option {
	return func(c *config) {
		option.NonNegative(&c.cacheCheck, "auth", "WithMaxEntries", &c.maxEntries, n, DefaultCacheSize)
	}
}

// WithInvalidations makes a Cache forget an organization's principals
// when inv reports it, besides what its resolver reports (see Cache): for
// example a bunstore Store in front of a JWT resolver that reads
// organizations from it, or an auth/redisinvalidate Channel. It may be
// given more than once: the cache listens to each. nil is ignored.
// NewCache reads it.
func WithInvalidations(inv Invalidations) Option {
	return func(c *config) {
		if inv != nil {
			c.invalidations = append(c.invalidations, inv)
		}
	}
}

// WithPublisher makes Keys publish each key it revokes to p, so that the
// caches of other replicas forget it (see auth/redisinvalidate); a failure
// to publish is logged (WithLogger) and never fails the revocation. When p
// is also an Invalidations, as a Redis channel is, Keys relays what it
// reports to its own subscribers, so that a Cache in front of Keys hears
// the other replicas with no other wiring. nil means none, the default:
// caches in the same process hear Keys at once without it. NewKeys reads
// it.
func WithPublisher(p Publisher) Option {
	return func(c *config) {
		c.publisher = p
	}
}
