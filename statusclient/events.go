package statusclient

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Event is one change the key may see: an item created, updated or
// deleted ("invoice.created"), or, when its status changed, also an event
// typed by the new status ("invoice.paid") with Data.PreviousStatus. It is
// thin: read the item itself for its content. Events are kept at least 30
// days, in an order that never changes: resume from the last ID you
// handled.
type Event struct {
	ID        string    `json:"id"`
	Type      string    `json:"type"`
	CreatedAt time.Time `json:"createdAt"`
	Data      EventData `json:"data"`
}

// EventData names the item an Event is about.
type EventData struct {
	Object         DeletionType `json:"object"`         // the kind of item: "invoice", "message"...
	ID             string       `json:"id"`             // the item's id
	ProjectID      *string      `json:"projectId"`      // nil for what belongs to no project
	ThreadID       *string      `json:"threadId"`       // a message's thread; nil for other kinds
	PreviousStatus *string      `json:"previousStatus"` // the status before, on an event typed by the new one; else nil
}

// EventListOptions selects events.
type EventListOptions struct {
	// After is the ID of the last event handled; "" for the oldest kept.
	// An ID the server no longer keeps (older than 30 days) is an error
	// wrapping ErrResyncRequired.
	After string `url:"after"`
	// Types, when not empty, keeps only events of these types
	// ("invoice.paid", "deliverable.in_review").
	Types []string `url:"type"`
	// Limit is the most events a page (1..MaxLimit); 0 for the server's
	// default, 20 (AllEvents asks for MaxLimit).
	Limit int `url:"limit"`
}

// ListEvents returns the events after opts.After, oldest first; resp.Meta.Total
// counts all those that match. Ask again with After set to the last ID
// returned (opts.After when none) for the next ones. A server without
// events answers with an *Error of Code CodeNotFound, as an unknown path.
func (c *Client) ListEvents(ctx context.Context, opts EventListOptions) ([]Event, *Response, error) {
	q, _ := encode(opts)
	env, resp, err := get[[]Event](ctx, c, request{path: "/events", query: q})
	if err != nil {
		return nil, resp, resyncErr(err, "after")
	}
	resp.Meta = env.Meta
	return env.Data, resp, nil
}

// AllEvents walks the events after opts.After, page after page (MaxLimit
// a page unless opts.Limit says otherwise), and yields each once, until
// the newest: it does not wait for more (Stream does). An error is
// yielded once and ends the walk; breaking out of the loop stops it
// without further requests.
func (c *Client) AllEvents(ctx context.Context, opts EventListOptions) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		opts.Limit = cmp.Or(opts.Limit, MaxLimit)
		for {
			events, resp, err := c.ListEvents(ctx, opts)
			if err != nil {
				yield(Event{}, err)
				return
			}
			for _, e := range events {
				if !yield(e, nil) {
					return
				}
			}
			if len(events) == 0 || resp.Meta.Total <= len(events) {
				return
			}
			opts.After = events[len(events)-1].ID
		}
	}
}

// Stream timing: see Stream.
const (
	// StreamIdleTimeout is how long Stream waits for a byte (the server
	// sends a heartbeat every 15 seconds) before it takes the connection
	// for dead and reconnects.
	StreamIdleTimeout = 45 * time.Second
	// StreamMaxBackoff bounds the wait between reconnections that the
	// server did not pace with Retry-After.
	StreamMaxBackoff = 30 * time.Second
)

// Stream follows the live event stream: the events after after ("" for
// only those that come from now on), then each new one within about a
// second of its commit, for as long as ctx lasts. It resumes by itself:
// when the connection drops, goes silent for StreamIdleTimeout, or the
// server answers 429 or 503 (five streams per organization at most; a
// replica shutting down), it reconnects from the last event it yielded
// (Last-Event-ID), after the server's Retry-After or a backoff of 1s, 2s,
// 4s... up to StreamMaxBackoff, with jitter. A transport error is retried
// the same way, without being yielded. The backoff starts again only after
// a connection that yielded an event or lasted StreamMaxBackoff: a server
// that keeps ending the stream at once is reconnected to ever more slowly,
// and the Client logs it once (WithLogger).
//
// An error that reconnecting cannot mend is yielded once and ends it: an
// after the server no longer keeps (wrapping ErrResyncRequired), a key
// refused (401, 403), a server without events (404); and ctx's error when
// ctx ends. Breaking out of the loop closes the connection.
//
// The transport is the Client's (WithHTTPClient), without its Timeout,
// which would cut the stream.
func (c *Client) Stream(ctx context.Context, after string) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		if c.baseErr != nil {
			yield(Event{}, c.baseErr)
			return
		}
		hc := *c.hc
		hc.Timeout = 0
		s := &eventStream{c: c, hc: &hc, last: after, first: true}
		short, warned := 0, false // short: connections in a row that the server accepted and ended at once
		for attempt := 1; ; attempt++ {
			start := time.Now()
			accepted, wait, err := s.connect(ctx, yield)
			if errors.Is(err, errStopped) {
				return
			}
			if ctx.Err() != nil {
				yield(Event{}, ctx.Err())
				return
			}
			if err != nil && wait < 0 {
				yield(Event{}, err)
				return
			}
			switch {
			case s.yielded || time.Since(start) >= StreamMaxBackoff:
				attempt, short = 1, 0 // a stream that served: the backoff starts again
			case accepted:
				if short++; short == 2 && !warned {
					warned = true
					c.logger.Warn("statusclient: the event stream ended at once after the server accepted it; reconnecting with a growing backoff",
						"url", s.c.base+"/events", "err", errString(err))
				}
			}
			s.yielded = false
			if wait == 0 {
				wait = backoff(attempt)
			}
			if err := c.sleep(ctx, wait); err != nil {
				yield(Event{}, err)
				return
			}
		}
	}
}

