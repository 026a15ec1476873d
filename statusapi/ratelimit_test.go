package statusapi_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/store"
)

func TestStarterRateLimit(t *testing.T) {
	is := is.New(t)
	api := newTestAPI(t)
	for i := 1; i <= 60; i++ {
		// The two keys of org_a and every route share one budget.
		key := []string{"a", "a2"}[i%2]
		res := api.do("GET", routes[i%len(routes)], key)
		is.Equal(res.Code, 200)                                                 // within the budget
		is.Equal(res.Header().Get("X-RateLimit-Limit"), "60")                   // starter
		is.Equal(res.Header().Get("X-RateLimit-Remaining"), strconv.Itoa(60-i)) // the org's keys share it
		reset, err := strconv.ParseInt(res.Header().Get("X-RateLimit-Reset"), 10, 64)
		is.NoErr(err)                                 // X-RateLimit-Reset is Unix seconds
		is.True(reset > 1e9)                          // a Unix time, not a delay
		is.Equal(res.Header().Get("Retry-After"), "") // only on a refusal
	}
	for _, key := range []string{"a", "a2"} {
		res := api.do("GET", "/v1/invoices", key)
		is.Equal(res.Code, 429) // the 61st request of the minute
		is.Equal(errorOf(t, res).Error.Code, "RATE_LIMITED")
		is.Equal(res.Header().Get("X-RateLimit-Limit"), "60")
		is.Equal(res.Header().Get("X-RateLimit-Remaining"), "0")
		is.True(res.Header().Get("X-RateLimit-Reset") != "")
		retry, err := strconv.Atoi(res.Header().Get("Retry-After"))
		is.NoErr(err)                      // Retry-After is seconds
		is.True(retry >= 1 && retry <= 61) // within the window
	}
	res := api.do("GET", "/v1/invoices", "b")
	is.Equal(res.Code, 200) // another org has its own budget

	res = api.do("GET", "/v1/invoices", "revoked")
	is.Equal(res.Code, 401) // a bad key is still told so, not 429
}

func TestGrowthHeaders(t *testing.T) {
	is := is.New(t)
	api := newTestAPI(t)
	res := api.do("GET", "/v1/projects", "b")
	is.Equal(res.Code, 200)
	is.Equal(res.Header().Get("X-RateLimit-Limit"), "300") // growth
	is.Equal(res.Header().Get("X-RateLimit-Remaining"), "299")
	is.True(res.Header().Get("X-RateLimit-Reset") != "")
}

func TestEnterpriseUnlimited(t *testing.T) {
	is := is.New(t)
	api := newTestAPI(t)
	for i := 0; i < 400; i++ {
		res := api.do("GET", "/v1/projects", "e")
		is.Equal(res.Code, 200) // never limited
		for _, h := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After"} {
			is.Equal(res.Header().Get(h), "") // no rate-limit headers
		}
	}
}

func TestErrorsAfterTheLimitCarryItsHeaders(t *testing.T) {
	is := is.New(t)
	api := newTestAPI(t)
	for _, target := range []string{"/v1/invoices?page=0", "/v1/projects/nope"} {
		res := api.do("GET", target, "a")
		is.True(res.Code == 400 || res.Code == 404)
		is.Equal(res.Header().Get("X-RateLimit-Limit"), "60") // limited responses carry the headers
	}
	res := api.do("GET", "/v1/projects", "a")
	is.Equal(res.Header().Get("X-RateLimit-Remaining"), "57") // bad parameters and 404s count
}

func TestRateLimitedOnEveryRoute(t *testing.T) {
	api := newTestAPIWith(t, setup{limits: []ratelimit.Option{
		ratelimit.WithRate(store.PlanStarter, ratelimit.Rate{Limit: 1, Period: time.Minute}),
	}})
	link, _ := api.link("d1") // spends org_a's one request
	for _, path := range routes {
		is := is.New(t)
		res := api.do("GET", path, "a")
		is.Equal(res.Code, 429) // every authenticated route is limited
		is.Equal(errorOf(t, res).Error.Code, "RATE_LIMITED")
		is.True(res.Header().Get("Retry-After") != "")
	}
	is.New(t).Equal(api.fetch("GET", link).Code, 200) // the signed link is not
}
