package statusapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/ratelimit"
)

// usageOf decodes GET /v1/rate_limit's answer.
func usageOf(t *testing.T, api *testAPI, key string) map[string]any {
	t.Helper()
	res := api.do("GET", "/v1/rate_limit", key)
	is.New(t).Equal(res.Code, 200)
	var body struct {
		Data map[string]any `json:"data"`
	}
	is.New(t).NoErr(json.Unmarshal(res.Body.Bytes(), &body))
	return body.Data
}

// TestUsage reads the budget: what the last request left, without
// spending any, never 429; an unlimited plan has null figures.
func TestUsage(t *testing.T) {
	is := is.New(t)
	api := newTestAPI(t)
	// The limiter counts on the real clock, whatever the handler's.
	before := time.Now()
	u := usageOf(t, api, "a")
	reset, err := time.Parse(time.RFC3339, u["resetAt"].(string))
	is.NoErr(err)
	is.True(!reset.Before(before.Add(time.Minute).Truncate(time.Second))) // a window opened now would end a minute on
	is.True(!reset.After(time.Now().Add(time.Minute + time.Second)))      // rounded up to the second
	delete(u, "resetAt")
	is.Equal(u, map[string]any{"plan": "starter", "limit": 60.0, "remaining": 60.0}) // a full budget

	res := api.do("GET", "/v1/projects", "a")
	is.Equal(res.Header().Get("X-RateLimit-Remaining"), "59")
	window := res.Header().Get("X-RateLimit-Reset")
	for range 5 {
		u = usageOf(t, api, "a2") // another key of org_a: one budget
		is.Equal(u["remaining"], 59.0)
		reset, err = time.Parse(time.RFC3339, u["resetAt"].(string))
		is.NoErr(err)
		is.Equal(fmt.Sprint(reset.Unix()), window) // the window the request counted in
	}
	limit := api.do("GET", "/v1/rate_limit", "a")
	is.Equal(limit.Header().Get("X-RateLimit-Limit"), "")                                    // reading the budget is not rate limited
	is.Equal(api.do("GET", "/v1/projects", "a").Header().Get("X-RateLimit-Remaining"), "58") // and spent nothing

	for range 58 {
		api.do("GET", "/v1/projects", "a")
	}
	is.Equal(api.do("GET", "/v1/projects", "a").Code, 429)
	u = usageOf(t, api, "a") // never 429
	is.Equal(u["remaining"], 0.0)
	reset, err = time.Parse(time.RFC3339, u["resetAt"].(string))
	is.NoErr(err)
	is.Equal(fmt.Sprint(reset.Unix()), window) // still the same window

	u = usageOf(t, api, "e")
	is.Equal(u, map[string]any{"plan": "enterprise", "limit": nil, "remaining": nil, "resetAt": nil}) // unlimited: null figures

	for _, key := range auth.AllScopes {
		is.Equal(api.do("GET", "/v1/rate_limit", string(key)).Code, 200) // any valid key, whatever its scopes
	}
	is.Equal(api.do("GET", "/v1/rate_limit", "p1 only").Code, 200)
}

// TestUsageErrors walks the other answers of GET /v1/rate_limit.
func TestUsageErrors(t *testing.T) {
	is := is.New(t)
	api := newTestAPI(t)
	is.Equal(api.do("GET", "/v1/rate_limit", "").Code, 401)
	is.Equal(api.do("GET", "/v1/rate_limit", "revoked").Code, 401)
	res := api.do("GET", "/v1/rate_limit", "noretainer")
	is.Equal(res.Code, 403)
	is.Equal(errorOf(t, res).Error.Code, "FORBIDDEN")
	res = api.do("GET", "/v1/rate_limit?page=1", "a")
	is.Equal(res.Code, 400) // no parameter
	is.Equal(errorOf(t, res).Error.Param, "page")
	get := api.do("GET", "/v1/rate_limit", "a")
	res = api.do("GET", "/v1/rate_limit", "a", "If-None-Match", get.Header().Get("ETag"))
	is.Equal(res.Code, 304) // nothing changed
	is.Equal(api.do("HEAD", "/v1/rate_limit", "a").Code, 200)
	is.Equal(api.do("POST", "/v1/rate_limit", "a").Code, 405)

	for _, tc := range []struct {
		err    error
		status int
	}{
		{fmt.Errorf("redis: %w", ratelimit.ErrUnavailable), 503},
		{errors.New("redis: WRONGTYPE"), 500},
	} {
		res := api.Serve(api.Replica(peekFails{ratelimit.NewMemory(), tc.err}), api.Request("GET", "/v1/rate_limit", "a"))
		is.Equal(res.Code, tc.status) // tc.err
	}
}

// peekFails is a limiter whose Peek fails with err.
type peekFails struct {
	ratelimit.Limiter
	err error
}

func (l peekFails) Peek(context.Context, auth.Principal) (ratelimit.Decision, error) {
	return ratelimit.Decision{}, l.err
}
