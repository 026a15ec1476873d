// Package statusapi is the http.Handler of the status API: every /v1 route
// of the API (described by the OpenAPI document in package openapi), with
// request ids, panic recovery, authentication, per-plan rate limits, strict
// query parameters and signed download links.
//
// Mount it anywhere:
//
//	h := statusapi.New(st, keys, lim,
//		statusapi.WithPublicURL("https://portal.example.com/api"),
//		statusapi.WithSigningKey(secret),
//		statusapi.WithFiles(files.FromFS(os.DirFS("/srv/deliverables"))))
//	mux.Handle("/api/", http.StripPrefix("/api", h))
//
// # Order of processing
//
// Every request goes through these steps; the first that fails answers.
//
//  1. Request id. A client's X-Request-Id of 1 to 128 characters of
//     [A-Za-z0-9._:-] is kept, anything else is replaced by 32 hex digits,
//     unique and unpredictable. Every response carries it, and every
//     error body repeats it as error.request_id.
//  2. Recover. A panic is logged with its stack and the request id, and
//     answered 500 INTERNAL with a generic message.
//  3. Route. An unknown path is 404 NOT_FOUND, a known path with a method
//     other than GET or HEAD is 405 METHOD_NOT_ALLOWED with Allow: GET,
//     HEAD, both as JSON. HEAD answers the headers of GET without a body.
//  4. Authentication (all routes but the signed file link). The
//     Authorization header must be "Bearer <key>": the scheme in any case,
//     one space, one credential. Otherwise, or for a key the KeyResolver
//     refuses, 401 UNAUTHORIZED with WWW-Authenticate: Bearer; a key of an
//     account that may not use the API is 403 FORBIDDEN. Then the key's
//     restriction (auth.Restriction): a route outside its scopes (each
//     route names its own in routes.go) is 403 INSUFFICIENT_SCOPE with
//     WWW-Authenticate: Bearer error="insufficient_scope", scope="...".
//  5. Rate limit. The organization's budget is taken only now, so 401 and
//     403 cost nothing. Limited responses (the 429 too) carry the
//     X-RateLimit-* headers; a spent budget is 429 RATE_LIMITED with
//     Retry-After.
//  6. Query parameters, validated as the contract's table says; any
//     problem is 400 INVALID_PARAMETER naming the parameter.
//  7. Store, then the response. A key restricted to projects sees only
//     their items: the store applies the restriction in its queries
//     (OnlyProjects), so lists, totals and deletions hold nothing else,
//     and an item of another project (a get, a project's milestones, a
//     download link) answers 404 exactly as another organization's id.
//
// Steps 4 to 7 together are bounded by WithTimeout. A key store, limiter or
// store that is unreachable or too slow gives 503 UNAVAILABLE with
// Retry-After: 1, logged at the first such request and then at most once
// per UnavailableLogInterval with the number of requests failed
// meanwhile; any other unexpected error 500 INTERNAL, its cause logged,
// never sent.
//
// # Caching and revalidation
//
// Successful JSON responses (lists, a project, the OpenAPI document) carry
// a weak ETag computed from the body (all of it but the meta.syncedThrough
// of a page of changes, which follows the clock: a client answered 304
// keeps the older one, still right for the same items), Cache-Control:
// private, no-cache and
// Vary: Authorization: a client's own cache may keep them but must
// revalidate each use (so a revoked key or a changed item is seen at
// once), and a shared cache never stores them. A GET or HEAD whose
// If-None-Match names the current tag (or is "*") is answered 304 with no
// body, and the request is refunded to the rate limit: revalidating costs
// nothing. Errors, download links and file bytes carry Cache-Control:
// no-store and no ETag (a download link is a credential and changes every
// second). Every response carries X-Content-Type-Options: nosniff.
//
// # Response cache
//
// The handler keeps the encoded answers of the routes that
// read the store (lists, a project, a thread), with their ETags, in a
// bounded cache (WithResponseCache, DefaultResponseCacheBytes; off with
// WithoutResponseCache). Each is keyed by the organization and its data
// version (store.Versions), the path, the raw query, the public URL and the projects of a
// restricted key. Authentication, scopes and the rate limit run on every
// request first; then a request for an answer that has not changed is
// served from the cache with one version read: no list query and no
// encoding, for a 200 as for a 304. Every write moves the version, in the
// store's own transaction (on PostgreSQL by triggers, so plain SQL counts
// too): the next request on any replica reading that store serves it, so
// caching trades no freshness. Download links and the deletion feed,
// which also depend on the time, are never cached.
//
// # Paging links
//
// List responses carry an RFC 8288 Link header with the first, prev (from
// page 2), next (when a later page has items) and last pages, built from
// the public URL (see WithPublicURL) and the request's own parameters.
//
// # Events
//
// GET /v1/events serves the store's events (store.Events; events.go): after, type (a comma list of valid types) and limit;
// a restricted key reads the events of the kinds its scopes cover and of
// its projects (the store's OnlyKinds and OnlyProjects); meta.page is 1
// and Link rel="next" carries the next after. It is never response-cached.
// The same URL with Accept: text/event-stream is the live stream
// (stream.go): the request is admitted as any other (one request of the
// rate limit), its parameters and cursor are checked, then it holds one of
// its organization's MaxStreamsPerOrganization slots in this process (the
// next is 429 RATE_LIMITED, Retry-After StreamRetryAfter) and sends the
// backlog, then new events when the store wakes it or every StreamPoll,
// with a ": ping" every StreamHeartbeat. It checks its key through the
// KeyResolver every StreamPoll and ends when the key fails or its
// organization may no longer use the API; it ends when a write takes
// longer than StreamWriteTimeout (each write sets its own deadline,
// overriding a server's WriteTimeout), when the client goes, and when the
// context of WithShutdown is done: give it one that the server's
// RegisterOnShutdown cancels, or http.Server.Shutdown waits for the
// streams. Observers see a stream once, when it ends, with its whole
// duration and bytes.
//
// # Routes without a key
//
// GET /v1/openapi.json serves the API's OpenAPI document (package
// openapi), GET /v1/docs the reference page that renders it in a browser
// (docs.go; its script is served by the handler too, nothing comes from
// another origin), and GET /v1/deliverables/{id}/file a signed download
// link (see below); none needs a key or counts against a rate limit.
//
// # Query parameters
//
// Each route accepts only its own parameters: page, limit and status on
// every list, projectId too on deliverables and invoices, expand on the
// milestone, deliverable, invoice and thread routes (lists and single
// items: expand.go), none elsewhere.
// An unknown, repeated or empty parameter is refused, as is a value out of
// range; names and values are case-sensitive. page (from 1) and limit (1
// to 100, default 20) are plain decimal digits: no sign, no leading zero,
// no fraction, so each value has one spelling. A limit over 100 is
// refused, not clamped; a page past the end is an empty page with the true
// total, but a page so large that page*limit overflows is refused.
//
// # Signed download links
//
// GET /v1/deliverables/{id}/download (authenticated, rate limited) answers
//
//	{"data": {"url": "...", "expiresAt": "2026-03-01T09:15:00Z"}}
//
// with a URL of the form
//
//	{public URL}/v1/deliverables/{id}/file?org={org id}&expires={unix seconds}&signature={sig}
//
// where sig is the unpadded base64url HMAC-SHA256, under the signing key,
// of
//
//	"v1\n" + len(org) + ":" + org + "\n" + len(id) + ":" + id + "\n" + expires
//
// (lengths in decimal); an attachment's link (/v1/attachments/{id}/file)
// signs "v1 attachment\n" in place of "v1\n", and an invoice document's
// (GET /v1/invoices/{id}/document, served at /v1/invoices/{id}/file as
// application/pdf) "v1 invoice\n", so that no link opens another kind of
// file. The organization is in the MAC because the store
// is scoped by organization and the file route has no key to name one; the
// lengths keep ids that contain a newline from forging another pair; "v1"
// lets the format change without accepting old links by accident. expires
// is the link's expiry, now + the link TTL, in whole seconds.
//
// GET on the URL needs no key and costs no rate limit: the signature is the
// credential. It is checked first, in constant time, over exactly the
// three parameters, each given once: a missing, repeated, extra or changed
// parameter or path is 403 INVALID_SIGNATURE, so a changed expiry fails
// the signature before it could be judged. Then a link past its expiry is
// 403 LINK_EXPIRED; a deliverable gone since is 404 NOT_FOUND; one with no
// file, or whose file the source does not have, 409 FILE_NOT_AVAILABLE,
// each with its own message (a missing file is also logged as an error,
// with the deliverable and request ids). The bytes served are the
// source's: a size that differs from the deliverable's SizeBytes is
// logged as a warning, not refused. They are served with the
// deliverable's content type and Content-Disposition: attachment with its
// file name, with range requests when the file can seek. A link stays valid until it expires even if the
// key that asked for it is revoked meanwhile: keep the TTL short.
//
// # Adding a resource
//
// Every route is one function in its noun's file (projects.go,
// invoices.go, ...) that takes the request and the caller and returns a
// response (item, page or credential) or an error; it writes nothing.
// One place writes every response (write, in conditional.go: envelope,
// ETag, 304 and its rate-limit refund, Link, cache headers) and one maps
// every error (fail, in errors.go). Each noun's file declares its routes
// (milestoneRoutes, ...) and registers them (var _ =
// registerRoutes(milestoneRoutes)); the one table (table, in routes.go)
// holds them all, sorted by path. A route is h.cachedRoute(path, scope, fn,
// example) when its answer is a function of the organization's data (the
// response cache keeps it until the data version moves), h.keyedRoute
// when it also depends on the time (a signed link, the deletion feed),
// publicRoute when it takes no key. Its scope is the one the handler
// enforces, and its example a request the package's tests make of it on
// their data: the tests of conventions, scopes and restrictions walk
// every route through the table, so a new route needs no edit to them.
//
// A resource listed and read by id, and that belongs to a project or is
// one, is a resource[T, W] (resource.go), declared once (declare): its
// kind and statuses (its scope is its kind's, auth.ScopeOfKind), its wire
// form and the project an item belongs to. Its routes are listRoute (its listSpec and the store call that
// reads a page) and itemRoute (the store's get); parameters, status,
// expand=project, the 404 of an item the key may not see, and the page's
// envelope are theirs, and the event types of its statuses follow. So a
// new resource's file in this package is its wire type, its conversion
// and its routes (as milestones.go), which it registers itself; its test
// data is a fixture its own test file adds (addFixture, in api_test.go).
// The OpenAPI document is generated from the same declarations (go
// generate ./...): the routes' describe, the wire type's oa tags and the
// resource's wireDoc carry what it says (docs/openapi.md).
//
// A new resource of v1 grows store.Store: an interface of its own in
// package store (as store.Threads in threads.go), embedded in store.Store,
// which the in-memory store and bunstore implement. The handler discovers
// nothing: every store.Store serves every route of v1, so a portal's
// wrapper of its store keeps every feature. A route that stays optional
// is opted in by an option that takes what serves it
// (WithWebhookEndpoints, WithRequestLog), and returns no routes without it
// (webhooks.go, requestlog.go). docs/adding-a-resource.md lists the files a
// resource touches across the module.
package statusapi

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"github.com/clientstatus/clientstatus/internal/pace"
	mrand "math/rand/v2"
	"net/http"
	"path"
	"time"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/envelope"
	"github.com/clientstatus/clientstatus/option"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/store"
)

