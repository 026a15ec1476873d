package statusapi_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/store"
)

// TestUnavailableLogIsPaced checks that an outage logs one line, at its
// first failed request, then at most one per UnavailableLogInterval, with
// the number of requests failed since the line before.
func TestUnavailableLogIsPaced(t *testing.T) {
	is := is.New(t)
	down := newFailStore(fmt.Errorf("bunstore: dial tcp db:5432: %w", store.ErrUnavailable))
	api := newTestAPIWith(t, setup{wrap: func(store.Store) store.Store { return down }})
	lines := func() []string {
		var out []string
		for _, l := range strings.Split(api.logs.String(), "\n") {
			if strings.Contains(l, "backend unavailable") {
				out = append(out, l)
			}
		}
		return out
	}
	fail := func(n int, id string) {
		for i := range n {
			res := api.do("GET", "/v1/projects", "b", "X-Request-Id", fmt.Sprintf("%s-%d", id, i))
			is.Equal(res.Code, 503)
		}
	}

	fail(50, "first")
	is.Equal(len(lines()), 1)                                   // 50 failed requests, one line
	is.True(strings.Contains(lines()[0], "level=ERROR"))        // an error: clients are refused
	is.True(strings.Contains(lines()[0], "failed_requests=1"))  // the first request logs at once
	is.True(strings.Contains(lines()[0], "request_id=first-0")) // with its request id
	is.True(strings.Contains(lines()[0], "dial tcp db:5432"))   // and the cause

	api.clock.Advance(statusapi.UnavailableLogInterval - time.Second)
	fail(1, "early")
	is.Equal(len(lines()), 1) // not again within the interval

	api.clock.Advance(time.Second)
	fail(1, "later")
	is.Equal(len(lines()), 2)                                   // once the interval is over, one more line
	is.True(strings.Contains(lines()[1], "failed_requests=51")) // counting the requests failed since the last
	is.True(strings.Contains(lines()[1], "request_id=later-0"))
	is.True(!strings.Contains(api.logs.String(), api.Key("b"))) // never the key
}
