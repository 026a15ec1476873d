package statusapi_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/internal/test/apitest"
	"github.com/clientstatus/clientstatus/internal/test/eventtest"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/store"
)

// streamWriter is a ResponseWriter whose flushes a test reads as chunks,
// one at a time: a client on the other end of a connection, inside a
// synctest bubble. A flush blocks until the test reads it, or fails once
// the write deadline the handler set has passed (a deadline set while it
// waits counts): a client that does not read.
type streamWriter struct {
	header http.Header
	code   int
	chunks chan string
	moved  chan struct{} // a value when the deadline is set

	mu       sync.Mutex
	pending  []byte
	deadline time.Time
}

func newStreamWriter() *streamWriter {
	return &streamWriter{header: http.Header{}, chunks: make(chan string), moved: make(chan struct{}, 1)}
}

func (w *streamWriter) Header() http.Header { return w.header }
func (w *streamWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
}

func (w *streamWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pending = append(w.pending, b...)
	return len(b), nil
}

func (w *streamWriter) SetWriteDeadline(t time.Time) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.deadline = t
	select {
	case w.moved <- struct{}{}:
	default:
	}
	return nil
}

func (w *streamWriter) FlushError() error {
	w.mu.Lock()
	chunk := string(w.pending)
	w.pending = nil
	w.mu.Unlock()
	for {
		w.mu.Lock()
		deadline := w.deadline
		w.mu.Unlock()
		var timeout <-chan time.Time
		if !deadline.IsZero() {
			t := time.NewTimer(time.Until(deadline))
			defer t.Stop()
			timeout = t.C
		}
		select {
		case w.chunks <- chunk:
			return nil
		case <-timeout:
			return os.ErrDeadlineExceeded
		case <-w.moved:
		}
	}
}

// openStream is a stream request of key "a" served by h in the
// background, with headers as name, value pairs.
type openStream struct {
	w      *streamWriter
	done   chan struct{}
	cancel context.CancelFunc // the client goes
}

func startStream(t *testing.T, a *apitest.API, h http.Handler, target string, headers ...string) *openStream {
	req := a.Request("GET", target, "a", append([]string{"Accept", "text/event-stream"}, headers...)...)
	ctx, cancel := context.WithCancel(req.Context())
	s := &openStream{w: newStreamWriter(), done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(s.done)
		h.ServeHTTP(s.w, req.WithContext(ctx))
	}()
	t.Cleanup(func() { cancel(); <-s.done })
	return s
}

// opened reads the headers' flush, and waits for the handler to settle.
func (s *openStream) opened() string {
	c := s.next()
	synctest.Wait()
	return c
}

// next returns the next chunk the client reads, or "<end>" when the
// stream ended.
func (s *openStream) next() string {
	select {
	case c := <-s.chunks():
		return c
	case <-s.done:
		return "<end>"
	}
}

func (s *openStream) chunks() chan string { return s.w.chunks }

// ids returns the event ids of the frames in chunk.
func frameIDs(chunk string) []string {
	var out []string
	for _, line := range strings.Split(chunk, "\n") {
		if id, ok := strings.CutPrefix(line, "id: "); ok {
			out = append(out, id)
		}
	}
	return out
}

// reconnect is the retry field every stream opens with.
const reconnect = "retry: 1000\n"

// TestStreamOpensWithRetry: the first frame tells an EventSource to
// reconnect after a second (with Last-Event-ID), whether or not the
// stream has a cursor yet.
func TestStreamOpensWithRetry(t *testing.T) {
	for _, events := range []int{0, 3} {
		synctest.Test(t, func(t *testing.T) {
			is := is.New(t)
			a, es := newEventAPI(t)
			es.Add("org_a", someEvents()[:events]...)
			s := startStream(t, a, a.Handler, "/v1/events")
			frame, ok := strings.CutSuffix(s.opened(), "\n\n")
			is.True(ok) // one whole frame
			lines := strings.Split(frame, "\n")
			is.Equal(lines[0], "retry: 1000") // milliseconds, digits only (WHATWG SSE)
			for _, line := range lines[1:] {
				is.True(strings.HasPrefix(line, "id: ")) // no data: dispatches no event
			}
		})
	}
}

