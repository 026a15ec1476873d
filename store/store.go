package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// ErrNotFound is returned (wrapped) when the organization has no item with
// the requested id, including when the id belongs to another organization.
var ErrNotFound = errors.New("not found")

// ErrInvalid is returned (wrapped) when an item or a request is refused for
// what it holds rather than for what is stored: every Validate error, so
// every Writer's refusal of an invalid item (memstore.Store's, bunstore's),
// and a page request below 1. A portal answers it as its caller's mistake
// (400), not as an outage. auth.ErrInvalidInput is the same error.
var ErrInvalid = errors.New("invalid")

// ErrUnavailable is returned (wrapped) when the backing engine cannot be
// reached or does not answer in time. The handler answers it with 503
// UNAVAILABLE; so it does a context.DeadlineExceeded.
var ErrUnavailable = errors.New("store unavailable")

// ErrLockTimeout is returned (wrapped) by a write that waited too long for
// a lock another transaction holds on what it writes (the same item, say):
// contention, not an outage, so it is not ErrUnavailable. Retrying after
// the other transaction ends succeeds.
var ErrLockTimeout = errors.New("lock wait timed out")

// Store is the read side of API v1: one organization's items, one page at
// a time, and the parts embedded below. Implementations are safe for
// concurrent use and honour ctx; every list is in its query type's order,
// the id last, and every query honours a restricted key's OnlyProjects
// and OnlyKinds. The whole contract: docs/store.md.
type Store interface {
	// ListProjects returns a page of the organization's projects.
	ListProjects(ctx context.Context, orgID string, q ProjectQuery) (Page[Project], error)
	// GetProject returns one project, or ErrNotFound.
	GetProject(ctx context.Context, orgID, id string) (Project, error)
	// GetProjects returns the organization's projects whose ids are in
	// ids, in one read, in the order of ids, each once; an id it has no
	// project of is skipped, not an error. It serves expand=project: the
	// projects of a page of items.
	GetProjects(ctx context.Context, orgID string, ids []string) ([]Project, error)
	// ListMilestones returns a page of one project's milestones, or
	// ErrNotFound when the organization has no such project; its
	// ProjectID filter is projectID.
	ListMilestones(ctx context.Context, orgID, projectID string, q MilestoneQuery) (Page[Milestone], error)
	// ListAllMilestones returns a page of the organization's milestones
	// of every project. An unknown ProjectID filter gives an empty page.
	ListAllMilestones(ctx context.Context, orgID string, q AllMilestoneQuery) (Page[Milestone], error)
	// GetMilestone returns one milestone, or ErrNotFound.
	GetMilestone(ctx context.Context, orgID, id string) (Milestone, error)
	// ListDeliverables returns a page of the organization's deliverables.
	// An unknown ProjectID filter gives an empty page, not an error.
	ListDeliverables(ctx context.Context, orgID string, q DeliverableQuery) (Page[Deliverable], error)
	// GetDeliverable returns one deliverable, or ErrNotFound.
	GetDeliverable(ctx context.Context, orgID, id string) (Deliverable, error)
	// ListInvoices returns a page of the organization's invoices.
	// An unknown ProjectID filter gives an empty page, not an error.
	ListInvoices(ctx context.Context, orgID string, q InvoiceQuery) (Page[Invoice], error)
	// GetInvoice returns one invoice, with where its document lives, or
	// ErrNotFound.
	GetInvoice(ctx context.Context, orgID, id string) (Invoice, error)

	// Changes: the deletions feed, UpdatedAt and UpdatedSince.
	Changes
	// Versions: the data version the response cache is keyed by.
	Versions
	// Threads: communication threads, messages and attachments.
	Threads
	// Events: the event feed and its live stream.
	Events

	// Ping reports whether the store can serve, for a readiness check
	// (statusapi.Ready): nil when it can, an error (wrapping
	// ErrUnavailable, or ctx's error) when it cannot.
	Ping(ctx context.Context) error
}

