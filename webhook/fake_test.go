package webhook_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/clientstatus/clientstatus/store"
)

// events is a store.Events of the tests' own, until the stores have one:
// events appended in order, ids evt_1, evt_2, ...
type events struct {
	mu      sync.Mutex
	byOrg   map[string][]store.Event
	n       int
	watches map[string][]chan struct{}
}

func newEvents() *events {
	return &events{byOrg: map[string][]store.Event{}, watches: map[string][]chan struct{}{}}
}

func (f *events) add(orgID string, e store.Event) store.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	e.ID = fmt.Sprintf("evt_%06d", f.n)
	if e.CreatedAt.IsZero() {
		e.CreatedAt = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	}
	f.byOrg[orgID] = append(f.byOrg[orgID], e)
	for _, c := range f.watches[orgID] {
		select {
		case c <- struct{}{}:
		default:
		}
	}
	return e
}

func (f *events) ListEvents(ctx context.Context, orgID string, q store.EventQuery) (store.EventPage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	all := f.byOrg[orgID]
	i := 0
	if q.After != "" {
		i = slices.IndexFunc(all, func(e store.Event) bool { return e.ID == q.After })
		if i < 0 {
			return store.EventPage{}, store.ErrUnknownCursor
		}
		i++
	}
	p := store.EventPage{Last: q.After, Total: len(all) - i}
	for _, e := range all[i:min(len(all), i+q.Limit)] {
		p.Events = append(p.Events, e)
		p.Last = e.ID
	}
	return p, nil
}

func (f *events) LatestEvent(ctx context.Context, orgID string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if all := f.byOrg[orgID]; len(all) > 0 {
		return all[len(all)-1].ID, nil
	}
	return "", nil
}

func (f *events) WatchEvents(ctx context.Context, orgID string) <-chan struct{} {
	c := make(chan struct{}, 1)
	f.mu.Lock()
	f.watches[orgID] = append(f.watches[orgID], c)
	f.mu.Unlock()
	go func() {
		<-ctx.Done()
		f.mu.Lock()
		f.watches[orgID] = slices.DeleteFunc(f.watches[orgID], func(x chan struct{}) bool { return x == c })
		f.mu.Unlock()
		close(c)
	}()
	return c
}

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
