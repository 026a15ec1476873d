package statusapi_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/internal/test/apitest"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/store"
)

func TestAuthentication(t *testing.T) {
	api := newTestAPIWith(t, unlimited) // three passes over every route: more than a plan's minute
	key := api.Key("a")
	for _, tc := range []struct {
		name          string
		authorization []string // Authorization header values
		status        int
		code          string
	}{
		{"no header", nil, 401, "UNAUTHORIZED"},
		{"empty header", []string{""}, 401, "UNAUTHORIZED"},
		{"scheme only", []string{"Bearer"}, 401, "UNAUTHORIZED"},
		{"scheme and space", []string{"Bearer "}, 401, "UNAUTHORIZED"},
		{"wrong scheme", []string{"Basic " + key}, 401, "UNAUTHORIZED"},
		{"token scheme", []string{"Token " + key}, 401, "UNAUTHORIZED"},
		{"key without scheme", []string{key}, 401, "UNAUTHORIZED"},
		{"two spaces", []string{"Bearer  " + key}, 401, "UNAUTHORIZED"},
		{"two credentials", []string{"Bearer " + key + " " + key}, 401, "UNAUTHORIZED"},
		{"two headers", []string{"Bearer " + key, "Bearer " + key}, 401, "UNAUTHORIZED"},
		{"unknown key", []string{"Bearer csk_not_a_real_key"}, 401, "UNAUTHORIZED"},
		{"key with a changed character", []string{"Bearer " + key[:len(key)-1] + flip(key[len(key)-1])}, 401, "UNAUTHORIZED"},
		{"revoked key", []string{"Bearer " + api.Key("revoked")}, 401, "UNAUTHORIZED"},
		{"expired key", []string{"Bearer " + api.Key("expired")}, 401, "UNAUTHORIZED"},
		{"no active retainer", []string{"Bearer " + api.Key("noretainer")}, 403, "FORBIDDEN"},
		{"API access disabled", []string{"Bearer " + api.Key("noapi")}, 403, "FORBIDDEN"},
		{"Bearer", []string{"Bearer " + key}, 200, ""},
		{"bearer lowercase", []string{"bearer " + key}, 200, ""},
		{"BEARER uppercase", []string{"BEARER " + key}, 200, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, path := range routes {
				is := is.New(t)
				req, _ := http.NewRequest("GET", path, nil)
				for _, v := range tc.authorization {
					req.Header.Add("Authorization", v)
				}
				res := api.serve(req)
				is.Equal(res.Code, tc.status) // status for path
				if tc.code == "" {
					continue
				}
				e := errorOf(t, res)
				is.Equal(e.Error.Code, tc.code)
				if tc.status == 401 {
					is.Equal(res.Header().Get("WWW-Authenticate"), "Bearer") // a 401 names the scheme
				}
				is.True(!strings.Contains(res.Body.String(), key)) // the key is never echoed
			}
		})
	}
	is.New(t).True(!strings.Contains(api.logs.String(), key)) // nor logged
}

func flip(c byte) string {
	if c == 'A' {
		return "B"
	}
	return "A"
}

func TestRefusedRequestsCostNothing(t *testing.T) {
	is := is.New(t)
	api := newTestAPI(t)
	// 70 refused requests of org_a's keys, more than its 60 a minute.
	for i := 0; i < 70; i++ {
		for _, key := range []string{"revoked", "expired"} {
			res := api.do("GET", "/v1/projects", key)
			is.Equal(res.Code, 401)
			is.Equal(res.Header().Get("X-RateLimit-Limit"), "") // a 401 is not limited
		}
		res := api.do("GET", "/v1/projects", "noretainer")
		is.Equal(res.Code, 403)
		is.Equal(res.Header().Get("X-RateLimit-Limit"), "") // a 403 is not limited
	}
	res := api.do("GET", "/v1/projects", "a")
	is.Equal(res.Code, 200)
	is.Equal(res.Header().Get("X-RateLimit-Remaining"), "59") // only this request counted
}

func TestKeyStoreUnavailable(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"ErrUnavailable", fmt.Errorf("bunstore: %w", auth.ErrUnavailable)},
		{"deadline", context.DeadlineExceeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			keys := auth.ResolverFunc(func(context.Context, string) (auth.Principal, error) { return auth.Principal{}, tc.err })
			h := apitest.Handler(memstore.New(), keys, nil)
			res := serveWith(t, h, apitest.NewRequest("GET", "/v1/projects", "whatever"))
			is.Equal(res.Code, 503)
			is.Equal(errorOf(t, res).Error.Code, "UNAVAILABLE")
			is.Equal(res.Header().Get("Retry-After"), "1") // retry in a second
		})
	}
}

func TestLimiterUnavailable(t *testing.T) {
	is := is.New(t)
	keys := auth.ResolverFunc(func(context.Context, string) (auth.Principal, error) {
		return auth.Principal{Org: store.Organization{ID: "o", Plan: store.PlanStarter, RetainerActive: true, APIEnabled: true}}, nil
	})
	h := apitest.Handler(memstore.New(), keys, downLimiter{})
	res := serveWith(t, h, apitest.NewRequest("GET", "/v1/projects", "whatever"))
	is.Equal(res.Code, 503)
	is.Equal(errorOf(t, res).Error.Code, "UNAVAILABLE")
	is.Equal(res.Header().Get("Retry-After"), "1") // retry in a second
}

// downLimiter is a limiter whose store is down and that fails closed.
type downLimiter struct{}

func (downLimiter) Allow(context.Context, auth.Principal) (ratelimit.Decision, error) {
	return ratelimit.Decision{}, fmt.Errorf("redis: %w", ratelimit.ErrUnavailable)
}
func (downLimiter) Refund(context.Context, auth.Principal) error { return ratelimit.ErrUnavailable }
func (downLimiter) Peek(context.Context, auth.Principal) (ratelimit.Decision, error) {
	return ratelimit.Decision{}, fmt.Errorf("redis: %w", ratelimit.ErrUnavailable)
}
func (downLimiter) Ping(context.Context) error {
	return fmt.Errorf("redis: %w", ratelimit.ErrUnavailable)
}