func TestStreamBacklogThenLive(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		is := is.New(t)
		a, es := newEventAPI(t)
		es.Add("org_a", someEvents()...)
		s := startStream(t, a, a.Handler, "/v1/events?after=evt_4")
		is.Equal(s.opened(), reconnect+"id: evt_4\n\n") // the headers, flushed at once, with the cursor
		is.Equal(s.w.code, 200)
		is.Equal(s.w.header.Get("Content-Type"), "text/event-stream")
		is.Equal(s.w.header.Get("Cache-Control"), "no-cache")
		is.Equal(s.w.header.Get("X-Accel-Buffering"), "no")
		is.True(s.w.header.Get("X-Request-Id") != "")
		backlog := s.next()
		is.Equal(backlog, "id: evt_5\nevent: message.created\ndata: "+
			`{"id":"evt_5","type":"message.created","createdAt":"2026-03-01T09:00:00Z","data":{"object":"message","id":"msg_1","projectId":"p2","threadId":"t1","previousStatus":null}}`+
			"\n\nid: evt_6\nevent: deliverable.deleted\ndata: "+
			`{"id":"evt_6","type":"deliverable.deleted","createdAt":"2026-03-01T09:00:01Z","data":{"object":"deliverable","id":"d1","projectId":"p2","previousStatus":null}}`+"\n\n")

		start := time.Now()
		es.Add("org_a", store.Event{Type: "invoice.paid", Kind: store.KindInvoice, ItemID: "inv_1", PreviousStatus: "open", CreatedAt: eventAt})
		is.Equal(frameIDs(s.next()), []string{"evt_7"})
		is.Equal(time.Since(start), time.Duration(0)) // woken by the store, not by the poll
		es.Add("org_b", store.Event{Type: "project.created", Kind: store.KindProject, ItemID: "pb", CreatedAt: eventAt})
		es.Add("org_a", store.Event{Type: "project.created", Kind: store.KindProject, ItemID: "p9", CreatedAt: eventAt})
		is.Equal(frameIDs(s.next()), []string{"evt_9"}) // never another organization's

		s.cancel()
		<-s.done
	})
}

func TestStreamCursor(t *testing.T) {
	for _, tc := range []struct {
		name    string
		target  string
		headers []string
		cursor  string
		want    []string
	}{
		{"neither: only new events", "/v1/events", nil, reconnect + "id: evt_6\n\n", []string{"evt_7"}},
		{"after", "/v1/events?after=evt_5", nil, reconnect + "id: evt_5\n\n", []string{"evt_6"}},
		{"Last-Event-ID", "/v1/events", []string{"Last-Event-ID", "evt_4"}, reconnect + "id: evt_4\n\n", []string{"evt_5", "evt_6"}},
		{"Last-Event-ID wins", "/v1/events?after=evt_1", []string{"Last-Event-ID", "evt_5"}, reconnect + "id: evt_5\n\n", []string{"evt_6"}},
		{"type", "/v1/events?after=evt_1&type=invoice.paid,project.created", nil, reconnect + "id: evt_1\n\n", []string{"evt_3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				is := is.New(t)
				a, es := newEventAPI(t)
				es.Add("org_a", someEvents()...)
				s := startStream(t, a, a.Handler, tc.target, tc.headers...)
				is.Equal(s.opened(), tc.cursor) // the headers, and the cursor
				if tc.name == "neither: only new events" {
					es.Add("org_a", store.Event{Type: "project.created", Kind: store.KindProject, ItemID: "p9", CreatedAt: eventAt})
				}
				is.Equal(frameIDs(s.next()), tc.want)
				s.cancel()
				<-s.done
			})
		})
	}
}

func TestStreamRefusals(t *testing.T) {
	is := is.New(t)
	a, es := newEventAPI(t)
	es.Add("org_a", someEvents()...)
	stream := func(target string, headers ...string) *httptest.ResponseRecorder {
		return a.Do("GET", target, "a", append([]string{"Accept", "text/event-stream"}, headers...)...)
	}
	for _, tc := range []struct {
		target  string
		headers []string
		param   string
	}{
		{"/v1/events?after=evt_99", nil, "after"},
		{"/v1/events", []string{"Last-Event-ID", "evt_99"}, "after"},
		{"/v1/events?type=invoice.shipped", nil, "type"},
		{"/v1/events?page=1", nil, "page"},
	} {
		res := stream(tc.target, tc.headers...)
		is.Equal(res.Code, 400) // refused before the stream starts, as JSON
		is.True(strings.Contains(res.Body.String(), `"param":"`+tc.param+`"`))
	}
	res := a.Do("GET", "/v1/events", "", "Accept", "text/event-stream")
	is.Equal(res.Code, 401)
}

