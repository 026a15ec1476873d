package statusapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/clientstatus/clientstatus/envelope"
	"github.com/clientstatus/clientstatus/internal/eventwire"
	"github.com/clientstatus/clientstatus/store"
)

// The live event stream (GET /v1/events with Accept: text/event-stream).
const (
	// MaxStreamsPerOrganization is how many live event streams an
	// organization may hold open at once on one handler: the next is
	// 429 RATE_LIMITED with Retry-After: StreamRetryAfter seconds. The
	// count is kept in the process, so N replicas behind a load balancer
	// admit up to N times as many.
	MaxStreamsPerOrganization = 5
	// StreamRetryAfter is the Retry-After, in seconds, of a stream
	// refused for MaxStreamsPerOrganization.
	StreamRetryAfter = 15
	// StreamHeartbeat is how often an open stream sends a comment line
	// (": ping"), so that proxies and clients see it alive.
	StreamHeartbeat = 15 * time.Second
	// StreamPoll is how often an open stream reads the store for new
	// events even when the store's wake-up (store.Events.WatchEvents) is
	// silent, and checks again that its key is still valid: a revoked key
	// or an organization that lost access ends the stream within it.
	StreamPoll = time.Second
	// StreamWriteTimeout bounds each write to a stream: a client that
	// does not read that fast is dropped, never buffered for.
	StreamWriteTimeout = 10 * time.Second
)

// streamRetry is how soon a stream reads again after a wake-up that
// brought nothing: the store may wake it before the events are visible
// (on PostgreSQL, while an older transaction still runs). It doubles at
// each read that brings nothing, up to half of StreamPoll, so that such an
// event arrives about as soon as it is visible, not at the next poll.
const streamRetry = 20 * time.Millisecond

// streamPage is the most events a stream reads from the store at once.
const streamPage = store.MaxLimit

// streamSlots counts the open streams of each organization.
type streamSlots struct {
	mu   sync.Mutex
	open map[string]int
}

// take takes one of org's slots, reporting false when it holds
// MaxStreamsPerOrganization already.
func (s *streamSlots) take(org string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open[org] >= MaxStreamsPerOrganization {
		return false
	}
	if s.open == nil {
		s.open = make(map[string]int)
	}
	s.open[org]++
	return true
}

func (s *streamSlots) release(org string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open[org]--; s.open[org] <= 0 {
		delete(s.open, org)
	}
}

// stream is one open live stream.
type stream struct {
	h    *handler
	w    http.ResponseWriter
	rc   *http.ResponseController
	r    *http.Request
	cred string // the caller's credential, resolved again every StreamPoll
	c    caller
	q    store.EventQuery // q.After: the last event sent
	buf  []byte
}

