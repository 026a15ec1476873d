package statusapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/clientstatus/clientstatus/auth"
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
	// StreamPoll paces what a handler reads for its open streams besides
	// the store's wake-ups (store.Events.WatchEvents), which streams of an
	// organization share: after a wake-up that brought nothing (events
	// not visible yet) the organization's feed is read again sooner and
	// sooner apart, up to StreamPoll/2; and every 10 seconds the handler
	// reads the feed of the organization with open streams read longest
	// ago, so that a wake-up the store missed is caught up whatever the
	// number of streams. A stream whose key is revoked, or whose
	// organization loses access, ends on its resolver's report
	// (auth.KeyResolver's Subscribe), within StreamPoll.
	StreamPoll = time.Second
	// StreamWriteTimeout bounds each write to a stream: a client that
	// does not read that fast is dropped, never buffered for.
	StreamWriteTimeout = 10 * time.Second
)

// streamReconnect opens every stream: the Server-Sent Events retry field,
// so that an EventSource cut off (a restart, an outage, a replica gone)
// reconnects with Last-Event-ID after a second, as statusclient's Stream
// does, rather than after its own default.
const streamReconnect = "retry: 1000\n"

// streamPage is the most events a stream or a feed reads from the store
// at once.
const streamPage = store.MaxLimit

// streamQueue is the most events an open stream holds for its client
// once it follows its organization's feed: a client that falls this far
// behind is dropped, and resumes with Last-Event-ID.
const streamQueue = 1024

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

// stream is one open live stream. It reads its backlog itself, then
// follows its organization's feed (fanout.go), which queues the events
// its view may see; only its own goroutine writes to the client.
type stream struct {
	h    *handler
	w    http.ResponseWriter
	rc   *http.ResponseController
	r    *http.Request
	cred string // the caller's credential, resolved again on its organization's reports
	// keyOrg is the organization the credential belongs to (the live one
	// for a sandbox key): the one its resolver reports.
	keyOrg string
	c      caller
	q      store.EventQuery // q.After: the last event sent before it follows the feed
	buf    []byte
	feed   *feed // the feed it follows, once it joins

	mu      sync.Mutex
	queue   [][]byte      // frames the feed queued, oldest first
	spare   [][]byte      // the queue's other buffer, swapped with it
	ready   chan struct{} // a value when queue holds frames
	ended   chan struct{} // closed by end
	isEnded bool
	writing bool // a write is under way, which end cuts short
}

// streamEvents serves the live stream: it is admitted as any request
// (authentication, the rate limit: one request for the whole stream),
// its parameters and cursor are checked, and then it holds one of the
// organization's MaxStreamsPerOrganization slots until it ends: when the
// client goes, when the handler's WithShutdown context is done, when its
// key stops resolving or its organization loses access, when a write
// takes longer than StreamWriteTimeout, when the client falls streamQueue
// events behind, or when its own reads fail.
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
	s := &stream{h: h, w: w, rc: http.NewResponseController(w), r: r, cred: cred, keyOrg: c.Principal.Org.ID, c: c, q: q,
		ready: make(chan struct{}, 1), ended: make(chan struct{})}
	if c.Sandbox {
		s.keyOrg, _ = auth.LiveOrgID(c.Org.ID)
	}
	return s, first, nil
}

// run sends the headers and the backlog, then follows the organization's
// feed: the events it queues, a heartbeat every StreamHeartbeat, until
// ctx is done or the stream must end.
func (s *stream) run(ctx context.Context, first store.EventPage) {
	hd := s.w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-cache")
	hd.Set("X-Accel-Buffering", "no")
	// A server-wide ReadTimeout must not end the stream; a write timeout
	// is set per write (send).
	_ = s.rc.SetReadDeadline(time.Time{})
	f := s.h.fanout
	f.watch(s) // from here on, its key's reports reach it
	defer f.leave(s)
	s.w.WriteHeader(http.StatusOK)
	// The headers at once, with streamReconnect and the cursor the stream
	// starts after, as a frame without data: a client that reconnects
	// before any event (EventSource too) resumes from it with
	// Last-Event-ID, and misses nothing that came meanwhile.
	opening := []byte(streamReconnect)
	if s.q.After != "" {
		opening = append(opening, "id: "+s.q.After+"\n"...)
	}
	if err := s.write(append(opening, '\n')); err != nil {
		if errors.Is(err, http.ErrNotSupported) {
			s.h.log(s.r, s.w, slog.LevelError, "statusapi: the response writer cannot flush (give it an Unwrap method): the event stream ends")
		}
		return
	}
	if !s.allowed(ctx) { // a report between its authentication and watch
		return
	}
	if err := s.send(first); err != nil {
		return
	}
	if len(first.Events) == streamPage {
		if err := s.follow(ctx); err != nil {
			return
		}
	}
	f.join(s)
	heartbeat := time.NewTicker(StreamHeartbeat)
	defer heartbeat.Stop()
	var expiry <-chan time.Time
	if !s.c.Expiry.IsZero() {
		t := time.NewTimer(s.c.Expiry.Sub(s.h.cfg.now()))
		defer t.Stop()
		expiry = t.C
	}
	for {
		var err error
		select {
		case <-ctx.Done():
			return
		case <-s.ended:
			return
		case <-expiry:
			return
		case <-s.ready:
			err = s.drain()
		case <-heartbeat.C:
			err = s.write([]byte(": ping\n\n"))
		}
		if err != nil {
			return
		}
	}
}

