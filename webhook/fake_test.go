package webhook_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// clock is a clock the test moves.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// request is one request a receiver got.
type request struct {
	header http.Header
	body   []byte
}

// receiver is an httptest server on 127.0.0.1 that answers each request
// with the status answer returns, and passes it on to got.
type receiver struct {
	*httptest.Server
	got    chan request
	mu     sync.Mutex
	answer func(r *http.Request) int
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{got: make(chan request, 10000), answer: func(*http.Request) int { return 204 }}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		answer := rc.answer
		rc.mu.Unlock()
		code := answer(r)
		if code == http.StatusFound {
			w.Header().Set("Location", "/elsewhere")
		}
		w.WriteHeader(code)
		rc.got <- request{r.Header.Clone(), body}
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) setAnswer(f func(*http.Request) int) {
	rc.mu.Lock()
	rc.answer = f
	rc.mu.Unlock()
}

// next returns the next request, failing the test after 10 s without.
func (rc *receiver) next(t *testing.T) request {
	t.Helper()
	select {
	case r := <-rc.got:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("no delivery within 10 s")
		return request{}
	}
}

// none checks that no request comes while the dispatcher makes a few
// passes.
func (rc *receiver) none(t *testing.T, passes func()) {
	t.Helper()
	passes()
	select {
	case r := <-rc.got:
		t.Fatalf("unexpected delivery of %s", r.header.Get("webhook-id"))
	default:
	}
}
