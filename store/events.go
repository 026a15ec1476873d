package store

import (
	"context"
	"errors"
	"time"
)

// EventRetention is how long, at least, a store keeps its events (the
// contract's 30 days). A client resuming from an older event must resync
// in full.
const EventRetention = 30 * 24 * time.Hour

// ErrUnknownCursor is returned (wrapped) by ListEvents when EventQuery.After
// names no event the store still keeps: unknown, malformed, or older than
// EventRetention. The handler answers 400 INVALID_PARAMETER naming after.
var ErrUnknownCursor = errors.New("unknown or expired event cursor")

// Action is what happened to an item, as the second part of an event's
// type: "invoice.created".
type Action string

// The actions of the change spine. A change of status is also an event of
// its own, typed by the new status ("invoice.paid"), beside the updated one.
const (
	ActionCreated Action = "created"
	ActionUpdated Action = "updated"
	ActionDeleted Action = "deleted"
)

// Event is one client-visible change, as GET /v1/events serves it. It
// carries little: a client reads the item itself. Internal content makes
// none; content made internal is a deleted event, as in ListDeletions.
type Event struct {
	// ID is opaque ("evt_..."), unique in the organization, and names the
	// event's place in the feed: the order of ListEvents, which never
	// changes once an event is visible. Compare ids for equality only.
	ID string
	// Type is "{kind}.{action}" or, for a change of status,
	// "{kind}.{new status}" ("invoice.paid"), with PreviousStatus set.
	Type string
	Kind Kind
	// ItemID is the id of the item that changed.
	ItemID string
	// ProjectID is the project the item belongs to ("" for none: a
	// retainer invoice, an organization-wide thread and its messages); for
	// a deleted item, or one that left a project, the project it was in.
	ProjectID string
	// ThreadID is a message's thread ("" for other kinds).
	ThreadID string
	// PreviousStatus is the status before a change of status ("" for other
	// events).
	PreviousStatus string
	// CreatedAt is when the change was written, to the second: the item's
	// new UpdatedAt (or the DeletedAt of its deletion record).
	CreatedAt time.Time
}

// EventQuery selects an organization's events after a cursor, oldest
// first, in the order that never changes once an event is visible.
type EventQuery struct {
	// After is the id of the last event the client saw; "" for the oldest
	// event kept. An id the store does not keep is ErrUnknownCursor.
	After string
	// Types, when not empty, keeps only events of these types
	// ("invoice.paid", "project.created").
	Types []string
	// Limit is the most events returned (1..MaxLimit).
	Limit int
	// OnlyKinds, when not nil, keeps only events of items of these kinds
	// (none when it is empty): those of a key restricted to some scopes.
	OnlyKinds []Kind
	// OnlyProjects, when not nil, keeps only events whose ProjectID is one
	// of these, never one without (none when it is empty): a key
	// restricted to projects.
	OnlyProjects []string
}

// EventPage is one page of events.
type EventPage struct {
	Events []Event
	// Total counts the events after After that match the query, this page
	// included.
	Total int
	// Last is the id to resume from: the last event's id on this page,
	// or, on an empty page, the query's After (so that a client that
	// follows it never goes back).
	Last string
}

// Events is the feed of client-visible changes, kept at least
// EventRetention, in an order a reader resumes without gaps however
// transactions commit (docs/store.md). Implementations are safe for
// concurrent use and honour ctx.
type Events interface {
	// ListEvents returns the organization's events after q.After, oldest
	// first; an error wrapping ErrUnknownCursor for an After it does not
	// keep.
	ListEvents(ctx context.Context, orgID string, q EventQuery) (EventPage, error)
	// LatestEvent returns the id of the organization's newest visible
	// event, or "" when it has none: where a live stream opened without a
	// cursor starts.
	LatestEvent(ctx context.Context, orgID string) (string, error)
	// WatchEvents returns a channel, closed when ctx is done and buffered
	// by one, that receives a value soon after new events of the
	// organization may have become visible on any replica. A wake-up may
	// be spurious or missed: a reader also lists again now and then.
	WatchEvents(ctx context.Context, orgID string) <-chan struct{}
}
