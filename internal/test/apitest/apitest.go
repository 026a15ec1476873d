package apitest

import (
	"bytes"
	"context"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/files"
	"github.com/clientstatus/clientstatus/internal/test/testenv"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/option"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/store"
)

// SigningKey signs the download links of every test handler, so that two
// handlers of a test verify each other's links.
var SigningKey = []byte("0123456789abcdef0123456789abcdef")

// Start is when a test API's clock starts, unless WithStart says otherwise.
var Start = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// API is a status API handler on in-memory parts, and the parts.
type API struct {
	Store *memstore.Store
	Keys  *auth.Keys
	Files *files.Memory
	// Clock is the store's, the keys' and the handler's clock (the
	// limiter's windows keep real time unless WithLimiterOptions sets its
	// clock).
	Clock *testenv.Clock
	Logs  *Buffer // what the handler, the keys and the limiter logged
	// Handler is statusapi.New on the parts, with the options given.
	Handler http.Handler

	t    testing.TB
	cfg  config
	keys map[string]string
	recs []*statusapi.RequestRecorder // the handlers' request logs (optIns)
}

// Option configures New.
type Option func(*config)

type config struct {
	limOpts  []ratelimit.Option
	apiOpts  []statusapi.Option
	wrap     func(store.Store) store.Store
	resolver func(*API) auth.KeyResolver
	start    time.Time
	check    func(testing.TB, *http.Request, *httptest.ResponseRecorder)
}

// WithLimiterOptions configures the memory limiter.
func WithLimiterOptions(opts ...ratelimit.Option) Option {
	return func(c *config) { c.limOpts = append(c.limOpts, opts...) }
}

// WithHandlerOptions adds options of statusapi.New, after the harness's
// own (signing key, files, clock, logger), so that they win.
func WithHandlerOptions(opts ...statusapi.Option) Option {
	return func(c *config) { c.apiOpts = append(c.apiOpts, opts...) }
}

// WithStoreWrapper makes the handler read wrap(store) instead of the
// store: a store that fails, blocks or hides an optional interface.
func WithStoreWrapper(wrap func(store.Store) store.Store) Option {
	return func(c *config) { c.wrap = wrap }
}

// WithResolver makes the handler resolve keys with resolver(a) instead of
// a.Keys: a cache in front, or credentials of the test's own.
func WithResolver(resolver func(a *API) auth.KeyResolver) Option {
	return func(c *config) { c.resolver = resolver }
}

// WithStart starts the clock at t instead of Start.
func WithStart(t time.Time) Option { return func(c *config) { c.start = t } }

// WithCheck runs check on every response Do and Serve get: an OpenAPI
// validation, the conventions every response shares.
func WithCheck(check func(t testing.TB, req *http.Request, res *httptest.ResponseRecorder)) Option {
	return func(c *config) { c.check = check }
}

// New builds the API. The store is empty: put organizations with Org and
// keys with Mint.
func New(t testing.TB, opts ...Option) *API {
	t.Helper()
	cfg := config{start: Start}
	option.Apply(&cfg, opts)
	a := &API{
		Files: files.NewMemory(),
		Clock: testenv.NewClock(cfg.start),
		Logs:  &Buffer{},
		t:     t,
		cfg:   cfg,
		keys:  make(map[string]string),
	}
	a.Store = memstore.New(memstore.WithClock(a.Clock.Now))
	logger := a.logger()
	a.Keys = auth.NewKeys(auth.NewMemoryKeyStore(a.Store), auth.WithClock(a.Clock.Now), auth.WithLogger(logger))
	t.Cleanup(func() { _ = a.Keys.Close() })
	a.Handler = a.NewHandler()
	return a
}

// NewHandler returns another handler on the same parts (one with a public
// URL, say), with the options of New and opts after them, and a memory
// limiter of its own.
func (a *API) NewHandler(opts ...statusapi.Option) http.Handler {
	return a.Replica(nil, opts...)
}

// Replica returns another handler on the same store and keys, as a
// second replica of a portal would be, limited by lim (nil: a memory
// limiter of its own), with the options of New and opts after them.
func (a *API) Replica(lim ratelimit.Limiter, opts ...statusapi.Option) http.Handler {
	var st store.Store = a.Store
	if a.cfg.wrap != nil {
		st = a.cfg.wrap(st)
	}
	var resolver auth.KeyResolver = a.Keys
	if a.cfg.resolver != nil {
		resolver = a.cfg.resolver(a)
	}
	if lim == nil {
		lim = ratelimit.NewMemory(append([]ratelimit.Option{ratelimit.WithLogger(a.logger())}, a.cfg.limOpts...)...)
	}
	all := append([]statusapi.Option{
		statusapi.WithFiles(a.Files),
		statusapi.WithClock(a.Clock.Now),
		statusapi.WithLogger(a.logger()),
	}, a.optIns(st)...)
	all = append(all, a.cfg.apiOpts...)
	return Handler(st, resolver, lim, append(all, opts...)...)
}

// Handler is statusapi.New on st, keys and lim (nil: a memory limiter of
// its own), signing links with SigningKey and logging nowhere, with opts
// after that, so that they win: the handler of a test whose parts are not
// an API's.
func Handler(st store.Store, keys auth.KeyResolver, lim ratelimit.Limiter, opts ...statusapi.Option) http.Handler {
	if lim == nil {
		lim = ratelimit.NewMemory(ratelimit.WithLogger(slog.New(slog.DiscardHandler)))
	}
	all := []statusapi.Option{
		statusapi.WithSigningKey(SigningKey),
		statusapi.WithLogger(slog.New(slog.DiscardHandler)),
	}
	return statusapi.New(st, keys, lim, append(all, opts...)...)
}

