package statusapi

import (
	"net/http"
	"slices"
)

// WithCORS lets browser pages on the given origins call the API with a
// key ("https://dashboard.client.example"; "*" for any origin, though a
// narrow list keeps keys out of pages that should not hold them). Off by
// default, and given no origin: no CORS headers. Credentials mode is
// never allowed. docs/handler.md, "Browser pages (CORS)", lists the
// headers and why this is safe.
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
