package statusclient

import (
	"cmp"
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/clientstatus/clientstatus/option"
)

// Retry defaults: see WithRetry. DefaultMaxWait is one rate-limit window
// (a minute) and a margin, since a server may round its Retry-After up.
const (
	DefaultMaxAttempts = 3
	DefaultMaxWait     = 65 * time.Second
)

// DefaultTimeout bounds each HTTP exchange of a Client made without
// WithHTTPClient, so that a stalled server cannot hang a caller that passed
// a context without a deadline.
const DefaultTimeout = 30 * time.Second

// DefaultUserAgent is the User-Agent of a Client made without
// WithUserAgent.
const DefaultUserAgent = "clientstatus-statusclient"

// Option configures a Client made by New. Options follow the module's one
// policy (see the package documentation): a nil Option is ignored, a zero
// value means the default, a value that no default stands for is an
// *option.Error, with which New panics and which Validate returns.
type Option func(*config)

// config is what the options set, on top of defaultConfig.
type config struct {
	hc          *http.Client
	userAgent   string
	maxAttempts int
	maxWait     time.Duration
	sleep       func(ctx context.Context, d time.Duration) error
	logger      *slog.Logger
	// check holds the first value refused: a named field, as Client
	// embeds config and must not gain its methods.
	check option.Check
}

// Validate reports the *option.Error with which New would panic given
// opts, or nil.
func Validate(opts ...Option) error {
	c := defaultConfig()
	option.Apply(&c, opts)
	return c.check.Err()
}

func defaultConfig() config {
	return config{
		hc:          &http.Client{Timeout: DefaultTimeout},
		userAgent:   DefaultUserAgent,
		maxAttempts: DefaultMaxAttempts,
		maxWait:     DefaultMaxWait,
		sleep:       sleepCtx,
		logger:      slog.Default(),
	}
}

// WithHTTPClient makes the Client send its requests through hc (its
// transport, timeout, proxy...). nil means the default, an http.Client
// with DefaultTimeout.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *config) { c.hc = cmp.Or(hc, &http.Client{Timeout: DefaultTimeout}) }
}

// WithUserAgent sets the User-Agent header of every request. "" means the
// default, DefaultUserAgent.
func WithUserAgent(ua string) Option {
	return func(c *config) { c.userAgent = cmp.Or(ua, DefaultUserAgent) }
}

// WithRetry bounds the retry of refused requests. A request answered 429
// RATE_LIMITED or 503 UNAVAILABLE is sent again, at most maxAttempts times
// in all (1 disables retrying), after waiting the Retry-After the server
// asked for, or 1s, 2s, 4s... (at most maxWait) when it asked for none. When
// the server asks for a longer wait than maxWait, the Client does not wait:
// it returns the *Error at once, with RetryAfter set, and the caller
// decides.
//
// 0 means the default for either: DefaultMaxAttempts, DefaultMaxWait. A
// negative maxAttempts or maxWait is an error.
//
// Nothing else is retried: not other statuses, and not transport errors
// (connection refused, reset, timeouts), which the Client returns as they
// are. Every route is a GET, so a caller may safely retry those itself.
func WithRetry(maxAttempts int, maxWait time.Duration) Option {
	return func(c *config) {
		if maxAttempts < 0 {
			c.check.Refuse("statusclient", "WithRetry", "maxAttempts %d is negative", maxAttempts)
			return
		}
		if maxWait < 0 {
			c.check.Refuse("statusclient", "WithRetry", "maxWait %v is negative", maxWait)
			return
		}
		c.maxAttempts = cmp.Or(maxAttempts, DefaultMaxAttempts)
		c.maxWait = cmp.Or(maxWait, DefaultMaxWait)
	}
}

// WithLogger sets where the Client warns, never with the key: once per
// route that the API deprecated what a request uses (see
// Response.Deprecation), and when a stream keeps ending at once. nil means
// slog.Default().
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.logger = cmp.Or(l, slog.Default()) }
}

// WithSleep replaces the way the Client waits before a retry. sleep must
// return early with ctx.Err() when ctx ends. Tests use it to record the
// waits instead of sleeping. nil means the default, a timer.
func WithSleep(sleep func(ctx context.Context, d time.Duration) error) Option {
	return func(c *config) {
		c.sleep = sleep
		if sleep == nil {
			c.sleep = sleepCtx
		}
	}
}