// streamEvents serves the live stream: it is admitted as any request
// (authentication, the rate limit: one request for the whole stream),
// its parameters and cursor are checked, and then it holds one of the
// organization's MaxStreamsPerOrganization slots until it ends: when the
// client goes, when the handler's WithShutdown context is done, when its
// key stops resolving or its organization loses access, when a write
// takes longer than StreamWriteTimeout, or when the store fails.
func (h *handler) streamEvents(w http.ResponseWriter, r *http.Request) {
	s, first, err := h.openStream(w, r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	defer h.streams.release(s.c.Org.ID)
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	if h.cfg.shutdown != nil {
		defer context.AfterFunc(h.cfg.shutdown, cancel)()
	}
	s.run(ctx, first)
}

// openStream does all that may refuse a stream with an answer, under the
// request timeout, and reads the first page of its backlog.
func (h *handler) openStream(w http.ResponseWriter, r *http.Request) (*stream, store.EventPage, error) {
	ctx, cancel := context.WithTimeout(r.Context(), h.cfg.timeout)
	defer cancel()
	c, err := h.callerOf(w, r.WithContext(ctx), h.admit(""))
	if err != nil {
		return nil, store.EventPage{}, err
	}
	p, err := eventParamsOf(r)
	if err != nil {
		return nil, store.EventPage{}, err
	}
	if id := r.Header.Get("Last-Event-ID"); id != "" {
		p.after = id // the header wins: it is where a reconnecting client stopped
	}
	p.limit = streamPage
	if p.after == "" { // neither after nor Last-Event-ID: only new events
		if p.after, err = h.events.LatestEvent(ctx, c.Org.ID); err != nil {
			return nil, store.EventPage{}, err
		}
	}
	q := eventQuery(p, c)
	first, err := h.events.ListEvents(ctx, c.Org.ID, q)
	if errors.Is(err, store.ErrUnknownCursor) {
		return nil, store.EventPage{}, errUnknownAfter
	}
	if err != nil {
		return nil, store.EventPage{}, err
	}
	if !h.streams.take(c.Org.ID) {
		w.Header().Set("Retry-After", strconv.Itoa(StreamRetryAfter))
		return nil, store.EventPage{}, envelope.Errorf(envelope.RateLimited,
			"this organization has %d live event streams open already; close one, or retry after the number of seconds in Retry-After", MaxStreamsPerOrganization)
	}
	cred, _ := bearer(r.Header.Values("Authorization"))
	return &stream{h: h, w: w, rc: http.NewResponseController(w), r: r, cred: cred, c: c, q: q}, first, nil
}

// run sends the headers and the backlog, then follows: new events as the
// store wakes the stream or every StreamPoll, a heartbeat every
// StreamHeartbeat, until ctx is done or the stream must end.
func (s *stream) run(ctx context.Context, first store.EventPage) {
	hd := s.w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-cache")
	hd.Set("X-Accel-Buffering", "no")
	// A server-wide ReadTimeout must not end the stream; a write timeout
	// is set per write (send).
	_ = s.rc.SetReadDeadline(time.Time{})
	wake := s.h.events.WatchEvents(ctx, s.c.Org.ID) // before the backlog: no event falls between
	s.w.WriteHeader(http.StatusOK)
	// The headers at once, with the cursor the stream starts after as a
	// frame without data: a client that reconnects before any event
	// (EventSource too) resumes from it with Last-Event-ID, and misses
	// nothing that came meanwhile.
	var cursor []byte
	if s.q.After != "" {
		cursor = []byte("id: " + s.q.After + "\n\n")
	}
	if err := s.write(cursor); err != nil {
		if errors.Is(err, http.ErrNotSupported) {
			s.h.log(s.r, s.w, slog.LevelError, "statusapi: the response writer cannot flush (give it an Unwrap method): the event stream ends")
		}
		return
	}
	if err := s.send(first); err != nil {
		return
	}
	if len(first.Events) == streamPage {
		if _, err := s.follow(ctx); err != nil {
			return
		}
	}
	poll := time.NewTicker(StreamPoll)
	defer poll.Stop()
	heartbeat := time.NewTicker(StreamHeartbeat)
	defer heartbeat.Stop()
	retry := time.NewTimer(streamRetry)
	retry.Stop()
	defer retry.Stop()
	var backoff time.Duration // of retry; 0 when it is stopped
	for {
		var err error
		sent, again := 0, false // again: read after a wake-up, soon to be retried when it brought nothing
		select {
		case <-ctx.Done():
			return
		case _, open := <-wake:
			if !open {
				return // ctx is done
			}
			backoff, again = 0, true
			sent, err = s.follow(ctx)
		case <-retry.C:
			again = true
			sent, err = s.follow(ctx)
		case <-poll.C:
			if !s.allowed(ctx) {
				return
			}
			sent, err = s.follow(ctx)
		case <-heartbeat.C:
			err = s.write([]byte(": ping\n\n"))
		}
		if err != nil {
			return
		}
		switch {
		case sent > 0:
			backoff = 0
			retry.Stop()
		case again && backoff < StreamPoll/2:
			backoff = max(streamRetry, 2*backoff)
			retry.Reset(backoff)
		}
	}
}

// follow sends every event after the last one sent, a page at a time,
// and returns how many it sent.
func (s *stream) follow(ctx context.Context) (int, error) {
	sent := 0
	for {
		pg, err := s.read(ctx)
		if err != nil {
			return sent, err
		}
		if err := s.send(pg); err != nil {
			return sent, err
		}
		sent += len(pg.Events)
		if len(pg.Events) < streamPage {
			return sent, nil
		}
	}
}

// read reads the page after the last event sent, under the request
// timeout. A failure ends the stream: the client resumes from the last
// event it got, and meets the error as an answer.
func (s *stream) read(ctx context.Context) (store.EventPage, error) {
	ctx, cancel := context.WithTimeout(ctx, s.h.cfg.timeout)
	defer cancel()
	pg, err := s.h.events.ListEvents(ctx, s.c.Org.ID, s.q)
	if err != nil && ctx.Err() == nil {
		s.h.log(s.r, s.w, slog.LevelWarn, "statusapi: reading events for a live stream failed: the stream ends", "org", s.c.Org.ID, "err", err.Error())
	}
	return pg, err
}

// allowed reports whether the stream's credential still resolves to a
// principal that reads the same organization (a sandbox key, its
// sandbox) and may use the API. The resolver is the handler's (a Cache
// forgets a revoked key at once).
func (s *stream) allowed(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, s.h.cfg.timeout)
	defer cancel()
	p, err := s.h.keys.Resolve(ctx, s.cred)
	return err == nil && readOrgID(p) == s.c.Org.ID && p.Org.CanUseAPI()
}

// send writes a page of events as frames ("id:", "event:", "data:"), and
// moves the cursor past them; an empty page writes nothing.
func (s *stream) send(pg store.EventPage) error {
	if pg.Last != "" {
		s.q.After = pg.Last
	}
	if len(pg.Events) == 0 {
		return nil
	}
	s.buf = s.buf[:0]
	for _, e := range pg.Events {
		data, err := eventwire.Encode(e)
		if err != nil {
			return err
		}
		s.buf = append(s.buf, "id: "...)
		s.buf = append(s.buf, e.ID...)
		s.buf = append(s.buf, "\nevent: "...)
		s.buf = append(s.buf, e.Type...)
		s.buf = append(s.buf, "\ndata: "...)
		s.buf = append(s.buf, data...)
		s.buf = append(s.buf, "\n\n"...)
	}
	if cap(s.buf) > 64<<10 {
		defer func() { s.buf = nil }() // a backlog page's buffer is not kept for the stream's life
	}
	return s.write(s.buf)
}

// write writes b and flushes it, within StreamWriteTimeout.
func (s *stream) write(b []byte) error {
	if err := s.rc.SetWriteDeadline(time.Now().Add(StreamWriteTimeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	if len(b) > 0 {
		if _, err := s.w.Write(b); err != nil {
			return err
		}
	}
	return s.rc.Flush()
}
