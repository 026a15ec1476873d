package redislimit_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/internal/test/apitest"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/ratelimit/redislimit"
	"github.com/clientstatus/clientstatus/store"
)

// TestHandlersShareOneRedis checks that a starter client
// sending 100 requests in one window, spread over two replicas of the
// handler that share one Redis, gets exactly 60 through, and the 61st is
// refused whichever replica it hits.
func TestHandlersShareOneRedis(t *testing.T) {
	is := is.New(t)
	prefix := testPrefix(t)

	api := apitest.New(t)
	api.Org("org_a", store.PlanStarter)
	key1 := api.Mint("portal", "org_a")
	key2 := api.Mint("ci", "org_a")

	// Two replicas: each its own handler, limiter and Redis connection pool.
	replica := func() http.Handler {
		return api.Replica(redislimit.New(newClient(t, ""), ratelimit.WithPrefix(prefix),
			ratelimit.WithTimeout(5*time.Second), ratelimit.WithOutagePolicy(ratelimit.FailClosed)))
	}
	replicas := []http.Handler{replica(), replica()}
	get := func(i int, key string) *httptest.ResponseRecorder {
		return api.Serve(replicas[i%2], apitest.NewRequest(http.MethodGet, "/v1/projects", key))
	}

	codes := map[int]int{}
	for i := range 100 {
		key := key1
		if i%3 == 0 {
			key = key2 // the organization's keys share one budget
		}
		rec := get(i, key)
		codes[rec.Code]++
		if i == 60 || i == 61 { // the 61st on replica 0, the 62nd on replica 1
			is.Equal(rec.Code, http.StatusTooManyRequests) // refused whichever replica it hits
			is.True(rec.Header().Get("Retry-After") != "")
			is.Equal(rec.Header().Get("X-RateLimit-Remaining"), "0")
		}
	}
	is.Equal(codes[http.StatusOK], 60)              // exactly the plan's 60 through
	is.Equal(codes[http.StatusTooManyRequests], 40) // the rest refused
}
