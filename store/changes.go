package store

import (
	"cmp"
	"context"
	"errors"
	"strings"
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
	// one of these (none when it is empty), and adds the departures of
	// items that left one of them and are in none now, with ProjectID the
	// project left: what a key restricted to projects saw go.
	OnlyProjects []string
}

// Changes is the part of Store that tracks changes, so that a client can
// keep a copy in sync by polling: UpdatedAt set by the store on every
// visible change, UpdatedSince on every list, and a Deletion for every
// item removed (docs/store.md). statusapi serves updatedSince and
// GET /v1/deletions from it.
type Changes interface {
	// ListDeletions returns a page of the organization's deletion
	// records; an error wrapping ErrSinceTooOld when q.Since is before
	// what the store still knows.
	ListDeletions(ctx context.Context, orgID string, q DeletionQuery) (Page[Deletion], error)
}

// Deleter removes items for the portal, with the cascades: a project takes
// its milestones, deliverables and threads, and its invoices stay with a
// nil ProjectID; an organization takes everything, its API keys included.
// Each method answers ErrNotFound for an item the organization lacks.
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

// Follows reports whether an item at (at, kind, id) comes after p in a
// list of changes.
func (p Position) Follows(at time.Time, kind Kind, id string) bool {
	return cmp.Or(at.Compare(p.At), cmp.Compare(kind, p.Kind), strings.Compare(id, p.ID)) > 0
}