// optIns are the options that opt the handler into the routes a store
// keeps apart from store.Store, so that the harness serves every route of
// statusapi.Routes: the webhook endpoints, from st when it keeps them (a
// wrapper of the test's may not), else from a.Store; and the request log,
// recorded into a.Store (never a test's failing wrapper) only when the
// recorder closes with the test: its flush ticker would run on the wall
// clock, so that what /v1/request_logs holds would hang on how long the
// test took. A test that reads the log gives its own recorder and
// flushes it, or calls FlushRequestLog. A test's own WithRequestLog or
// WithWebhookEndpoints comes after, and wins.
func (a *API) optIns(st store.Store) []statusapi.Option {
	ws, ok := st.(store.WebhookEndpoints)
	if !ok {
		ws = a.Store
	}
	rec := statusapi.NewRequestRecorder(a.Store, statusapi.WithRecorderLogger(a.logger()),
		statusapi.WithRecorderFlushInterval(24*365*time.Hour))
	a.t.Cleanup(func() { _ = rec.Close(context.Background()) })
	a.recs = append(a.recs, rec)
	return []statusapi.Option{statusapi.WithWebhookEndpoints(ws), statusapi.WithRequestLog(rec)}
}

// FlushRequestLog writes what the handlers' own request logs hold into
// Store, failing the test on error.
func (a *API) FlushRequestLog() {
	a.t.Helper()
	for _, rec := range a.recs {
		if err := rec.Flush(context.Background()); err != nil {
			a.t.Fatalf("apitest: flush the request log: %v", err)
		}
	}
}

// logger returns a logger that writes to Logs.
func (a *API) logger() *slog.Logger { return slog.New(slog.NewTextHandler(a.Logs, nil)) }

// Org puts an organization on plan that may use the API; its name is its
// id. It fails the test on error.
func (a *API) Org(id string, plan store.Plan) store.Organization {
	a.t.Helper()
	o := store.Organization{ID: id, Name: id, Plan: plan, RetainerActive: true, APIEnabled: true}
	a.PutOrg(o)
	return o
}

// PutOrg puts o, failing the test on error.
func (a *API) PutOrg(o store.Organization) {
	a.t.Helper()
	if err := a.Store.PutOrganization(context.Background(), o); err != nil {
		a.t.Fatalf("apitest: put organization %s: %v", o.ID, err)
	}
}

// Mint mints a key of the organization, remembered under name for Do,
// and returns it.
func (a *API) Mint(name, orgID string) string {
	a.t.Helper()
	key, _, err := a.Keys.Mint(context.Background(), orgID, name, nil)
	if err != nil {
		a.t.Fatalf("apitest: mint key %q for %s: %v", name, orgID, err)
	}
	a.keys[name] = key
	return key
}

// SetKey remembers key under name for Do: a key minted otherwise (with
// an expiry, then revoked) or a credential of the test's own.
func (a *API) SetKey(name, key string) { a.keys[name] = key }

// KeyValues returns every key remembered, in no order: to check that
// none appears where no key may.
func (a *API) KeyValues() []string {
	return slices.Collect(maps.Values(a.keys))
}

// Key returns the key remembered under name; the test fails without one.
func (a *API) Key(name string) string {
	a.t.Helper()
	k, ok := a.keys[name]
	if !ok {
		a.t.Fatalf("apitest: no key named %q", name)
	}
	return k
}

// Request returns a request to the handler with the named key as its
// bearer credential ("" for no Authorization header) and extra headers as
// name, value pairs.
func (a *API) Request(method, target, key string, headers ...string) *http.Request {
	a.t.Helper()
	if key != "" {
		key = a.Key(key)
	}
	return NewRequest(method, target, key, headers...)
}

// NewRequest returns a request with key, an API key itself, as its bearer
// credential ("" for no Authorization header) and extra headers as name,
// value pairs. Headers of an odd count lose the last.
func NewRequest(method, target, key string, headers ...string) *http.Request {
	req := httptest.NewRequest(method, target, nil)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Add(headers[i], headers[i+1])
	}
	return req
}

// Do sends Request(method, target, key, headers...) to the handler.
func (a *API) Do(method, target, key string, headers ...string) *httptest.ResponseRecorder {
	a.t.Helper()
	return a.Serve(a.Handler, a.Request(method, target, key, headers...))
}

// Serve sends req to h and runs the check of WithCheck on the response.
func (a *API) Serve(h http.Handler, req *http.Request) *httptest.ResponseRecorder {
	a.t.Helper()
	res := httptest.NewRecorder()
	h.ServeHTTP(res, req)
	if a.cfg.check != nil {
		a.cfg.check(a.t, req, res)
	}
	return res
}

// Server starts an HTTP server with a handler mounted under prefix ("" for
// none) through http.StripPrefix, whose links point back to it, and
// returns it; the test closes it. wrap, when not nil, wraps the server's
// whole handler (to count requests, say).
func (a *API) Server(prefix string, wrap func(http.Handler) http.Handler, opts ...statusapi.Option) *httptest.Server {
	a.t.Helper()
	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	a.t.Cleanup(srv.Close)
	api := a.NewHandler(append([]statusapi.Option{statusapi.WithPublicURL(srv.URL + prefix)}, opts...)...)
	if prefix == "" {
		h = api
	} else {
		mux := http.NewServeMux()
		mux.Handle(prefix+"/", http.StripPrefix(prefix, api))
		h = mux
	}
	if wrap != nil {
		h = wrap(h)
	}
	return srv
}

// Buffer is a bytes.Buffer safe for the concurrent logging of a handler.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns what was written.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Contains reports whether what was written contains s.
func (b *Buffer) Contains(s string) bool { return strings.Contains(b.String(), s) }
