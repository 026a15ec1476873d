package statusapi

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/clientstatus/clientstatus/envelope"
	"github.com/clientstatus/clientstatus/internal/eventwire"
	"github.com/clientstatus/clientstatus/store"
)

// eventRoutes is the event feed and its live stream (store.Events).
func (h *handler) eventRoutes() []route {
	// No scope: each key reads the events of the kinds its scopes cover
	// and of its projects (eventQuery).
	rt := h.keyedRoute("/v1/events", "", h.listEvents, "").answers(listAnswer[eventwire.Event]()).describe(operation{
		HeadSummary:     "List events (headers only)",
		HeadDescription: "`listEvents` without the body: the same status and headers (never a stream).",
		ID:              "listEvents", Tag: "Events", Tool: "list_events",
		Summary:     "List or stream events",
		Description: "The organization's events after `after`, oldest first, in an order that never changes once an event is visible: a client that resumes from the last id it handled never misses an event, however late its writer's transaction committed. Every client-visible change is an event, kept at least 30 days: `{kind}.created`, `.updated`, `.deleted`, and, when a status changes, also `{kind}.{new status}` with `data.previousStatus`. Internal content makes no event; content made internal is a `.deleted` event, as in `/v1/deletions`. `meta.page` is always 1 and `meta.total` counts the matching events after `after`; `Link: rel=\"next\"` carries the next `after` (the last event's id, or the same `after` on an empty page). A restricted key sees only the events of its scopes' kinds (`project` and `milestone` with `projects:read`, `deliverable` with `deliverables:read`, `invoice` with `invoices:read`, `thread` and `message` with `threads:read`) and of its projects; events need no scope of their own.\n\n**Live stream.** The same request with `Accept: text/event-stream` answers Server-Sent Events: the events after `Last-Event-ID` (which wins) or `after` (with neither, only new events), then each new event within about a second of its commit, and a `: ping` comment at least every 15 seconds; `Cache-Control: no-cache`, `X-Accel-Buffering: no`. `limit` is accepted and ignored. Opening a stream counts one request against the rate limit. An organization holds at most 5 streams at once on each server process (replica): the next is 429 `RATE_LIMITED` with `Retry-After: 15`. A stream ends within a second of its key being revoked or its organization losing access, when the server shuts down, and when the client does not read a write within 10 seconds; reconnect with `Last-Event-ID`. Parameters, the key and `after` are checked before the stream starts: their errors are JSON, as on the feed.",
		Responses:   map[int]string{200: "EventListResponse", 304: "NotModified"},
	}, params.After, params.EventTypes, params.Limit, params.AcceptEvents, params.LastEventID, params.IfNoneMatch).
		exemptBecause("its own auth, failure and stream cases: events_test.go, stream_test.go")
	feed := rt.handler
	rt.handler = func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && acceptsEventStream(r.Header.Values("Accept")) {
			h.streamEvents(w, r)
			return
		}
		// The same URL answers a stream to another Accept.
		w.Header()["Vary"] = varyAccept
		feed(w, r)
	}
	return []route{rt}
}

var varyAccept = []string{"Accept"}

// acceptsEventStream reports whether an Accept header names
// text/event-stream (parameters and weights aside): the live stream.
func acceptsEventStream(accept []string) bool {
	for _, v := range accept {
		for _, mr := range strings.Split(v, ",") {
			mt, _, _ := strings.Cut(mr, ";")
			if strings.EqualFold(strings.TrimSpace(mt), "text/event-stream") {
				return true
			}
		}
	}
	return false
}

// eventParams are the validated parameters of the event feed and stream.
type eventParams struct {
	after string
	types []string
	limit int
	given map[string]string // the query as given, for the next link
}

// eventParamsOf parses after, type (a comma list of event types, each
// valid: see validEventType) and limit; anything else is refused as on
// every list.
func eventParamsOf(r *http.Request) (eventParams, error) {
	q, err := query(r.URL.RawQuery, paramAfter, paramType, paramLimit)
	if err != nil {
		return eventParams{}, err
	}
	p := eventParams{after: q[paramAfter], given: q}
	if p.limit, err = limitOf(q); err != nil {
		return eventParams{}, err
	}
	if v, ok := q[paramType]; ok {
		for _, t := range strings.Split(v, ",") {
			if !validEventType(t) {
				return eventParams{}, envelope.InvalidParam(paramType, "type must be a comma-separated list of event types: {type}.created, {type}.updated, {type}.deleted or {type}.{status}, such as invoice.paid,deliverable.in_review, where type is one of "+joinKinds())
			}
			if !slices.Contains(p.types, t) {
				p.types = append(p.types, t)
			}
		}
	}
	return p, nil
}

// validEventType reports whether t is "{kind}.created", ".updated",
// ".deleted", or "{kind}.{one of its statuses}".
func validEventType(t string) bool {
	kind, what, ok := strings.Cut(t, ".")
	if !ok || !store.Kind(kind).Valid() {
		return false
	}
	switch store.Action(what) {
	case store.ActionCreated, store.ActionUpdated, store.ActionDeleted:
		return true
	}
	return slices.Contains(kindStatuses[store.Kind(kind)], what)
}

// eventQuery is the store's query for p and the caller: the kinds its
// scopes cover and its projects only.
func eventQuery(p eventParams, c caller) store.EventQuery {
	return store.EventQuery{After: p.after, Types: p.types, Limit: p.limit,
		OnlyKinds: deletionKinds(c.Principal), OnlyProjects: c.ProjectIDs}
}

// errUnknownAfter answers an after (or Last-Event-ID) that the store does
// not keep.
var errUnknownAfter = envelope.InvalidParam(paramAfter, "after names no event kept (unknown, or older than the 30 days events are kept): resync in full, then resume from the newest event")

// listEvents serves GET /v1/events?after&type&limit: the caller's events
// after after, oldest first, with the total after it and a Link rel=next
// carrying the id to resume from. Not response-cached: which events are
// kept also depends on the time.
func (h *handler) listEvents(r *http.Request, c caller) (response, error) {
	p, err := eventParamsOf(r)
	if err != nil {
		return response{}, err
	}
	pg, err := h.events.ListEvents(r.Context(), c.Org.ID, eventQuery(p, c))
	if errors.Is(err, store.ErrUnknownCursor) {
		return response{}, errUnknownAfter
	}
	if err != nil {
		return response{}, err
	}
	items := make([]eventwire.Event, len(pg.Events))
	for i, e := range pg.Events {
		items[i] = eventwire.From(e)
	}
	meta := envelope.Meta{Page: 1, PerPage: p.limit, Total: pg.Total}
	return response{
		body: func(w http.ResponseWriter, r *http.Request) { envelope.WriteList(w, r, items, meta) },
		link: h.nextEvents(r, p, pg.Last),
	}, nil
}

// nextEvents is the Link header of a page of events: rel="next", the same
// route and parameters with after set to last (left out when last is "":
// no event yet), so that a client following it never goes back.
func (h *handler) nextEvents(r *http.Request, p eventParams, last string) string {
	v := make(url.Values, len(p.given)+1)
	for name, value := range p.given {
		v.Set(name, value)
	}
	v.Del(paramAfter)
	if last != "" {
		v.Set(paramAfter, last)
	}
	target := h.publicURL(r) + r.URL.EscapedPath()
	if len(v) > 0 {
		target += "?" + v.Encode()
	}
	return "<" + target + `>; rel="next"`
}
