package statusclient

import (
	"context"
	"time"
)

// Usage is the rate-limit budget of the key's organization, as its next
// request would find it. On an unlimited plan (enterprise) Limit,
// Remaining and ResetAt are nil.
type Usage struct {
	Plan      string     `json:"plan"`      // "starter", "growth" or "enterprise"
	Limit     *int       `json:"limit"`     // requests a window
	Remaining *int       `json:"remaining"` // requests left in this window
	ResetAt   *time.Time `json:"resetAt"`   // when Remaining is Limit again
}

// RateLimit returns the budget without spending any of it (GET
// /v1/rate_limit): it is never refused for the rate limit, and counts
// against none. Any valid key may call it, whatever its scopes. A server
// whose limiter cannot read a budget without spending it answers an
// *Error with Code CodeNotFound.
func (c *Client) RateLimit(ctx context.Context) (Usage, *Response, error) {
	env, resp, err := get[Usage](ctx, c, request{path: "/rate_limit"})
	return env.Data, resp, err
}