// PageRequest selects one page of a list. The handler validates it before a
// Store sees it (Page >= 1, 1 <= Limit <= MaxLimit); a Store may treat other
// values as a programming error.
type PageRequest struct {
	Page  int // from 1
	Limit int // items per page
}

// ListFilter holds the filters of the lists of items, each declared once:
// every list query embeds it, and a store applies each field that is not
// zero to every list, as one condition. A field that tests
// what a kind has not (DueBefore on deliverables) matches none of its
// items; the zero ListFilter matches every item.
type ListFilter struct {
	// ProjectID keeps only the items of this project (a project itself
	// for projects); an unknown one matches nothing. A list under a
	// project (ListMilestones) sets it to that project.
	ProjectID string
	// DueBefore keeps only the items whose DueAt is before it
	// (exclusive); an item with no DueAt never matches.
	DueBefore time.Time
	// UpdatedSince keeps only the items with UpdatedAt at or after it,
	// ordered by UpdatedAt ascending, then ID (see Changes).
	UpdatedSince time.Time
	// After keeps only the items that follow it in the UpdatedSince
	// order (see Position); it is honoured with UpdatedSince only.
	After Position
	// OnlyProjects, when not nil, keeps only the items of these projects,
	// never one of no project (none when it is empty): a restricted
	// key's (see Store). It combines with ProjectID.
	OnlyProjects []string
}

// Paging defaults and bounds of the contract.
const (
	DefaultLimit = 20
	MaxLimit     = 100
)

// Offset is the number of items before the page.
func (p PageRequest) Offset() int { return (p.Page - 1) * p.Limit }

// Page is one page of a list and the count of all items matching the query.
type Page[T any] struct {
	Items []T
	Total int
	// SyncedThrough, on a list asked with UpdatedSince and on every page
	// of deletions (zero otherwise), is a second at or after which every
	// write this page could not see yet will be dated: a client that asks
	// again from it misses nothing (meta.syncedThrough).
	SyncedThrough time.Time
	// Version, when not 0, is the organization's data version (Versions)
	// that the page was read at, in the same snapshot as its items and
	// total, for a store that can read both at once: a caller that keeps
	// pages by version then needs no read of the version before the page.
	// 0 says nothing.
	Version int64
}

// Storable reports whether every store keeps s exactly: s is valid UTF-8
// and holds no NUL, as PostgreSQL's text requires. Every Validate refuses
// an id that is not Storable, and in a Store such a value matches nothing.
func Storable(s string) bool {
	return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
}

// checkStorable reports a field of an item (its "id", or an id it refers
// to) that is not Storable.
func checkStorable(kind, id, field, value string) error {
	const why = "holds a NUL or is not valid UTF-8, which no store keeps exactly"
	switch {
	case Storable(value):
		return nil
	case field == "id": // invalid names it already
		return Invalid(kind, id, "the id %s", why)
	}
	return Invalid(kind, id, "%s %q %s", field, value, why)
}

// Invalid is the error of a Validate method, or of a store that refuses
// an item: it names the item so that a message about a data file points at
// the right entry, and it wraps ErrInvalid.
func Invalid(kind, id, format string, args ...any) error {
	return invalidError(fmt.Sprintf("store: %s %q: %s", kind, id, fmt.Sprintf(format, args...)))
}

// invalidError is ErrInvalid with a message of its own: the message names
// the item and the problem ("store: invoice "i1": negative total -1"),
// without a ": invalid" that would say the same thing twice.
type invalidError string

func (e invalidError) Error() string { return string(e) }

func (invalidError) Unwrap() error { return ErrInvalid }

// checkOwned reports the first problem with the id and organization id that
// every owned item carries.
func checkOwned(kind, id, orgID string) error {
	if id == "" {
		return Invalid(kind, id, "empty id")
	}
	if orgID == "" {
		return Invalid(kind, id, "empty organization id")
	}
	if err := checkStorable(kind, id, "id", id); err != nil {
		return err
	}
	return checkStorable(kind, id, "organization id", orgID)
}