// TestStreamsPerOrganization: the sixth stream of an organization is 429
// with Retry-After; once one ends, another may open; another
// organization is not counted.
func TestStreamsPerOrganization(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		is := is.New(t)
		a, _ := newEventAPI(t)
		var open []*openStream
		for range statusapi.MaxStreamsPerOrganization {
			s := startStream(t, a, a.Handler, "/v1/events")
			is.Equal(s.opened(), reconnect+"\n")
			open = append(open, s)
		}
		res := a.Do("GET", "/v1/events", "a", "Accept", "text/event-stream")
		is.Equal(res.Code, 429)
		is.True(strings.Contains(res.Body.String(), `"code":"RATE_LIMITED"`))
		is.Equal(res.Header().Get("Retry-After"), "15")
		is.Equal(a.Do("GET", "/v1/events", "a").Code, 200) // the feed is not a stream

		a.Org("org_b", store.PlanEnterprise)
		a.Mint("b", "org_b")
		req := a.Request("GET", "/v1/events", "b", "Accept", "text/event-stream")
		ctx, cancel := context.WithCancel(req.Context())
		w := newStreamWriter()
		done := make(chan struct{})
		go func() { defer close(done); a.Handler.ServeHTTP(w, req.WithContext(ctx)) }()
		is.Equal(<-w.chunks, reconnect+"\n") // another organization's stream opens
		cancel()
		<-done

		open[0].cancel()
		<-open[0].done
		again := startStream(t, a, a.Handler, "/v1/events")
		is.Equal(again.opened(), reconnect+"\n") // a slot freed
		for _, s := range append(open[1:], again) {
			s.cancel()
			<-s.done
		}
	})
}

func TestStreamHeartbeat(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		is := is.New(t)
		a, _ := newEventAPI(t)
		s := startStream(t, a, a.Handler, "/v1/events")
		is.Equal(s.opened(), reconnect+"\n")
		start := time.Now()
		is.Equal(s.next(), ": ping\n\n")
		is.Equal(time.Since(start), statusapi.StreamHeartbeat)
		is.Equal(s.next(), ": ping\n\n")
		is.Equal(time.Since(start), 2*statusapi.StreamHeartbeat)
		s.cancel()
		<-s.done
	})
}

// TestStreamSafetyReads: a store whose wake-ups are lost is read every
// StreamSafety, one organization at a time (the one read longest ago),
// however many streams are open.
func TestStreamSafetyReads(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		is := is.New(t)
		a, es := newEventAPI(t)
		es.Silent = true
		a.Org("org_b", store.PlanEnterprise)
		a.Mint("b", "org_b")
		s := startStream(t, a, a.Handler, "/v1/events")
		is.Equal(s.opened(), reconnect+"\n")
		time.Sleep(100 * time.Millisecond) // fake time (synctest): org_b's feed is read after org_a's
		req := a.Request("GET", "/v1/events", "b", "Accept", "text/event-stream")
		ctx, cancel := context.WithCancel(req.Context())
		b := &openStream{w: newStreamWriter(), done: make(chan struct{}), cancel: cancel}
		go func() { defer close(b.done); a.Handler.ServeHTTP(b.w, req.WithContext(ctx)) }()
		t.Cleanup(func() { cancel(); <-b.done })
		is.Equal(b.opened(), reconnect+"\n")
		time.Sleep(200 * time.Millisecond) // fake time (synctest)
		start := time.Now()
		es.Add("org_a", store.Event{Type: "project.created", Kind: store.KindProject, ItemID: "p9", CreatedAt: eventAt})
		es.Add("org_b", store.Event{Type: "project.created", Kind: store.KindProject, ItemID: "p8", CreatedAt: eventAt})
		is.Equal(frameIDs(s.next()), []string{"evt_1"})
		is.Equal(time.Since(start), statusapi.StreamSafety-300*time.Millisecond) // org_a, read longest ago, at the first safety read
		is.Equal(b.next(), ": ping\n\n")                                         // StreamHeartbeat comes first
		is.Equal(frameIDs(b.next()), []string{"evt_2"})
		is.Equal(time.Since(start), 2*statusapi.StreamSafety-300*time.Millisecond) // org_b at the next
		s.cancel()
		<-s.done
	})
}

