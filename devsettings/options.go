package devsettings

import (
	"cmp"
	"context"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/clientstatus/clientstatus/option"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/store"
	"github.com/clientstatus/clientstatus/webhook"
)

// Option configures the handler returned by New. Options follow the
// module's one policy (see package
// [github.com/clientstatus/clientstatus/option]): a nil Option is
// ignored, nil or a zero value keeps the default, and a value no default
// stands for is an *option.Error naming the option, with which New
// panics and which Validate returns.
type Option func(*config)

type config struct {
	webhooks  *webhook.Endpoints
	requests  RequestLog
	limiter   ratelimit.Limiter
	sandbox   func(ctx context.Context, liveOrgID string) error
	onChange  func(context.Context, Change)
	logger    *slog.Logger
	ancestors []string
	now       func() time.Time
	prefix    string
	option.Check
}

func newConfig(opts []Option) config {
	c := config{logger: slog.Default(), now: time.Now}
	option.Apply(&c, opts)
	return c
}

// Validate reports the *option.Error with which New would panic given
// opts, or nil.
func Validate(opts ...Option) error {
	c := newConfig(opts)
	return c.Err()
}

// WithWebhooks shows the Webhooks pages, on the portal's webhook API
// (nothing unless set: no Webhooks page).
func WithWebhooks(e *webhook.Endpoints) Option { return func(c *config) { c.webhooks = e } }

// RequestLog is what the pages read of the request log that
// statusapi.WithRequestLog's recorder writes to: its records and the
// organization's requests per day. memstore.Store and bunstore.Store
// implement it.
type RequestLog interface {
	ListRequestLogs(ctx context.Context, orgID string, q store.RequestLogQuery) (store.Page[store.RequestRecord], error)
	store.UsageTotals
}

// WithRequestLog shows the Requests page and the requests per day on the
// Usage page (nothing unless set).
func WithRequestLog(l RequestLog) Option { return func(c *config) { c.requests = l } }

// WithLimiter shows the rate limit's budget on the Usage page: the limit
// and what remains of the current window, read without spending it
// (nothing unless set: the plan alone).
func WithLimiter(l ratelimit.Limiter) Option { return func(c *config) { c.limiter = l } }

// WithSandbox offers the Sandbox switch: every page then also serves the
// organization's sandbox copy (sandbox keys, endpoints, requests) under
// sandbox/. prepare is called with the live organization's id before each
// change made in the sandbox, to make sure the sandbox exists (the
// standalone server seeds it with sandbox.Seed); it must be idempotent
// (nil: no sandbox).
func WithSandbox(prepare func(ctx context.Context, liveOrgID string) error) Option {
	return func(c *config) { c.sandbox = prepare }
}

// WithChangeHook sets what is told of every change made through the
// pages, after it is made (nothing unless set). It runs on the request's
// goroutine; a Change never holds a secret.
func WithChangeHook(fn func(context.Context, Change)) Option {
	return func(c *config) { c.onChange = fn }
}

// WithLogger sets where changes and failures are logged
// (slog.Default() unless set). Keys and signing secrets are never logged.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.logger = cmp.Or(l, slog.Default()) }
}

// WithFrameAncestors lets the pages be framed by these origins
// ("https://portal.example.com") besides their own, for a portal that
// shows them in an iframe: they join 'self' in the Content-Security-
// Policy's frame-ancestors. An origin that is not scheme://host[:port]
// is refused; none keeps 'self' alone.
func WithFrameAncestors(origins ...string) Option {
	return func(c *config) {
		for _, o := range origins {
			u, err := url.Parse(o)
			if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" ||
				u.Path != "" || u.RawQuery != "" || u.User != nil || strings.ContainsAny(o, " ;,'\"") {
				c.Refuse("devsettings", "WithFrameAncestors", "%q is not an origin such as https://portal.example.com", o)
				return
			}
		}
		c.ancestors = append([]string(nil), origins...)
	}
}

// WithClock sets the clock that dates changes and expiries (time.Now
// unless set).
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		c.now = now
		if now == nil {
			c.now = time.Now
		}
	}
}

// WithPrefix sets the path the pages are served under as the browser
// sees it ("/settings"), for a router that passes the whole path on, as
// chi's Mount does: the handler strips it and makes its links with it.
// Without it, the handler takes the part of the path that an
// http.StripPrefix in front of it removed. A prefix that does not start
// with "/" is refused.
func WithPrefix(p string) Option {
	return func(c *config) {
		if p != "" && (!strings.HasPrefix(p, "/") || strings.ContainsAny(p, "?#\"'<> ")) {
			c.Refuse("devsettings", "WithPrefix", "%q is not a path such as /settings", p)
			return
		}
		c.prefix = strings.TrimSuffix(p, "/")
	}
}
