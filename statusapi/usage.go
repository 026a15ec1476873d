package statusapi

import (
	"net/http"
)

// usage is the caller's rate-limit budget on the wire: null figures on an
// unlimited plan.
type usage struct {
	Plan      string  `json:"plan"`
	Limit     *int64  `json:"limit"`
	Remaining *int64  `json:"remaining"`
	ResetAt   *string `json:"resetAt"`
}

var _ = registerRoutes(usageRoutes)

// usageRoutes is GET /v1/rate_limit (ratelimit.Limiter's Peek).
func usageRoutes(h *handler) []route {
	// Needs a key but no scope, and spends nothing.
	return []route{route{path: "/v1/rate_limit", handler: h.unmetered(h.getUsage), keyed: true,
		exempt: "keyed but reads no store and costs nothing: usage_test.go"}.describe(operation{
		id: "getRateLimit", tag: "Meta",
		summary:     "Get the rate-limit budget",
		description: "The rate-limit budget of the key's organization, without spending any of it: never 429, and not counted. Any valid key may ask; it needs no scope.",
		params:      []string{"IfNoneMatch"},
		responses:   map[int]string{200: "UsageResponse", 304: "NotModifiedUsage", 429: ""},
	})}
}

// getUsage serves GET /v1/rate_limit: the budget of the caller's
// organization as its next request would find it, never 429.
func (h *handler) getUsage(r *http.Request, c caller) (response, error) {
	if err := noParams(r); err != nil {
		return response{}, err
	}
	d, err := h.lim.Peek(r.Context(), c.Principal)
	if err != nil {
		return response{}, err
	}
	out := usage{Plan: string(c.Org.Plan)}
	if d.Limited {
		reset := timestamp(d.Reset)
		out.Limit, out.Remaining, out.ResetAt = &d.Limit, &d.Remaining, &reset
	}
	return item(out), nil
}