// New returns the handler of every /v1 route, reading from st,
// authenticating with keys and rate limiting with lim. It panics with the
// error Validate reports: a nil store, key resolver or limiter, or an
// *option.Error for an option given a value no default stands for (a
// signing key shorter than MinSigningKeyLen, a link TTL under a second, a
// negative timeout...).
//
// Every route of v1 is served from any st. The webhook endpoints and the
// request log are served only when their options give what serves them
// (WithWebhookEndpoints, WithRequestLog), and answer 404 like any unknown
// path otherwise. New panics, and Validate returns an *option.Error, for an
// opt-in option given nil.
//
// The handler answers paths starting with /v1/. To serve it under a prefix,
// wrap it in http.StripPrefix; links then keep the prefix (root-relative
// links without WithPublicURL, see there). It is safe for
// concurrent use.
func New(st store.Store, keys auth.KeyResolver, lim ratelimit.Limiter, opts ...Option) http.Handler {
	cfg, err := configure(st, keys, lim, opts)
	if err != nil {
		panic(err)
	}
	if cfg.signingKey == nil {
		cfg.signingKey = make([]byte, 32)
		_, _ = rand.Read(cfg.signingKey)
		cfg.logger.Warn("statusapi: no signing key set (WithSigningKey): using a random one; download links will not verify on other replicas or after a restart")
	}
	if cfg.publicURL == "" && cfg.publicURLFunc == nil {
		cfg.logger.Info("statusapi: no public URL set (WithPublicURL, WithPublicURLFunc): links are root-relative, from each request's mount prefix")
	}
	if cfg.recorder != nil {
		cfg.recorder.adopt(cfg.logger) // one logger for the handler and its recorder
	}
	h := newHandler(st, keys, lim, cfg)
	h.mux = h.routes()
	return h
}

