package statusapi

import (
	"net/http"

	"github.com/clientstatus/clientstatus/internal/apidoc"
)

// usage is the caller's rate-limit budget on the wire: null figures on an
// unlimited plan.
type usage struct {
	Plan      string  `json:"plan" oa:"enum=starter|growth|enterprise"`
	Limit     *int64  `json:"limit" oa:"format=int64,minimum=1"`
	Remaining *int64  `json:"remaining" oa:"format=int64,minimum=0"`
	ResetAt   *string `json:"resetAt" oa:"time"`
}

var usageWire = describeWire[usage](apidoc.Wire{
	Name:        "Usage",
	Description: "The rate-limit budget of the key's organization, as its next request would find it. On an unlimited plan (enterprise) `limit`, `remaining` and `resetAt` are `null`.",
	Examples:    `[{"plan": "starter", "limit": 60, "remaining": 42, "resetAt": "2026-03-01T09:01:00Z"}, {"plan": "enterprise", "limit": null, "remaining": null, "resetAt": null}]`,
	Fields: map[string]string{
		"plan":      "The organization's plan.",
		"limit":     "Requests a window; `null` on an unlimited plan.",
		"remaining": "Requests left in the current window (the whole budget when none is in progress); `null` on an unlimited plan.",
		"resetAt":   "When the current window ends and `remaining` is `limit` again (with no window in progress, when one opened now would end); `null` on an unlimited plan.",
	},
})

// usageRoutes is GET /v1/rate_limit (ratelimit.Limiter's Peek).
func (h *handler) usageRoutes() []route {
	// Needs a key but no scope, and spends nothing.
	return []route{route{path: "/v1/rate_limit", handler: h.unmetered(h.getUsage), keyed: true,
		exempt: "keyed but reads no store and costs nothing: usage_test.go"}.answers(itemAnswer[usage]()).describe(operation{
		ID: "getRateLimit", Tag: "Meta",
		Summary:     "Get the rate-limit budget",
		Description: "The rate-limit budget of the key's organization, without spending any of it: never 429, and not counted. Any valid key may ask; it needs no scope.",
		Responses:   map[int]string{200: "UsageResponse", 304: "NotModifiedUsage", 429: ""},
	}, params.IfNoneMatch)}
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
