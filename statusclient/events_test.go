package statusclient_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/internal/test/apitest"
	"github.com/clientstatus/clientstatus/internal/test/eventtest"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/statusclient"
	"github.com/clientstatus/clientstatus/store"
)

// eventServer runs the real handler on a store whose events the test
// adds, with the key "example-key" of org_a (enterprise: no rate limit).
// wrap, when not nil, wraps the handler.
func eventServer(t testing.TB, wrap func(http.Handler) http.Handler) (*httptest.Server, *eventtest.Store) {
	ctx := context.Background()
	st := eventtest.New(memstore.New())
	keys := auth.NewKeys(auth.NewMemoryKeyStore(st.Store))
	if err := st.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "Acme", Plan: store.PlanEnterprise, RetainerActive: true, APIEnabled: true}); err != nil {
		panic(err)
	}
	if _, err := keys.Import(ctx, "org_a", "example", "example-key", nil); err != nil {
		panic(err)
	}
	h := apitest.Handler(st, keys, nil)
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(h)
	if t != nil {
		t.Cleanup(srv.Close)
	}
	return srv, st
}

func paid(n int) []store.Event {
	out := make([]store.Event, n)
	for i := range out {
		out[i] = store.Event{Type: "invoice.paid", Kind: store.KindInvoice, ItemID: fmt.Sprintf("inv_%d", i+1),
			PreviousStatus: "open", CreatedAt: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
	}
	return out
}

func TestAllEvents(t *testing.T) {
	is := is.New(t)
	var requests int
	srv, st := eventServer(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { requests++; h.ServeHTTP(w, r) })
	})
	st.Add("org_a", paid(250)...)
	c := statusclient.New(srv.URL, "example-key")
	ctx := context.Background()

	var got []string
	for e, err := range c.AllEvents(ctx, statusclient.EventListOptions{}) {
		is.NoErr(err)
		got = append(got, e.ID)
	}
	is.Equal(len(got), 250)
	is.Equal(got[0], "evt_1")
	is.Equal(got[249], "evt_250")
	is.Equal(requests, 3) // pages of MaxLimit, and no request past the last

	events, resp, err := c.ListEvents(ctx, statusclient.EventListOptions{After: "evt_240", Types: []string{"invoice.paid", "invoice.void"}, Limit: 5})
	is.NoErr(err)
	is.Equal(resp.Meta.Total, 10)
	is.Equal(len(events), 5)
	is.Equal(events[0].ID, "evt_241")
	is.Equal(events[0].Type, "invoice.paid")
	is.Equal(*events[0].Data.PreviousStatus, "open")
	is.Equal(events[0].Data.Object, statusclient.DeletionInvoice)
	is.True(events[0].Data.ProjectID == nil)

	_, _, err = c.ListEvents(ctx, statusclient.EventListOptions{After: "evt_999"})
	is.True(errors.Is(err, statusclient.ErrResyncRequired)) // an after the server does not keep
	for _, err := range c.AllEvents(ctx, statusclient.EventListOptions{After: "evt_999"}) {
		is.True(errors.Is(err, statusclient.ErrResyncRequired))
	}
}

// TestStreamResumes: the stream yields the backlog and new events; when
// the connection drops, it reconnects with Last-Event-ID and misses
// nothing, nor repeats anything.
func TestStreamResumes(t *testing.T) {
	is := is.New(t)
	var mu sync.Mutex
	var lastEventIDs []string
	srv, st := eventServer(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			lastEventIDs = append(lastEventIDs, r.Header.Get("Last-Event-ID"))
			mu.Unlock()
			h.ServeHTTP(w, r)
		})
	})
	st.Add("org_a", paid(3)...)
	var waits recorder
	c := statusclient.New(srv.URL, "example-key", statusclient.WithSleep(waits.sleep))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	var got []string
	for e, err := range c.Stream(ctx, "evt_1") {
		is.NoErr(err)
		got = append(got, e.ID)
		switch e.ID {
		case "evt_3":
			st.Add("org_a", paid(1)...) // live
		case "evt_4":
			srv.CloseClientConnections() // the connection drops
			st.Add("org_a", paid(2)...)  // while no stream is open
		}
		if e.ID == "evt_6" {
			break
		}
	}
	is.Equal(got, []string{"evt_2", "evt_3", "evt_4", "evt_5", "evt_6"})
	mu.Lock()
	defer mu.Unlock()
	is.Equal(lastEventIDs, []string{"", "evt_4"}) // resumed from the last event yielded
	is.Equal(len(waits.waits), 1)
	is.True(waits.waits[0] >= 500*time.Millisecond && waits.waits[0] <= time.Second) // the first backoff, with jitter
}

