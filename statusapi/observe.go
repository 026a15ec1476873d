package statusapi

import (
	"cmp"
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/clientstatus/clientstatus/ratelimit"
)

// RequestInfo is what the handler knows of a request once it has answered
// it: for a portal's access log, metrics and traces. It never holds an API
// key, a token or a link's signature.
type RequestInfo struct {
	// Route is the matched route's pattern, such as "/v1/projects/{id}":
	// a label that does not grow with ids. It is "" for a path that is no
	// route (404).
	Route     string
	Method    string
	RequestID string
	// OrgID, KeyID and Subject say who called: the organization, the id
	// of the API key (never the key), or the JWT's subject. They are ""
	// when the caller was not authenticated (and on the signed file
	// route, where OrgID is the link's organization).
	OrgID, KeyID, Subject string
	// Plan is the caller's organization's plan ("" when not
	// authenticated): it sets the rate limit.
	Plan string
	// Status is the HTTP status sent; ErrorCode the envelope's error.code
	// ("" on success).
	Status    int
	ErrorCode string
	// Reason is why the request was refused or failed, for the portal's
	// logs only, never sent to the client: why a credential was refused
	// ("auth: invalid key: revoked", "jwt: wrong audience"), the cause of
	// a 503 or 500.
	Reason string
	// RateLimit is the limiter's decision (Limited is false when no limit
	// applied, or when the request was refused before the limiter).
	RateLimit ratelimit.Decision
	Bytes     int64 // body bytes written
	Start     time.Time
	Duration  time.Duration
}

// WithObserver adds fn, which the handler calls once for every request
// after answering it, on the request's goroutine, with what it knows of
// it. Use it for an access log, metrics or traces (package otelstatus
// wraps the handler for OpenTelemetry). fn must not keep r past its
// return. Several observers are called in the order given; nil is
// ignored.
func WithObserver(fn func(r *http.Request, info RequestInfo)) Option {
	return func(c *config) {
		if fn != nil {
			c.observers = append(c.observers, fn)
		}
	}
}

// trackKey is the context key of a RequestInfo that Track asked the
// handler to fill.
type trackKey struct{}

// Track returns a copy of r and a RequestInfo that the handler fills when
// it serves the copy, wherever it is mounted: middleware around the
// handler (an outer mux, http.StripPrefix, an access log) reads the route,
// the caller and the outcome there once the handler has returned, which it
// cannot read from its own request (the handler's mux sets the pattern on
// the request it is given, a copy made by StripPrefix).
//
//	r, info := statusapi.Track(r)
//	next.ServeHTTP(w, r)
//	log.Info("api", "route", info.Route, "org", info.OrgID, "status", info.Status)
//
// Track nests: on a request that an outer layer already tracks (a
// portal's access log around otelstatus.Middleware, which calls Track
// itself, or the other way round), it returns r as it is and the same
// RequestInfo, so every layer reads the one the handler fills. A layer
// must therefore read it, not change it.
func Track(r *http.Request) (*http.Request, *RequestInfo) {
	if info, ok := r.Context().Value(trackKey{}).(*RequestInfo); ok {
		return r, info
	}
	info := new(RequestInfo)
	return r.WithContext(context.WithValue(r.Context(), trackKey{}, info)), info
}

// observing reports whether anyone reads the requests' RequestInfo.
func (h *handler) observing(r *http.Request) (*RequestInfo, bool) {
	tracked, _ := r.Context().Value(trackKey{}).(*RequestInfo)
	return tracked, tracked != nil || len(h.cfg.observers) > 0 || h.cfg.recorder != nil
}

// observe completes the RequestInfo kept by w and hands it to the
// observers and to Track's caller.
func (h *handler) observe(w *trackingWriter, r *http.Request, tracked *RequestInfo) {
	info := *w.info
	info.Method = r.Method
	info.RequestID = w.Header().Get("X-Request-Id")
	if p := r.Pattern; p != "" && p != "/" {
		if _, path, ok := strings.Cut(p, " "); ok {
			p = path // "GET /v1/projects" to "/v1/projects"
		}
		info.Route = p
	}
	info.Status = cmp.Or(w.status, http.StatusOK)
	info.Bytes = w.bytes
	info.Duration = time.Since(info.Start)
	if tracked != nil {
		*tracked = info
	}
	for _, fn := range h.cfg.observers {
		fn(r, info)
	}
	h.recordRequest(w, r, &info)
}

// infoOf returns the RequestInfo being built for the request w answers,
// or nil when w is not the handler's own writer or nobody observes the
// request.
func infoOf(w http.ResponseWriter) *RequestInfo {
	if tw, ok := w.(*trackingWriter); ok {
		return tw.info
	}
	return nil
}