// Validate reports the error New would panic with for these arguments, or
// nil: a program that builds its options from configuration (flags,
// environment) calls it first, to refuse a bad setting with a message
// rather than a panic, and maps an *option.Error to the setting it came
// from by its Option (errors.As). It logs nothing and keeps nothing.
func Validate(st store.Store, keys auth.KeyResolver, lim ratelimit.Limiter, opts ...Option) error {
	_, err := configure(st, keys, lim, opts)
	return err
}

// configure checks New's arguments and applies its options to the
// defaults.
func configure(st store.Store, keys auth.KeyResolver, lim ratelimit.Limiter, opts []Option) (config, error) {
	switch {
	case st == nil:
		return config{}, errors.New("statusapi.New: nil store.Store")
	case keys == nil:
		return config{}, errors.New("statusapi.New: nil auth.KeyResolver")
	case lim == nil:
		return config{}, errors.New("statusapi.New: nil ratelimit.Limiter")
	}
	cfg, err := newConfig(opts)
	if err != nil {
		return cfg, err
	}
	if err := checkDeprecatedRoutes(newHandler(st, nil, nil, cfg).table(), cfg); err != nil {
		return cfg, option.Errorf("statusapi", "deprecation", "%v", err)
	}
	return cfg, nil
}

// newHandler returns the handler of st, keys and lim under cfg, without
// its routes. What it serves is declared by the types and cfg: every
// store.Store serves every route of v1, and the opt-in routes come from
// their options (WithWebhookEndpoints, WithRequestLog).
func newHandler(st store.Store, keys auth.KeyResolver, lim ratelimit.Limiter, cfg config) *handler {
	h := &handler{st: st, events: st, keys: keys, lim: lim, cfg: cfg}
	h.docs.deprecations = cfg.deprecations
	if cfg.cacheBytes > 0 {
		h.cache = newResponseCache(cfg.cacheBytes)
	}
	return h
}

