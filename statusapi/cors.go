package statusapi

import (
	"net/http"
	"slices"
)

// WithCORS lets browser pages on the given origins call the API with a
// key ("https://dashboard.client.example"; "*" for any origin). Off by
// default: without it the handler sends no CORS headers and a browser
// refuses cross-origin calls.
//
// A request whose Origin is allowed gets Access-Control-Allow-Origin (that
// origin, and Vary: Origin) and Access-Control-Expose-Headers for the
// headers a client reads (ETag, Link, X-Request-Id, X-RateLimit-*,
// Retry-After, Deprecation, Sunset). A preflight (OPTIONS with Access-Control-Request-Method) to
// a /v1 path from an allowed origin is answered 204 with GET and HEAD, the
// Authorization, If-None-Match and X-Request-Id request headers, and a
// max age of ten minutes; from any other origin it is answered as today
// (405).
//
// Why this is safe: the API authenticates by a bearer key in the
// Authorization header, never by cookies, and credentials mode is never
// allowed (no Access-Control-Allow-Credentials). A page can only use a key
// it already holds, so CORS grants no site a power it did not have; it
// only lets a client's own dashboard call the API directly. Still, list
// the dashboard's origins rather than "*": a key pasted into a page is as
// exposed as the page, and a narrow list keeps keys out of pages that
// should not hold them. WithCORS given no origin changes nothing.
func WithCORS(origins ...string) Option {
	return func(c *config) { c.corsOrigins = append(c.corsOrigins, origins...) }
}

// Headers of CORS.
const (
	corsExposed      = "ETag, Link, X-Request-Id, X-Sandbox, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, Deprecation, Sunset"
	corsAllowHeaders = "Authorization, If-None-Match, X-Request-Id"
)

// cors writes the CORS headers of r when its origin is allowed, and
// answers a preflight, reporting whether it did.
func (h *handler) cors(w http.ResponseWriter, r *http.Request) (answered bool) {
	if len(h.cfg.corsOrigins) == 0 {
		return false
	}
	origin := r.Header.Get("Origin")
	if origin == "" || !h.corsAllowed(origin) {
		return false
	}
	hd := w.Header()
	hd.Add("Vary", "Origin")
	hd.Set("Access-Control-Allow-Origin", origin)
	if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
		hd.Set("Access-Control-Allow-Methods", "GET, HEAD")
		hd.Set("Access-Control-Allow-Headers", corsAllowHeaders)
		hd.Set("Access-Control-Max-Age", "600")
		w.WriteHeader(http.StatusNoContent)
		return true
	}
	hd.Set("Access-Control-Expose-Headers", corsExposed)
	return false
}

func (h *handler) corsAllowed(origin string) bool {
	return slices.Contains(h.cfg.corsOrigins, "*") || slices.Contains(h.cfg.corsOrigins, origin)
}