// TestStreamEnds: a stream ends within a second of its key's revocation
// or its organization losing access, at once when the handler's
// WithShutdown context is done, and when the client does not read within
// the write timeout.
func TestStreamEnds(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		end    func(a *apitest.API, shutdown context.CancelFunc)
		within time.Duration
	}{
		{"key revoked", func(a *apitest.API, _ context.CancelFunc) {
			keys, err := a.Keys.List(ctx, "org_a")
			if err != nil || len(keys) != 1 {
				panic("no key")
			}
			if err := a.Keys.Revoke(ctx, "org_a", keys[0].ID); err != nil {
				panic(err)
			}
		}, statusapi.StreamPoll},
		{"API access off", func(a *apitest.API, _ context.CancelFunc) {
			o := a.Org("org_a", store.PlanEnterprise)
			o.APIEnabled = false
			a.PutOrg(o)
		}, statusapi.StreamPoll},
		{"organization deleted", func(a *apitest.API, _ context.CancelFunc) {
			if err := a.Store.DeleteOrganization(ctx, "org_a"); err != nil {
				panic(err)
			}
		}, statusapi.StreamPoll},
		{"shutdown", func(_ *apitest.API, shutdown context.CancelFunc) { shutdown() }, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				is := is.New(t)
				stop, shutdown := context.WithCancel(context.Background())
				defer shutdown()
				a, _ := newEventAPI(t, apitest.WithHandlerOptions(statusapi.WithShutdown(stop)))
				s := startStream(t, a, a.Handler, "/v1/events")
				is.Equal(s.opened(), reconnect+"\n")
				time.Sleep(100 * time.Millisecond) // fake time (synctest): within the first poll's second
				start := time.Now()
				tc.end(a, shutdown)
				<-s.done
				is.True(time.Since(start) <= tc.within) // the stream ended in time
			})
		})
	}

	t.Run("slow reader", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			is := is.New(t)
			a, es := newEventAPI(t)
			s := startStream(t, a, a.Handler, "/v1/events")
			is.Equal(s.opened(), reconnect+"\n")
			start := time.Now()
			es.Add("org_a", store.Event{Type: "project.created", Kind: store.KindProject, ItemID: "p9", CreatedAt: eventAt})
			<-s.done                                                  // never read
			is.Equal(time.Since(start), statusapi.StreamWriteTimeout) // dropped, not buffered for
		})
	})
}

// TestStreamShutdown: http.Server.Shutdown returns promptly with a stream
// open, when the server's RegisterOnShutdown ends the handler's
// WithShutdown context; the client sees the stream end.
func TestStreamShutdown(t *testing.T) {
	is := is.New(t)
	stop, endStreams := context.WithCancel(context.Background())
	defer endStreams()
	a, es := newEventAPI(t, apitest.WithHandlerOptions(statusapi.WithShutdown(stop)))
	es.Add("org_a", someEvents()...)
	srv := httptest.NewUnstartedServer(a.Handler)
	srv.Config.RegisterOnShutdown(endStreams)
	srv.Config.WriteTimeout = time.Millisecond // the stream sets a deadline per write instead
	srv.Start()
	defer srv.Close()

	req, err := http.NewRequest("GET", srv.URL+"/v1/events?after=evt_5", nil)
	is.NoErr(err)
	req.Header.Set("Authorization", "Bearer "+a.Key("a"))
	req.Header.Set("Accept", "text/event-stream")
	res, err := srv.Client().Do(req)
	is.NoErr(err)
	defer res.Body.Close()
	is.Equal(res.StatusCode, 200)
	is.Equal(res.Header.Get("Content-Type"), "text/event-stream")
	is.Equal(res.Header.Get("X-Accel-Buffering"), "no")
	br := bufio.NewReader(res.Body)
	line, err := br.ReadString('\n')
	is.NoErr(err)
	is.Equal(line, reconnect)
	line, err = br.ReadString('\n')
	is.NoErr(err)
	is.Equal(line, "id: evt_5\n") // the cursor
	line, err = br.ReadString('\n')
	is.NoErr(err)
	is.Equal(line, "\n")
	line, err = br.ReadString('\n')
	is.NoErr(err)
	is.Equal(line, "id: evt_6\n") // the backlog, flushed through the handler's writers

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	is.NoErr(srv.Config.Shutdown(ctx)) // does not wait for the stream's client
	rest, err := io.ReadAll(br)
	is.True(err == nil || errors.Is(err, io.ErrUnexpectedEOF)) // the stream ended
	is.True(strings.HasPrefix(string(rest), "event: deliverable.deleted\n"))
}

