package statusclient_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/statusclient"
)

type refusal struct {
	status     int
	retryAfter string // "" for no Retry-After
}

// scriptedServer refuses the first requests as script says, then answers
// GET /v1/projects/{id} with a project. It counts the requests.
func scriptedServer(t *testing.T, script []refusal) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1)) - 1
		if i < len(script) {
			if script[i].retryAfter != "" {
				w.Header().Set("Retry-After", script[i].retryAfter)
			}
			code := map[int]string{429: "RATE_LIMITED", 503: "UNAVAILABLE", 500: "INTERNAL", 404: "NOT_FOUND"}[script[i].status]
			writeError(w, script[i].status, code, "refused", "")
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"data": map[string]string{"id": "p1"}})
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// recorder is a WithSleep hook that records the waits and does not sleep.
type recorder struct{ waits []time.Duration }

func (r *recorder) sleep(ctx context.Context, d time.Duration) error {
	r.waits = append(r.waits, d)
	return ctx.Err()
}

func TestRetry(t *testing.T) {
	httpDate := time.Now().Add(2 * time.Hour).UTC().Format(http.TimeFormat)
	tests := []struct {
		name        string
		script      []refusal
		maxAttempts int
		maxWait     time.Duration
		wantWaits   []time.Duration
		wantReqs    int64
		wantStatus  int // 0: success
	}{
		{"429 with Retry-After, then success", []refusal{{429, "7"}}, 3, time.Minute,
			[]time.Duration{7 * time.Second}, 2, 0},
		{"503 with Retry-After, then success", []refusal{{503, "1"}, {503, "2"}}, 3, time.Minute,
			[]time.Duration{time.Second, 2 * time.Second}, 3, 0},
		{"no Retry-After: 1s, 2s backoff", []refusal{{503, ""}, {429, ""}}, 3, time.Minute,
			[]time.Duration{time.Second, 2 * time.Second}, 3, 0},
		{"backoff capped by maxWait", []refusal{{503, ""}, {503, ""}}, 3, 1500 * time.Millisecond,
			[]time.Duration{time.Second, 1500 * time.Millisecond}, 3, 0},
		{"Retry-After: 0 retries at once", []refusal{{429, "0"}}, 3, time.Minute,
			[]time.Duration{0}, 2, 0},
		{"bound: never more than maxAttempts", []refusal{{429, "1"}, {429, "1"}, {429, "1"}, {429, "1"}}, 3, time.Minute,
			[]time.Duration{time.Second, time.Second}, 3, 429},
		{"maxAttempts 1 disables retrying", []refusal{{429, "1"}}, 1, time.Minute,
			nil, 1, 429},
		{"Retry-After beyond maxWait: no wait, no retry", []refusal{{429, "120"}}, 3, time.Minute,
			nil, 1, 429},
		{"Retry-After as an HTTP-date beyond maxWait", []refusal{{503, httpDate}}, 3, time.Minute,
			nil, 1, 503},
		{"other statuses are not retried", []refusal{{500, "1"}, {404, ""}}, 3, time.Minute,
			nil, 1, 500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			srv, reqs := scriptedServer(t, tt.script)
			rec := &recorder{}
			c := statusclient.New(srv.URL, "k", statusclient.WithRetry(tt.maxAttempts, tt.maxWait), statusclient.WithSleep(rec.sleep))
			p, resp, err := c.GetProject(context.Background(), "p1")
			is.Equal(rec.waits, tt.wantWaits)  // the waits asked for, in order
			is.Equal(reqs.Load(), tt.wantReqs) // requests sent
			if tt.wantStatus == 0 {
				is.NoErr(err)
				is.Equal(p.ID, "p1")
				is.Equal(resp.StatusCode, 200) // the Response of the last answer
				return
			}
			var apiErr *statusclient.Error
			is.True(errors.As(err, &apiErr)) // the last refusal is returned
			is.Equal(apiErr.StatusCode, tt.wantStatus)
			is.Equal(resp.StatusCode, tt.wantStatus) // with its Response
		})
	}
}

