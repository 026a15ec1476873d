package store

import (
	"context"
	"errors"
	"time"
)

// DeletionRetention is how long, at least, a store that tracks changes
// keeps its deletion records. A client that asks for deletions since an
// older time must resync in full.
const DeletionRetention = 30 * 24 * time.Hour

// ErrSinceTooOld is returned (wrapped) by ListDeletions when
// DeletionQuery.Since is before what the store still knows: older than the
// records it keeps, or before an in-memory store started. The handler
// answers 400 INVALID_PARAMETER naming since.
var ErrSinceTooOld = errors.New("since is older than the changes the store still knows")

// Deletion records that an item disappeared from its organization's view:
// deleted, deleted with the project it belonged to, or (threads and
// messages) made internal.
type Deletion struct {
	Kind Kind
	ID   string
	// ProjectID is the project the item belonged to when it disappeared
	// ("" for a retainer invoice, an organization-wide thread and its
	// messages), so that a key restricted to projects sees only theirs.
	// It is not sent to clients.
	ProjectID string
	DeletedAt time.Time
}

// DeletionQuery selects an organization's deletion records with DeletedAt
// at or after Since (inclusive), ordered by DeletedAt ascending, then Kind,
// then ID.
type DeletionQuery struct {
	PageRequest
	Since time.Time // required
	Kind  Kind      // "" for any
	// After, when not zero, keeps only the records that follow it (see
	// Position): a walk by cursor.
	After Position
	// OnlyKinds, when not nil, keeps only records of these kinds (none
	// when it is empty): those of a key restricted to some scopes (see
	// Store). It combines with Kind.
	OnlyKinds []Kind
	// OnlyProjects, when not nil, keeps only records whose ProjectID is
	// one of these, never one without (none when it is empty): a key
	// restricted to projects (see Store). It adds the departures
	// of items that still exist: each item that left one of these
	// projects (moved to another project or to none, as a deleted
	// project's invoices do) and is in none of them now, once, with
	// ProjectID the project it left and DeletedAt when it last left one,
	// in the same order and total. Without it, a list never holds an item
	// that still exists.
	OnlyProjects []string
}

// Changes is the part of Store that tracks changes, so that a client can
// keep a copy in sync by polling. A Store promises, for every kind of item
// it holds:
//
//   - UpdatedAt is its own: set from the store's clock whenever a write
//     changes what a client sees (a field, or a project taken from an
//     invoice by a cascade), kept by a write that changes nothing, and
//     never taken from the item given to a Put;
//   - every list honours its query's UpdatedSince: when it is not zero,
//     only items with UpdatedAt at or after it, ordered by UpdatedAt
//     ascending, then ID, with the total counting them;
//   - every item removed (by a Deleter, or by a cascade) leaves a
//     Deletion, kept at least DeletionRetention, and dropped when an item
//     of the same kind and id is put again.
//   - every visible item that moves out of a project while it exists
//     leaves a departure (see DeletionQuery.OnlyProjects), kept like a
//     Deletion and dropped when the item is back in that project.
//
// statusapi serves the updatedSince parameter and GET /v1/deletions from
// it; implementations are safe for concurrent use and honour ctx.
type Changes interface {
	// ListDeletions returns a page of the organization's deletion
	// records; an error wrapping ErrSinceTooOld when q.Since is before
	// what the store still knows.
	ListDeletions(ctx context.Context, orgID string, q DeletionQuery) (Page[Deletion], error)
}

// Deleter removes items, with the contract's cascades: a project takes its
// milestones and deliverables (and threads with their messages) with it,
// and invoices that named it stay with a nil ProjectID; an organization
// takes everything it owns, and its API keys stop working. Each method
// returns an error wrapping ErrNotFound when the organization has no such
// item, so that a portal can tell "gone" from "never there".
//
// Like Writer it is for the portal's side, never called by the API.
// Implementations are safe for concurrent use.
type Deleter interface {
	DeleteOrganization(ctx context.Context, orgID string) error
	DeleteProject(ctx context.Context, orgID, id string) error
	DeleteMilestone(ctx context.Context, orgID, id string) error
	DeleteDeliverable(ctx context.Context, orgID, id string) error
	DeleteInvoice(ctx context.Context, orgID, id string) error
}

// Position is a place in a list of changes, for a walk by cursor: in a
// list asked with UpdatedSince (ordered by UpdatedAt, then ID) At is an
// UpdatedAt and Kind is empty; in a page of deletions (ordered by
// DeletedAt, then Kind, then ID) At is a DeletedAt. A query's After, when
// not zero, keeps only the items that follow it in that order, and its
// total counts them: an item that keeps its place is never skipped,
// however others move, arrive or leave.
type Position struct {
	At   time.Time
	Kind Kind
	ID   string
}

// IsZero reports whether p is no position: the walk starts at the
// beginning.
func (p Position) IsZero() bool { return p.At.IsZero() && p.Kind == "" && p.ID == "" }

// follows reports whether an item at (at, kind, id) comes after p in a
// list of changes.
func (p Position) follows(at time.Time, kind Kind, id string) bool {
	if c := at.Compare(p.At); c != 0 {
		return c > 0
	}
	if kind != p.Kind {
		return kind > p.Kind
	}
	return id > p.ID
}
