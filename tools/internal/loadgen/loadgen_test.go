package loadgen_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/tools/internal/loadgen"
)

// A run shorter than one answer still reports the answer of every
// client: the requests in flight when the time is up finish, and a rate
// has something to count however slow the server.
func TestRunCountsTheAnswersInFlight(t *testing.T) {
	is := is.New(t)
	release := make(chan struct{})
	var arrived atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if arrived.Add(1) == 3 {
			close(release) // every client has a request in flight
		}
		<-release
	}))
	defer srv.Close()

	var answers atomic.Int64
	_, err := loadgen.Run(context.Background(), srv.Client(), 3, time.Nanosecond,
		func(int) (*http.Request, error) { return loadgen.Get(srv.URL, "key") },
		func(_ int, resp *http.Response, _ time.Duration, err error) error {
			if err == nil && resp.StatusCode == http.StatusOK {
				answers.Add(1)
			}
			return err
		})
	is.NoErr(err)
	is.True(answers.Load() >= 3)             // an answer of each client
	is.Equal(answers.Load(), arrived.Load()) // none lost to the deadline
}