func TestRetryAfterIsReported(t *testing.T) {
	is := is.New(t)
	srv, _ := scriptedServer(t, []refusal{{429, "120"}})
	c := statusclient.New(srv.URL, "k")
	_, _, err := c.GetProject(context.Background(), "p1")
	var apiErr *statusclient.Error
	is.True(errors.As(err, &apiErr))
	is.Equal(apiErr.Code, statusclient.CodeRateLimited)
	is.Equal(apiErr.RetryAfter, 120*time.Second) // the caller can schedule its own retry
}

func TestRetryWaitHonoursContext(t *testing.T) {
	is := is.New(t)
	srv, reqs := scriptedServer(t, []refusal{{429, "5"}})
	ctx, cancel := context.WithCancel(context.Background())
	c := statusclient.New(srv.URL, "k", statusclient.WithSleep(func(ctx context.Context, d time.Duration) error {
		cancel() // the caller gives up during the wait
		<-ctx.Done()
		return ctx.Err()
	}))
	_, _, err := c.GetProject(ctx, "p1")
	is.True(errors.Is(err, context.Canceled)) // the cancellation is reported
	var apiErr *statusclient.Error
	is.True(errors.As(err, &apiErr)) // and so is the refusal it was waiting out
	is.Equal(apiErr.StatusCode, 429)
	is.Equal(reqs.Load(), int64(1)) // no request after the cancellation
}

func TestDefaultSleepHonoursContext(t *testing.T) {
	is := is.New(t)
	srv, reqs := scriptedServer(t, []refusal{{429, "30"}})
	ctx, cancel := context.WithCancel(context.Background())
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		res, err := http.DefaultTransport.RoundTrip(r)
		cancel() // the caller gives up once the refusal is in
		return res, err
	})}
	_, _, err := statusclient.New(srv.URL, "k", statusclient.WithHTTPClient(hc)).GetProject(ctx, "p1")
	is.True(errors.Is(err, context.Canceled)) // the 30s wait ends with the context
	var apiErr *statusclient.Error
	is.True(errors.As(err, &apiErr)) // it ended in the wait, not in a second request
	is.Equal(reqs.Load(), int64(1))  // one request only
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestOptionsZeroMeansDefault(t *testing.T) {
	is := is.New(t)
	srv, reqs := scriptedServer(t, []refusal{{503, ""}, {503, ""}, {503, ""}, {503, ""}})
	var ua string
	rec := &recorder{}
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		ua = r.Header.Get("User-Agent")
		return http.DefaultTransport.RoundTrip(r)
	})}
	c := statusclient.New(srv.URL, "k", statusclient.WithHTTPClient(hc), statusclient.WithSleep(rec.sleep),
		statusclient.WithRetry(0, 0), statusclient.WithUserAgent(""))
	_, _, err := c.GetProject(context.Background(), "p1")
	is.Equal(statusclient.ErrorCodeOf(err), statusclient.CodeUnavailable)
	is.Equal(reqs.Load(), int64(statusclient.DefaultMaxAttempts))      // WithRetry(0, ...): the default attempts
	is.Equal(rec.waits, []time.Duration{time.Second, 2 * time.Second}) // and the default backoff
	is.Equal(ua, statusclient.DefaultUserAgent)                        // WithUserAgent(""): the default

	srv, _ = scriptedServer(t, nil)
	c = statusclient.New(srv.URL, "k", statusclient.WithHTTPClient(nil), statusclient.WithSleep(nil))
	_, _, err = c.GetProject(context.Background(), "p1")
	is.NoErr(err) // nil hooks: the defaults, not a nil dereference
}

func TestOptionsPanicOnValuesWithoutDefault(t *testing.T) {
	tests := []struct {
		opt  statusclient.Option
		want string
	}{
		{statusclient.WithRetry(-1, time.Second), "statusclient: WithRetry: maxAttempts -1 is negative"},
		{statusclient.WithRetry(3, -time.Second), "statusclient: WithRetry: maxWait -1s is negative"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			is := is.New(t)
			defer func() {
				is.Equal(fmt.Sprint(recover()), tt.want) // New panics, naming the option
			}()
			statusclient.New("http://localhost/v1", "k", tt.opt)
			t.Fatal("New did not panic")
		})
	}
}
