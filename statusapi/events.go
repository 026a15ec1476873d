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

var _ = registerRoutes(eventRoutes)

// eventRoutes is the event feed and its live stream (store.Events).
func eventRoutes(h *handler) []route {
	// No scope: each key reads the events of the kinds its scopes cover
	// and of its projects (eventQuery).
	rt := h.keyedRoute("/v1/events", "", h.listEvents, "").
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
// scopes cover and its projects only (CONTRACT.md, "Restricted keys").
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