// TestStreamRetries: 429 and 503 are waited out as Retry-After says, or
// with a growing backoff; errors reconnecting cannot mend end the stream.
func TestStreamRetries(t *testing.T) {
	is := is.New(t)
	srv, _ := scriptedServer(t, []refusal{{429, "7"}, {503, ""}, {503, ""}, {404, ""}})
	var waits recorder
	c := statusclient.New(srv.URL, "example-key", statusclient.WithSleep(waits.sleep))
	var errs []error
	for _, err := range c.Stream(context.Background(), "") {
		errs = append(errs, err)
	}
	is.Equal(len(errs), 1)                                                 // only the final error is yielded
	is.Equal(statusclient.ErrorCodeOf(errs[0]), statusclient.CodeNotFound) // a server without events
	is.Equal(len(waits.waits), 3)
	is.Equal(waits.waits[0], 7*time.Second)                                     // Retry-After
	is.True(waits.waits[1] >= time.Second && waits.waits[1] <= 2*time.Second)   // backoff, second attempt
	is.True(waits.waits[2] >= 2*time.Second && waits.waits[2] <= 4*time.Second) // backoff, third attempt

	srv2, _ := eventServer(t, nil)
	c = statusclient.New(srv2.URL, "example-key")
	for _, err := range c.Stream(context.Background(), "evt_999") {
		is.True(errors.Is(err, statusclient.ErrResyncRequired)) // an after the server does not keep
	}
	c = statusclient.New(srv.URL, "example-key")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, err := range c.Stream(ctx, "") {
		is.True(errors.Is(err, context.Canceled)) // ctx's error ends it
	}
}

// TestStreamNotAStream: a server that answers the stream with JSON (one
// without the live stream) is an error, not a silent loop.
func TestStreamNotAStream(t *testing.T) {
	is := is.New(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"data": []any{}})
	}))
	defer srv.Close()
	for _, err := range statusclient.New(srv.URL, "k").Stream(context.Background(), "") {
		is.True(err != nil && strings.Contains(err.Error(), "text/event-stream"))
	}
}

// Read every event after the last one handled, then resume from the last
// one read.
func ExampleClient_AllEvents() {
	srv, st := eventServer(nil, nil)
	defer srv.Close()
	st.Add("org_a", paid(3)...)
	c := statusclient.New(srv.URL+"/v1", "example-key")

	last := "evt_1" // kept from the previous run
	for e, err := range c.AllEvents(context.Background(), statusclient.EventListOptions{After: last}) {
		if err != nil {
			fmt.Println("error:", err) // errors.Is(err, statusclient.ErrResyncRequired): load everything again
			return
		}
		fmt.Println(e.ID, e.Type, e.Data.ID, "was", *e.Data.PreviousStatus)
		last = e.ID
	}
	fmt.Println("resume after", last)
	// Output:
	// evt_2 invoice.paid inv_2 was open
	// evt_3 invoice.paid inv_3 was open
	// resume after evt_3
}

// Follow the live stream: new events as they commit, resuming by itself
// after a dropped connection.
func ExampleClient_Stream() {
	srv, st := eventServer(nil, nil)
	defer srv.Close()
	c := statusclient.New(srv.URL+"/v1", "example-key")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	st.Add("org_a", paid(1)...) // before the stream: not sent, as no after is given
	go func() {
		// Meanwhile, in the portal (once the stream is open):
		for !st.Watched("org_a") {
			runtime.Gosched()
		}
		st.Add("org_a", paid(2)...)
	}()
	for e, err := range c.Stream(ctx, "") {
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		fmt.Println(e.ID, e.Type)
		if e.ID == "evt_3" {
			break // closes the stream
		}
	}
	// Output:
	// evt_2 invoice.paid
	// evt_3 invoice.paid
}

// TestStreamEndingAtOnceBacksOff: a server that accepts the stream and
// ends it at once, again and again, is reconnected to with a growing,
// capped backoff, and the client says so once in its log.
func TestStreamEndingAtOnceBacksOff(t *testing.T) {
	is := is.New(t)
	var conns atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conns.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte("id: evt_1\n\n")) // the cursor frame, then the end
	}))
	defer srv.Close()
	var logs strings.Builder
	var waits recorder
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sleep := func(ctx context.Context, d time.Duration) error {
		if len(waits.waits) == 12 {
			cancel()
		}
		return waits.sleep(ctx, d)
	}
	c := statusclient.New(srv.URL, "example-key", statusclient.WithSleep(sleep),
		statusclient.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	for _, err := range c.Stream(ctx, "") {
		is.True(errors.Is(err, context.Canceled)) // only ctx's error is yielded
	}
	is.Equal(conns.Load(), int64(13))
	for i, d := range waits.waits {
		want := min(time.Second<<i, statusclient.StreamMaxBackoff)
		is.True(d >= want/2 && d <= want) // exponential, capped, with jitter
	}
	is.Equal(strings.Count(logs.String(), "level=WARN"), 1) // said once
	is.True(strings.Contains(logs.String(), "ended at once"))
}
