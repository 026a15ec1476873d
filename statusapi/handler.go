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
// path otherwise; an opt-in option given nil, like a nil Option, keeps
// that default.
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
	table := h.table()
	if err := checkDeprecatedRoutes(table, cfg); err != nil {
		panic(err)
	}
	h.mux = h.routes(table)
	return h
}

// Validate reports the error New would panic with for these arguments, or
// nil: a program that builds its options from configuration (flags,
// environment) calls it first, to refuse a bad setting with a message
// rather than a panic, and maps an *option.Error to the setting it came
// from by its Option (errors.As). It logs nothing and keeps nothing.
func Validate(st store.Store, keys auth.KeyResolver, lim ratelimit.Limiter, opts ...Option) error {
	cfg, err := configure(st, keys, lim, opts)
	if err == nil {
		err = checkDeprecatedRoutes(operations(cfg), cfg)
	}
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
	return newConfig(opts)
}

// newHandler returns the handler of st, keys and lim under cfg, without
// its routes. What it serves is declared by the types and cfg: every
// store.Store serves every route of v1, and the opt-in routes come from
// their options (WithWebhookEndpoints, WithRequestLog).
func newHandler(st store.Store, keys auth.KeyResolver, lim ratelimit.Limiter, cfg config) *handler {
	h := &handler{st: st, events: st, keys: keys, lim: lim, cfg: cfg}
	h.fanout = newFanout(h)
	h.docs.document = cfg.document
	if cfg.cacheBytes > 0 {
		h.cache = newResponseCache(cfg.cacheBytes)
	}
	return h
}

type handler struct {
	st      store.Store
	events  store.Events   // st's events (stream.go, events.go)
	streams streamSlots    // the open live event streams (stream.go)
	fanout  *fanout        // what the open streams read and check (fanout.go)
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
