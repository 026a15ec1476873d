package statusapi

import (
	"cmp"
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/clientstatus/clientstatus/files"
	"github.com/clientstatus/clientstatus/option"
	"github.com/clientstatus/clientstatus/store"
)

// Defaults of the options.
const (
	// DefaultLinkTTL is how long a signed download link stays valid: the
	// spec's 15 minutes.
	DefaultLinkTTL = 15 * time.Minute
	// DefaultTimeout bounds the backend work of one request (key lookup,
	// rate limit, store, file source).
	DefaultTimeout = 10 * time.Second
	// MinSigningKeyLen is the shortest signing key New accepts: 32 random
	// bytes, the output size of HMAC-SHA256. webhook.DeriveKey asks the
	// same of its secret.
	MinSigningKeyLen = 32
)

// Option configures the handler returned by New.
//
// Options follow the module's one policy (see package
// [github.com/clientstatus/clientstatus/option]): a nil Option is
// ignored; nil or a zero value sets the default; a value no default
// stands for (a negative duration, a signing key too short) is an
// *option.Error naming the option, with which New panics and which
// Validate returns.
type Option func(*config)

type config struct {
	publicURL     string
	publicURLFunc func(*http.Request) (*url.URL, error) // WithPublicURLFunc's
	signingKey    []byte
	linkTTL       time.Duration
	files         files.Source
	logger        *slog.Logger
	now           func() time.Time
	timeout       time.Duration

	observers   []func(*http.Request, RequestInfo)
	corsOrigins []string
	cacheBytes  int64                  // 0: no response cache
	shutdown    context.Context        // nil: streams end only with their requests
	recorder    *RequestRecorder       // WithRequestLog; nil: requests are not recorded
	webhooks    store.WebhookEndpoints // WithWebhookEndpoints'; nil: the webhook routes are not served
	mcp         http.Handler           // WithMCP's; nil: /v1/mcp is not served
	// deprecations and document are the package's tests' own
	// (export_test.go): deprecations put on their routes, and the
	// document served with them marked (nil: package openapi's).
	deprecations []deprecation
	document     func() []byte

	option.Check
}

func defaultConfig() config {
	return config{
		linkTTL: DefaultLinkTTL,
		files:   files.NewMemory(),
		logger:  slog.Default(),
		now:     time.Now,
		timeout: DefaultTimeout,

		cacheBytes: DefaultResponseCacheBytes,
	}
}

// WithPublicURL sets the address at which clients reach the handler's
// root, without /v1 ("https://portal.example.com/api" under
// http.StripPrefix("/api", h)), for the links it makes and the served
// OpenAPI document's servers; a trailing slash is dropped. New panics on
// a URL that is not absolute http(s) or carries a query or fragment.
// Without it, links are root-relative: never built from the request's
// Host header. docs/handler.md, "Public URL", says more.
func WithPublicURL(u string) Option {
	return func(c *config) { c.publicURL = strings.TrimRight(u, "/") }
}

// WithSigningKey sets the secret with which download links are signed
// (HMAC-SHA256). Every replica that should verify the links of the others
// needs the same key: at least MinSigningKeyLen (32) random bytes; New
// panics on a shorter one, an empty one included (the exception to the
// option rule for secrets: an empty key is what an unset environment
// variable gives, and a per-process key would break links across replicas
// without a word). The handler keeps its own copy and never logs it.
//
// Without it, New makes a random key for the process and logs a warning:
// links then verify only on the replica that made them, and only until it
// restarts.
func WithSigningKey(key []byte) Option {
	return func(c *config) { c.signingKey = append(make([]byte, 0, len(key)), key...) }
}

// WithLinkTTL sets how long a signed download link stays valid (default
// DefaultLinkTTL, the spec's 15 minutes, which zero sets). New panics on a
// d under a second that is not zero.
func WithLinkTTL(d time.Duration) Option {
	return func(c *config) { c.linkTTL = cmp.Or(d, DefaultLinkTTL) }
}

// WithFiles sets where the bytes of deliverables are read from: a
// deliverable's FileKey is opened in src. Without it, or given nil, the
// handler uses an empty files.Memory, so every download answers 409
// FILE_NOT_AVAILABLE.
func WithFiles(src files.Source) Option {
	return func(c *config) {
		c.files = src
		if src == nil {
			c.files = files.NewMemory()
		}
	}
}

// WithLogger sets where the handler logs: panics (with their stack),
// unexpected errors, unavailable backends (at most once per
// UnavailableLogInterval, with a count) and the missing signing key
// warning, each with the request id. Default, and given nil:
// slog.Default(). It never logs keys, tokens or the signing secret.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.logger = cmp.Or(l, slog.Default()) }
}