// follow sends every event after the last one sent, a page at a time,
// until a page is not full.
func (s *stream) follow(ctx context.Context) error {
	for {
		pg, err := s.read(ctx)
		if err != nil {
			return err
		}
		if err := s.send(pg); err != nil {
			return err
		}
		if len(pg.Events) < streamPage {
			return nil
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
// sandbox) and may use the API.
func (s *stream) allowed(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, s.h.cfg.timeout)
	defer cancel()
	p, err := s.h.keys.Resolve(ctx, s.cred)
	return err == nil && readOrgID(p) == s.c.Org.ID && p.Org.CanUseAPI()
}

// send writes a page of its own backlog as frames, and moves the cursor
// past them; an empty page writes nothing.
func (s *stream) send(pg store.EventPage) error {
	if pg.Last != "" {
		s.q.After = pg.Last
	}
	if len(pg.Events) == 0 {
		return nil
	}
	s.buf = s.buf[:0]
	for _, e := range pg.Events {
		var err error
		if s.buf, err = appendFrame(s.buf, e); err != nil {
			return err
		}
	}
	if cap(s.buf) > 64<<10 {
		defer func() { s.buf = nil }() // a backlog page's buffer is not kept for the stream's life
	}
	return s.write(s.buf)
}

// appendFrame appends e as a frame ("id:", "event:", "data:") to b.
func appendFrame(b []byte, e store.Event) ([]byte, error) {
	data, err := eventwire.Encode(e)
	if err != nil {
		return b, err
	}
	b = append(b, "id: "...)
	b = append(b, e.ID...)
	b = append(b, "\nevent: "...)
	b = append(b, e.Type...)
	b = append(b, "\ndata: "...)
	b = append(b, data...)
	return append(b, "\n\n"...), nil
}

// push queues frames for the client and wakes run; when the queue would
// hold more than streamQueue, the stream ends instead (end).
func (s *stream) push(frames ...[]byte) {
	if len(frames) == 0 {
		return
	}
	s.mu.Lock()
	if s.isEnded {
		s.mu.Unlock()
		return
	}
	if len(s.queue)+len(frames) > streamQueue {
		s.mu.Unlock()
		s.end()
		return
	}
	s.queue = append(s.queue, frames...)
	s.mu.Unlock()
	select {
	case s.ready <- struct{}{}:
	default:
	}
}

// drain writes what the feed queued, in one flush.
func (s *stream) drain() error {
	s.mu.Lock()
	frames := s.queue
	s.queue, s.spare = s.spare[:0], nil
	s.mu.Unlock()
	if len(frames) == 0 {
		return nil
	}
	err := s.writeFrames(frames)
	clear(frames) // the frames are the feed's; the slice is the stream's again
	s.mu.Lock()
	s.spare = frames[:0]
	s.mu.Unlock()
	return err
}

// end ends the stream: run returns, cutting short a write under way (a
// client that does not read); otherwise the response ends cleanly.
// It may be called from any goroutine, more than once.
func (s *stream) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.isEnded {
		return
	}
	s.isEnded = true
	s.queue = nil
	close(s.ended)
	if s.writing {
		_ = s.rc.SetWriteDeadline(time.Now())
	}
}

// errStreamEnded is write's error once the stream has ended.
var errStreamEnded = errors.New("statusapi: the stream ended")

// startWrite sets the deadline of a write and marks it under way, unless
// the stream has ended; endWrite marks its end.
func (s *stream) startWrite() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.isEnded {
		return errStreamEnded
	}
	if err := s.rc.SetWriteDeadline(time.Now().Add(StreamWriteTimeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	s.writing = true
	return nil
}

func (s *stream) endWrite() {
	s.mu.Lock()
	s.writing = false
	s.mu.Unlock()
}

// write writes b and flushes it, within StreamWriteTimeout.
func (s *stream) write(b []byte) error { return s.writeFrames([][]byte{b}) }

// writeFrames writes frames and flushes them once, within
// StreamWriteTimeout.
func (s *stream) writeFrames(frames [][]byte) error {
	if err := s.startWrite(); err != nil {
		return err
	}
	defer s.endWrite()
	for _, b := range frames {
		if len(b) == 0 {
			continue
		}
		if _, err := s.w.Write(b); err != nil {
			return err
		}
	}
	return s.rc.Flush()
}