// TestStreamObserved: observers see a stream once, when it ends, with its
// route, caller, status, bytes and whole duration.
func TestStreamObserved(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		is := is.New(t)
		var mu sync.Mutex
		var seen []statusapi.RequestInfo
		a, _ := newEventAPI(t, apitest.WithHandlerOptions(statusapi.WithObserver(func(_ *http.Request, info statusapi.RequestInfo) {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, info)
		})))
		s := startStream(t, a, a.Handler, "/v1/events")
		is.Equal(s.opened(), reconnect+"\n")
		is.Equal(s.next(), ": ping\n\n")
		s.cancel()
		<-s.done
		mu.Lock()
		defer mu.Unlock()
		is.Equal(len(seen), 1) // once, at the end
		is.Equal(seen[0].Route, "/v1/events")
		is.Equal(seen[0].OrgID, "org_a")
		is.Equal(seen[0].Status, 200)
		is.Equal(seen[0].Bytes, int64(len(reconnect+"\n: ping\n\n")))
		is.Equal(seen[0].Duration, statusapi.StreamHeartbeat)
	})
}

// hidingEvents is an eventtest.Store whose events are not visible while
// hide is set, though it wakes its watchers when they are added: a
// PostgreSQL store whose writer committed while an older transaction
// still runs.
type hidingEvents struct {
	*eventtest.Store
	hide atomic.Bool
}

func (h *hidingEvents) ListEvents(ctx context.Context, orgID string, q store.EventQuery) (store.EventPage, error) {
	if h.hide.Load() {
		return store.EventPage{Last: q.After}, nil
	}
	return h.Store.ListEvents(ctx, orgID, q)
}

// TestStreamRetriesAWakeUp: a wake-up that brings nothing (the events not
// visible yet) is followed by reads soon after, so that the event arrives
// about when it becomes visible, well before the next poll.
func TestStreamRetriesAWakeUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		is := is.New(t)
		var hs *hidingEvents
		a := apitest.New(t, apitest.WithStoreWrapper(func(st store.Store) store.Store {
			if hs == nil {
				hs = &hidingEvents{Store: eventtest.New(st.(*memstore.Store))}
			}
			return hs
		}))
		a.Org("org_a", store.PlanEnterprise)
		a.Mint("a", "org_a")
		s := startStream(t, a, a.Handler, "/v1/events")
		is.Equal(s.opened(), reconnect+"\n")
		time.Sleep(100 * time.Millisecond) // fake time (synctest): the next poll is 900 ms away
		hs.hide.Store(true)
		start := time.Now()
		hs.Add("org_a", store.Event{Type: "project.created", Kind: store.KindProject, ItemID: "p9", CreatedAt: eventAt})
		synctest.Wait()                   // the wake-up read nothing
		time.Sleep(30 * time.Millisecond) // fake time (synctest): the event becomes visible 30 ms after the wake-up
		hs.hide.Store(false)
		is.Equal(frameIDs(s.next()), []string{"evt_1"})
		took := time.Since(start)
		is.True(took > 30*time.Millisecond && took < 100*time.Millisecond) // a retry, not the poll 900 ms later
		s.cancel()
		<-s.done
	})
}

// TestStreamSandboxKey: a sandbox key's stream stays open past the
// access re-checks, and reads its sandbox's events.
func TestStreamSandboxKey(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		is := is.New(t)
		a, es := newEventAPI(t)
		sb := a.Org("org_a~sandbox", store.PlanEnterprise)
		key, _, err := a.Keys.MintSandbox(context.Background(), "org_a", "sb", nil)
		is.NoErr(err)
		a.SetKey("sb", key)
		req := a.Request("GET", "/v1/events", "sb", "Accept", "text/event-stream")
		ctx, cancel := context.WithCancel(req.Context())
		s := &openStream{w: newStreamWriter(), done: make(chan struct{}), cancel: cancel}
		go func() {
			defer close(s.done)
			a.Handler.ServeHTTP(s.w, req.WithContext(ctx))
		}()
		is.Equal(s.opened(), reconnect+"\n")
		is.Equal(s.w.header.Get(statusapi.SandboxHeader), "true")
		time.Sleep(3*statusapi.StreamPoll + 100*time.Millisecond) // fake time (synctest): three access re-checks
		es.Add(sb.ID, store.Event{Type: "project.created", Kind: store.KindProject, ItemID: "p9", CreatedAt: eventAt})
		is.Equal(frameIDs(s.next()), []string{"evt_1"}) // still open, and reading the sandbox
		cancel()
		<-s.done
	})
}
