package auth

import (
	"fmt"
	"log/slog"
	"time"
)

// Option configures NewKeys and NewCache. One type serves both, so that a
// clock or a logger is given to each the same way; each option says which
// constructor reads it. An option a constructor does not read is ignored,
// so one list of options may be passed to both, but a value that no
// default stands for (a negative duration or size) makes either
// constructor panic with a message naming the option: it is a mistake in
// the code, wherever it is passed. A zero value (0, nil) means the
// option's default. A nil Option is ignored.
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
}

// newConfig applies opts over the defaults, and panics on a value that no
// default stands for.
func newConfig(opts []Option) config {
	c := config{
		now:        time.Now,
		logger:     slog.Default(),
		flushEvery: DefaultFlushInterval,
		cacheTTL:   DefaultCacheTTL,
		maxEntries: DefaultCacheSize,
	}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if c.flushEvery < 0 {
		panic(fmt.Sprintf("auth: WithFlushInterval: %v is negative", c.flushEvery))
	}
	if c.cacheTTL < 0 {
		panic(fmt.Sprintf("auth: WithCacheTTL: %v is negative", c.cacheTTL))
	}
	if c.maxEntries < 0 {
		panic(fmt.Sprintf("auth: WithMaxEntries: %d is negative", c.maxEntries))
	}
	return c
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
	return func(c *config) {
		if l == nil {
			l = slog.Default()
		}
		c.logger = l
	}
}

// WithFlushInterval sets how often, at most, Keys writes last-use times
// to its KeyStore, which is also how stale "last used" may be; 0 means
// DefaultFlushInterval, and a negative d panics. NewKeys reads it.
func WithFlushInterval(d time.Duration) Option {
	return func(c *config) {
		if d == 0 {
			d = DefaultFlushInterval
		}
		c.flushEvery = d
	}
}

// WithCacheTTL sets how long a Cache remembers an answer, which bounds how
// long a revoked key, or an account turned off, may still be served when
// no Invalidations reports the change (see Cache); 0 means
// DefaultCacheTTL, and a negative d panics. NewCache reads it.
func WithCacheTTL(d time.Duration) Option {
	return func(c *config) {
		if d == 0 {
			d = DefaultCacheTTL
		}
		c.cacheTTL = d
	}
}

// WithMaxEntries bounds how many credentials a Cache remembers; 0 means
// DefaultCacheSize, and a negative n panics. NewCache reads it.
func WithMaxEntries(n int) Option {
	return func(c *config) {
		if n == 0 {
			n = DefaultCacheSize
		}
		c.maxEntries = n
	}
}

// WithInvalidations makes a Cache forget an organization's principals
// when inv reports it, besides what its resolver reports (see Cache): for
// example a store/bunstore Store in front of a JWT resolver that reads
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
