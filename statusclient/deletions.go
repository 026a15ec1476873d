package statusclient

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"time"
)

// DeletionType is the kind of item a deletion record names.
type DeletionType string

// The kinds of item that can disappear.
const (
	DeletionProject     DeletionType = "project"
	DeletionMilestone   DeletionType = "milestone"
	DeletionDeliverable DeletionType = "deliverable"
	DeletionInvoice     DeletionType = "invoice"
	DeletionThread      DeletionType = "thread"
	DeletionMessage     DeletionType = "message"
)

// Deletion records that an item disappeared from the organization's view
// at DeletedAt: it was deleted, or deleted with its project (a project
// takes its milestones, deliverables and threads with it, each recorded),
// or, for a thread or a message, made internal, which looks the same. The
// server keeps records at least 30 days, and drops one when an item of the
// same type and id appears again.
type Deletion struct {
	Type      DeletionType `json:"type"`
	ID        string       `json:"id"`
	DeletedAt time.Time    `json:"deletedAt"`
}

// DeletionListOptions selects deletion records.
type DeletionListOptions struct {
	ListOptions
	// Since is required: the records with DeletedAt at or after it
	// (inclusive: pass the smallest Meta.SyncedThrough of the pages you
	// walked, and expect some records again), as UpdatedSince (see
	// ListOptions). A zero Since is an error, returned before any request.
	Since time.Time `url:"since"`
	// Type, when not "", keeps only the records of that kind of item.
	Type DeletionType `url:"type"`
	// IfNoneMatch makes the call conditional (see ListOptions).
	IfNoneMatch string `header:"If-None-Match"`
}

// ErrResyncRequired is wrapped by the error of ListDeletions and
// AllDeletions when the server no longer knows what was deleted since
// DeletionListOptions.Since: it is older than the records the server keeps
// (at least 30 days), or older than the server's memory (an in-memory
// store that restarted). A copy kept in sync from that time can no longer
// learn what it must drop: load everything again (Client.Sync does so by
// itself). Test for it with errors.Is; the error also holds the server's
// *Error (400, CodeInvalidParameter, Param "since"), for errors.As and
// ErrorCodeOf.
var ErrResyncRequired = errors.New("statusclient: resync required")

// errNoSince is returned, without a request, for deletions asked with a
// zero Since: the server requires one.
var errNoSince = errors.New("statusclient: DeletionListOptions.Since is required")

// deletions are the routes of /v1/deletions (no route serves one record).
var deletions = collection[Deletion, DeletionListOptions]{path: "/deletions"}

// ListDeletions returns one page of the records of what disappeared from
// the organization's view at or after opts.Since, ordered by DeletedAt
// ascending, then Type, then ID. A Since older than the server keeps is an
// error wrapping ErrResyncRequired.
func (c *Client) ListDeletions(ctx context.Context, opts DeletionListOptions) ([]Deletion, *Response, error) {
	if opts.Since.IsZero() {
		return nil, nil, errNoSince
	}
	items, resp, err := deletions.list(ctx, c, opts)
	return items, resp, resyncErr(err, "since")
}

// AllDeletions walks every page of ListDeletions and yields each record
// once (see ListOptions); its error wraps ErrResyncRequired as
// ListDeletions' does.
func (c *Client) AllDeletions(ctx context.Context, opts DeletionListOptions) iter.Seq2[Deletion, error] {
	if opts.Since.IsZero() {
		return failed[Deletion](errNoSince)
	}
	records := deletions.all(ctx, c, opts)
	return func(yield func(Deletion, error) bool) {
		for d, err := range records {
			if !yield(d, resyncErr(err, "since")) {
				return
			}
		}
	}
}

// resyncErr wraps ErrResyncRequired around the server's refusal of the
// parameter param, since or after: the client always writes them as the
// contract says, so the server refuses one only for being older than it
// keeps.
func resyncErr(err error, param string) error {
	if isParamRefused(err, param) {
		return fmt.Errorf("%w: %w", ErrResyncRequired, err)
	}
	return err
}

// isParamRefused reports whether err is the server's 400
// INVALID_PARAMETER naming param.
func isParamRefused(err error, param string) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == CodeInvalidParameter && e.Param == param
}