type handler struct {
	st      store.Store
	events  store.Events   // st's events (stream.go, events.go)
	streams streamSlots    // the open live event streams (stream.go)
	cache   *responseCache // the response cache (cache.go); nil when off
	keys    auth.KeyResolver
	lim     ratelimit.Limiter
	cfg     config
	mux     *http.ServeMux
	outage  pace.Pacer  // paces the unavailable lines (outage.go)
	refused refusedKeys // paces the lines about revoked and expired keys
	docs    openAPIDocs // the served OpenAPI document, per public URL
	// sandboxes are the sandbox organizations checked for (sandbox.go).
	sandboxes sandboxesSeen
}

// ServeHTTP runs steps 1 to 3 of the order of processing; the route
// handlers (see routes.go) run the rest.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd[envelope.RequestIDHeader] = []string{requestID(r)}
	hd["X-Content-Type-Options"] = nosniff
	hd["Cache-Control"] = noStore
	tw := &trackingWriter{ResponseWriter: w}
	if tracked, ok := h.observing(r); ok {
		tw.info = &RequestInfo{Start: time.Now()}
		if h.cfg.recorder != nil {
			tw.arrived = h.cfg.now() // the request log's createdAt, on the handler's clock
		}
		defer func() { h.observe(tw, r, tracked) }() // r as served, with its pattern
	}
	defer h.recover(tw, r)
	if h.cors(tw, r) {
		return
	}
	if r.URL.Path == "/v1/docs/" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		serveDocsSlash(tw, r) // a person typing the page's address
		return
	}
	// ServeMux would answer an unclean path ("/v1//projects", "/v1/x/..")
	// with a plain-text redirect; no client of ours sends one.
	if r.URL.Path != path.Clean(r.URL.Path) {
		h.notFound(tw, r)
		return
	}
	r, err := h.resolvePublicURL(r)
	if err != nil {
		h.fail(tw, r, err)
		return
	}
	h.mux.ServeHTTP(tw, r)
}