// WithClock sets the handler's clock (default, and given nil, time.Now):
// it dates link expiries and checks them, and paces the unavailable log
// lines. Tests use it to expire a link without waiting. Rate-limit
// headers stay on the real clock, as the limiter's windows do.
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		c.now = now
		if now == nil {
			c.now = time.Now
		}
	}
}

// WithTimeout bounds the backend work of one request: resolving its key,
// the rate limit, the store and opening a file (default DefaultTimeout).
// Past it the request is answered 503 UNAVAILABLE. Serving a file's bytes
// to a slow client is not bounded by it. Zero sets the default; New
// panics on a negative d.
func WithTimeout(d time.Duration) Option {
	return func(c *config) { c.timeout = cmp.Or(d, DefaultTimeout) }
}

// WithResponseCache sets the size in bytes of the response cache (see
// "Response cache" in docs/handler.md): DefaultResponseCacheBytes unless
// set, and zero sets that default (WithoutResponseCache turns it off). The bound counts the encoded bodies, their
// Link headers and keys, and a fixed overhead per entry; a single answer
// over a sixteenth of it is not kept. It is keyed by the store's data
// versions (store.Versions). New panics on a negative size.
func WithResponseCache(maxBytes int64) Option {
	return func(c *config) { c.cacheBytes = cmp.Or(maxBytes, DefaultResponseCacheBytes) }
}

// WithoutResponseCache turns the response cache off: every request then
// reads the store and encodes its answer. For comparisons and for stores
// whose version cannot be trusted.
func WithoutResponseCache() Option {
	return func(c *config) { c.cacheBytes = 0 }
}

// WithShutdown ends the handler's live event streams (GET /v1/events
// with Accept: text/event-stream) when ctx is done. http.Server.Shutdown
// waits for every handler to return but cancels no request, so without it
// a server with an open stream waits for its Shutdown context to expire.
// Cancel ctx when the server shuts down:
//
//	stop, endStreams := context.WithCancel(context.Background())
//	srv := &http.Server{Handler: statusapi.New(st, keys, lim, statusapi.WithShutdown(stop))}
//	srv.RegisterOnShutdown(endStreams)
//
// Other requests are not affected: they finish as Shutdown lets them. A
// client following a stream with Last-Event-ID resumes on another
// replica, or on this one once it is back. nil keeps the default: streams
// end only when their request does.
func WithShutdown(ctx context.Context) Option {
	return func(c *config) { c.shutdown = ctx }
}

// ValidateOptions reports the *option.Error with which New would panic
// for opts, or nil: Validate without the parts, for a program that checks
// the options it builds from configuration (flags, environment) before it
// opens its store.
func ValidateOptions(opts ...Option) error {
	_, err := newConfig(opts)
	return err
}

// newConfig applies opts to the defaults and checks the result.
func newConfig(opts []Option) (config, error) {
	cfg := defaultConfig()
	option.Apply(&cfg, opts)
	return cfg, cfg.check()
}

// check reports the first option that holds a value no default stands
// for, as an *option.Error: New panics with it, Validate returns it.
func (c *config) check() error {
	if err := c.Err(); err != nil {
		return err
	}
	refuse := func(name, format string, args ...any) error {
		return option.Errorf("statusapi", name, format, args...)
	}
	if c.signingKey != nil && len(c.signingKey) < MinSigningKeyLen {
		return refuse("WithSigningKey", "the key is %d bytes; use at least %d random bytes", len(c.signingKey), MinSigningKeyLen)
	}
	if c.publicURL != "" {
		u, err := url.Parse(c.publicURL)
		if err != nil || checkPublicURL(u) != nil {
			return refuse("WithPublicURL", "%q: want an absolute http(s) URL without query or fragment, such as https://portal.example.com/api", c.publicURL)
		}
	}
	if c.publicURLFunc != nil && c.publicURL != "" {
		return refuse("WithPublicURLFunc", "WithPublicURL and WithPublicURLFunc both given; use one")
	}
	if c.linkTTL < time.Second {
		return refuse("WithLinkTTL", "%v is shorter than a second", c.linkTTL)
	}
	if c.timeout < 0 {
		return refuse("WithTimeout", "%v is negative", c.timeout)
	}
	if c.cacheBytes < 0 {
		return refuse("WithResponseCache", "%d bytes is negative (WithoutResponseCache turns it off)", c.cacheBytes)
	}
	for _, d := range c.deprecations {
		if err := d.check(); err != nil {
			return refuse("deprecation", "%v", err)
		}
	}
	return nil
}