// errString is err's message, or "" for nil.
func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// errStopped: the consumer broke out of the loop.
var errStopped = errors.New("statusclient: stream stopped")

// backoff is the wait before the attempt-th reconnection: 1s doubled
// each time up to StreamMaxBackoff, then between half of it and all of
// it, at random, so that clients a replica dropped together do not come
// back together.
func backoff(attempt int) time.Duration {
	d := min(time.Second<<min(attempt-1, 10), StreamMaxBackoff)
	return d/2 + rand.N(d/2+1)
}

// eventStream is the state of one Stream across its connections.
type eventStream struct {
	c     *Client
	hc    *http.Client
	last  string // the last event id seen: the cursor to resume from
	first bool   // no connection made yet: send last as after, not as Last-Event-ID
	// yielded: the connection being made yielded an event.
	yielded bool
}

// connect makes one connection and yields its events until it ends. It
// reports whether the server accepted it,
// and how long to wait before the next: 0 for the backoff, the server's
// Retry-After, or < 0 with an error that reconnecting cannot mend.
func (s *eventStream) connect(ctx context.Context, yield func(Event, error) bool) (bool, time.Duration, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	target := s.c.base + "/events"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return false, -1, fmt.Errorf("statusclient: %w", err)
	}
	if s.last != "" {
		if s.first {
			req.URL.RawQuery = url.Values{"after": {s.last}}.Encode()
		} else {
			req.Header.Set("Last-Event-ID", s.last)
		}
	}
	req.Header.Set("Authorization", "Bearer "+s.c.apiKey)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("User-Agent", s.c.userAgent)
	res, err := s.hc.Do(req)
	if err != nil {
		return false, 0, err
	}
	defer func() {
		cancel() // first: the body of a live stream never ends by itself
		_ = res.Body.Close()
	}()
	if res.StatusCode != http.StatusOK {
		apiErr := readError(res, newResponse(res))
		switch {
		case res.StatusCode == http.StatusTooManyRequests || res.StatusCode >= 500:
			if apiErr.hasRetryAfter {
				return false, max(apiErr.RetryAfter, time.Millisecond), apiErr
			}
			return false, 0, apiErr
		case apiErr.Param == "after":
			return false, -1, resyncErr(apiErr, "after")
		}
		return false, -1, apiErr
	}
	if ct, _, _ := strings.Cut(res.Header.Get("Content-Type"), ";"); !strings.EqualFold(strings.TrimSpace(ct), "text/event-stream") {
		return false, -1, fmt.Errorf("statusclient: GET /events as a stream: the server answered %q, not text/event-stream", ct)
	}
	s.first = false
	// A connection silent for StreamIdleTimeout is dead: cancel it.
	idle := time.AfterFunc(StreamIdleTimeout, cancel)
	defer idle.Stop()
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 0, 4<<10), 1<<20)
	var id, data string
	var hasID bool
	for sc.Scan() {
		idle.Reset(StreamIdleTimeout)
		line := sc.Text()
		if line == "" { // dispatch
			if hasID {
				s.last = id
			}
			if data != "" {
				var e Event
				if err := json.Unmarshal([]byte(data), &e); err != nil {
					return true, -1, fmt.Errorf("statusclient: decoding an event: %w", err)
				}
				s.yielded = true
				if !yield(e, nil) {
					return true, 0, errStopped
				}
			}
			id, data, hasID = "", "", false
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "id":
			id, hasID = value, true
		case "data":
			if data != "" {
				data += "\n"
			}
			data += value
		}
		// "event" repeats the type in the data; a comment ("") is a
		// heartbeat.
	}
	return true, 0, sc.Err()
}
