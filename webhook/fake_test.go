package webhook_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/store"
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

// none checks that no request comes: once the dispatcher has made a pass
// that found nothing to attempt (see watched.idle), any delivery it made
// has reached the receiver.
func (rc *receiver) none(t *testing.T, f *fixture) {
	t.Helper()
	f.st.idle(t)
	select {
	case r := <-rc.got:
		t.Fatalf("unexpected delivery of %s", r.header.Get("webhook-id"))
	default:
	}
}

// watched is the dispatcher's store, watched: it counts the dispatcher's
// passes (each starts with EnabledWebhookEndpoints), the jobs it claimed
// and the attempts it finished, so that a test can wait for the dispatcher
// to have nothing left to do at the clock's time instead of sleeping.
type watched struct {
	*memstore.Store

	mu                       sync.Mutex
	passes, claimed, settled int
	claims                   int           // ClaimWebhookJobs calls
	idlePass                 int           // the last pass that claimed nothing with no attempt in flight
	moved                    chan struct{} // closed and replaced when idlePass moves
}

func newWatched() *watched { return &watched{Store: memstore.New(), moved: make(chan struct{})} }

func (w *watched) EnabledWebhookEndpoints(ctx context.Context) ([]store.WebhookEndpoint, error) {
	w.mu.Lock()
	w.passes++
	w.mu.Unlock()
	return w.Store.EnabledWebhookEndpoints(ctx)
}

func (w *watched) ClaimWebhookJobs(ctx context.Context, now time.Time, limit int, claim time.Duration) ([]store.WebhookJob, error) {
	jobs, err := w.Store.ClaimWebhookJobs(ctx, now, limit, claim)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.claims++
	w.claimed += len(jobs)
	if err == nil && len(jobs) == 0 && w.settled == w.claimed {
		w.idlePass = w.passes
		close(w.moved)
		w.moved = make(chan struct{})
	}
	return jobs, err
}

func (w *watched) FinishWebhookAttempt(ctx context.Context, job store.WebhookJob, d store.WebhookDelivery, o store.WebhookOutcome) error {
	err := w.Store.FinishWebhookAttempt(ctx, job, d, o)
	w.mu.Lock()
	w.settled++
	w.mu.Unlock()
	return err
}

// idle waits for a pass of the dispatcher begun after the call (so it saw
// the events added and the clock as moved before it) that found no job
// due, with every attempt it had started finished (so their requests
// have reached the receiver). It fails the test after 10 s without.
func (w *watched) idle(t *testing.T) {
	t.Helper()
	w.mu.Lock()
	from := w.passes
	for w.idlePass <= from {
		moved := w.moved
		w.mu.Unlock()
		select {
		case <-moved:
		case <-time.After(10 * time.Second):
			t.Fatal("the dispatcher was not idle within 10 s")
		}
		w.mu.Lock()
	}
	w.mu.Unlock()
}

// counts returns the passes and the claims made so far.
func (w *watched) counts() (passes, claims int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.passes, w.claims
}
