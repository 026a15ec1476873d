// Package store holds the domain types of the status API, the Store
// interface through which the handler reads them, and an in-memory Store.
//
// Every read is scoped by an explicit organization id: a Store never returns
// an item of another organization, and answers an id that exists only in
// another organization exactly as one that does not exist (ErrNotFound).
//
// # What a Store declares
//
// Store is the whole read side of API v1, declared, never discovered: the
// items of the first contract, changes and deletions (Changes), data
// versions (Versions), threads (Threads), events (Events), Ping, and the
// promise that every query honours a restricted key's OnlyProjects and
// OnlyKinds. statusapi serves every route of v1 from any Store, so a
// portal that wraps its store (struct{ store.Store }, for tracing, say)
// keeps every feature. store.Memory and store/bunstore implement it all.
//
// The portal's side is separate, and called on concrete types, never
// discovered by the handler: Writer, Deleter, ThreadWriter and
// Organizations. What stays optional is given to statusapi explicitly:
// a RequestLog through the RequestRecorder of statusapi.WithRequestLog,
// WebhookEndpoints through statusapi.WithWebhookEndpoints.
//
// A partial Store for a test embeds a Store (a *Memory, usually) and
// overrides the methods it is about; storetest.Unimplemented is a base
// whose methods all fail with errors.ErrUnsupported, for a fake that must
// not fall back on real data.
//
// # Adding a kind of item
//
// A kind of item lives in its own files (<resource>.go: its types,
// Validate, query, interfaces and Kind constant; memory_<resource>.go:
// Memory's part) and is named in three tables in view: Kinds (and
// aboutKindList when a thread may be about it), memoryKinds for a kind
// Memory keeps in a table, and storetest's kindCases. Its read interface
// is embedded in Store.
//
// The conformance suite in store/storetest pins down the behaviour every
// implementation must share: ordering, paging, filters, totals, scoping,
// not-found, cancellation, restrictions, data versions, UpdatedAt,
// UpdatedSince and deletion records, communication threads and the
// invisibility of internal content, deletes and cascades, over a store
// with its whole write side. Package store
// depends on the standard library only.
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
// every Writer's refusal of an invalid item (store.Memory's, bunstore's),
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

// Store reads one organization's projects, milestones, deliverables and
// invoices, one page at a time.
//
// Implementations are safe for concurrent use. Every method honours ctx:
// when it is cancelled or its deadline passes, the method returns promptly
// with an error that wraps ctx.Err(). Every list returns its items in the
// order documented on its query type, with the id as the last tie-breaker,
// so that walking the pages returns each item exactly once; Page.Total
// counts all items matching the filters, whatever the page.
//
// Ids are opaque strings compared byte for byte. An id or filter value
// that is not Storable matches nothing: a get answers ErrNotFound, a list
// filtered by it has no items (ListMilestones answers ErrNotFound).
//
// Every query honours the restrictions of restricted API keys
// (auth.Restriction), so that such a key never sees an item outside its
// projects, nor a total that counts one: OnlyProjects on every query type
// (ProjectQuery, AllMilestoneQuery, DeliverableQuery, InvoiceQuery, DeletionQuery,
// ThreadQuery, MessageQuery, EventQuery; ListThreadMessages answers
// ErrNotFound for a thread outside them), OnlyKinds on DeletionQuery and
// EventQuery, the ProjectID of the Attachment that GetAttachment returns
// and the onlyProjects of GetMessage. Other gets need nothing of the
// store: each item names its project, and the handler checks it.
//
// The embedded interfaces (Changes, Versions, Threads, Events) are parts
// of v1 named for their documentation; a Store implements them all.
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
	// ErrNotFound when the organization has no such project.
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
	// SyncedThrough is set by a store that tracks changes (Changes) on a
	// list asked with UpdatedSince and on every page of deletions, and is
	// zero otherwise. It is a time, to the second, such that every write
	// this page could not see yet (a transaction in flight, whatever its
	// length or the locks it waits on) has or will get an UpdatedAt (or
	// DeletedAt) at or after it: a client that asks again from it misses
	// nothing. With nothing in flight it is the store's current second.
	// See CONTRACT.md, "Changes and deletions" (meta.syncedThrough).
	SyncedThrough time.Time
	// Version, when not 0, is the organization's data version (Versions)
	// that the page was read at, in the same snapshot as its items and
	// total, for a store that can read both at once: a caller that keeps
	// pages by version then needs no read of the version before the page.
	// 0 says nothing.
	Version int64
}

// Storable reports whether every store keeps s exactly: s is valid UTF-8
// and holds no NUL. PostgreSQL's text holds neither a NUL nor invalid
// UTF-8, and its driver would drop the one and replace the other with
// U+FFFD, so "p1\x00" would be read as "p1" and "p\xff" as "p\ufffd".
// Every Validate refuses an id, or an id an item refers to, that is not
// Storable, and in a Store such a value matches nothing.
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
		return invalid(kind, id, "the id %s", why)
	}
	return invalid(kind, id, "%s %q %s", field, value, why)
}

// invalid is the error of a Validate method: it names the item so that a
// message about a data file points at the right entry, and it wraps
// ErrInvalid.
func invalid(kind, id, format string, args ...any) error {
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
		return invalid(kind, id, "empty id")
	}
	if orgID == "" {
		return invalid(kind, id, "empty organization id")
	}
	if err := checkStorable(kind, id, "id", id); err != nil {
		return err
	}
	return checkStorable(kind, id, "organization id", orgID)
}