// Header values every response starts with, shared: a header's slice is
// replaced or appended to (which copies it, its capacity being its
// length), never written in place.
var (
	nosniff = []string{"nosniff"}
	noStore = []string{"no-store"}
)

// requestID returns the client's X-Request-Id when it is sane, else a new
// one (newRequestID).
func requestID(r *http.Request) string {
	if ids := r.Header.Values(envelope.RequestIDHeader); len(ids) == 1 && saneRequestID(ids[0]) {
		return ids[0]
	}
	return newRequestID()
}

// newRequestID returns a new request id: 128 random bits in 32 hex
// digits, from the runtime's ChaCha8 generator (math/rand/v2), which is
// seeded from the system's random source and reads no system call per id.
func newRequestID() string {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], mrand.Uint64())
	binary.LittleEndian.PutUint64(b[8:], mrand.Uint64())
	var out [32]byte
	hex.Encode(out[:], b[:])
	return string(out[:])
}

func saneRequestID(id string) bool {
	if len(id) < 1 || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == ':' || c == '-'
		if !ok {
			return false
		}
	}
	return true
}

// trackingWriter remembers whether the response has started, so that a
// panic after it can abort the connection instead of writing a second
// status.
//
// It also keeps the status, the bytes written and the RequestInfo that
// the route fills, for the observers (observe.go).
type trackingWriter struct {
	http.ResponseWriter
	started bool
	status  int
	bytes   int64
	// info is nil when nobody observes the requests (see observing): a
	// RequestInfo is most of the writer's bytes, allocated per request.
	info *RequestInfo
	// keyed says that a key (or token) was accepted: the request is one
	// for the request log (see recordRequest), which dates it arrived.
	keyed   bool
	arrived time.Time
}

func (w *trackingWriter) WriteHeader(code int) {
	if code >= 200 {
		if !w.started {
			w.status = code
		}
		w.started = true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *trackingWriter) Write(b []byte) (int, error) {
	if !w.started {
		w.status = http.StatusOK
	}
	w.started = true
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the server's writer.
func (w *trackingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// timestamp formats t as the contract's timestamps: RFC 3339, UTC, whole
// seconds ("2026-03-01T09:00:00Z").
func timestamp(t time.Time) string {
	return t.UTC().Truncate(time.Second).Format(time.RFC3339)
}

// nullTime is timestamp for an optional time: nil is sent as null.
func nullTime(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := timestamp(*t)
	return &s
}
