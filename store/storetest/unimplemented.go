package storetest

import (
	"context"
	"errors"
	"fmt"

	"github.com/clientstatus/clientstatus/store"
)

// Unimplemented is a store.Store whose every read fails with an error
// wrapping errors.ErrUnsupported and naming the method (or with Err's);
// Ping answers nil
// and WatchEvents never wakes. It is the base of a partial fake: embed it
// and override the methods a test is about, so that the fake satisfies
// store.Store, and any other read fails loudly (the handler answers it
// 500 INTERNAL) rather than fall back on real data:
//
//	type failingProjects struct{ storetest.Unimplemented }
//
//	func (failingProjects) ListProjects(context.Context, string, store.ProjectQuery) (store.Page[store.Project], error) {
//		return store.Page[store.Project]{}, store.ErrUnavailable
//	}
//
// A fake that should serve real data apart from a few methods embeds a
// *store.Memory instead. The zero value is ready to use.
type Unimplemented struct {
	// Err, when not nil, is the error of every read instead, given the
	// read's context and the method's name: a store that fails or blocks
	// in every read, whatever reads store.Store grows.
	Err func(ctx context.Context, method string) error
}

var _ store.Store = Unimplemented{}

func (u Unimplemented) fail(ctx context.Context, method string) error {
	if u.Err != nil {
		return u.Err(ctx, method)
	}
	return fmt.Errorf("storetest.Unimplemented: %s: %w", method, errors.ErrUnsupported)
}

// ListProjects fails with errors.ErrUnsupported.
func (u Unimplemented) ListProjects(ctx context.Context, _ string, _ store.ProjectQuery) (store.Page[store.Project], error) {
	return store.Page[store.Project]{}, u.fail(ctx, "ListProjects")
}

// GetProject fails with errors.ErrUnsupported.
func (u Unimplemented) GetProject(ctx context.Context, _ string, _ string) (store.Project, error) {
	return store.Project{}, u.fail(ctx, "GetProject")
}

// GetProjects fails with errors.ErrUnsupported.
func (u Unimplemented) GetProjects(ctx context.Context, _ string, _ []string) ([]store.Project, error) {
	return nil, u.fail(ctx, "GetProjects")
}

// ListMilestones fails with errors.ErrUnsupported.
func (u Unimplemented) ListMilestones(ctx context.Context, _ string, _ string, _ store.MilestoneQuery) (store.Page[store.Milestone], error) {
	return store.Page[store.Milestone]{}, u.fail(ctx, "ListMilestones")
}

// GetMilestone fails with errors.ErrUnsupported.
func (u Unimplemented) GetMilestone(ctx context.Context, _ string, _ string) (store.Milestone, error) {
	return store.Milestone{}, u.fail(ctx, "GetMilestone")
}

// ListDeliverables fails with errors.ErrUnsupported.
func (u Unimplemented) ListDeliverables(ctx context.Context, _ string, _ store.DeliverableQuery) (store.Page[store.Deliverable], error) {
	return store.Page[store.Deliverable]{}, u.fail(ctx, "ListDeliverables")
}

// GetDeliverable fails with errors.ErrUnsupported.
func (u Unimplemented) GetDeliverable(ctx context.Context, _ string, _ string) (store.Deliverable, error) {
	return store.Deliverable{}, u.fail(ctx, "GetDeliverable")
}

// ListInvoices fails with errors.ErrUnsupported.
func (u Unimplemented) ListInvoices(ctx context.Context, _ string, _ store.InvoiceQuery) (store.Page[store.Invoice], error) {
	return store.Page[store.Invoice]{}, u.fail(ctx, "ListInvoices")
}

// GetInvoice fails with errors.ErrUnsupported.
func (u Unimplemented) GetInvoice(ctx context.Context, _ string, _ string) (store.Invoice, error) {
	return store.Invoice{}, u.fail(ctx, "GetInvoice")
}

// ListDeletions fails with errors.ErrUnsupported.
func (u Unimplemented) ListDeletions(ctx context.Context, _ string, _ store.DeletionQuery) (store.Page[store.Deletion], error) {
	return store.Page[store.Deletion]{}, u.fail(ctx, "ListDeletions")
}

// DataVersion fails with errors.ErrUnsupported.
func (u Unimplemented) DataVersion(ctx context.Context, _ string) (int64, error) {
	return 0, u.fail(ctx, "DataVersion")
}

// ListThreads fails with errors.ErrUnsupported.
func (u Unimplemented) ListThreads(ctx context.Context, _ string, _ store.ThreadQuery) (store.Page[store.Thread], error) {
	return store.Page[store.Thread]{}, u.fail(ctx, "ListThreads")
}

// GetThread fails with errors.ErrUnsupported.
func (u Unimplemented) GetThread(ctx context.Context, _ string, _ string) (store.Thread, error) {
	return store.Thread{}, u.fail(ctx, "GetThread")
}

// ListThreadMessages fails with errors.ErrUnsupported.
func (u Unimplemented) ListThreadMessages(ctx context.Context, _ string, _ string, _ store.MessageQuery) (store.Page[store.Message], error) {
	return store.Page[store.Message]{}, u.fail(ctx, "ListThreadMessages")
}

// ListMessages fails with errors.ErrUnsupported.
func (u Unimplemented) ListMessages(ctx context.Context, _ string, _ store.MessageQuery) (store.Page[store.Message], error) {
	return store.Page[store.Message]{}, u.fail(ctx, "ListMessages")
}

// GetMessage fails with errors.ErrUnsupported.
func (u Unimplemented) GetMessage(ctx context.Context, _ string, _ string, _ []string) (store.Message, error) {
	return store.Message{}, u.fail(ctx, "GetMessage")
}

// GetAttachment fails with errors.ErrUnsupported.
func (u Unimplemented) GetAttachment(ctx context.Context, _ string, _ string) (store.Attachment, error) {
	return store.Attachment{}, u.fail(ctx, "GetAttachment")
}

// ListEvents fails with errors.ErrUnsupported.
func (u Unimplemented) ListEvents(ctx context.Context, _ string, _ store.EventQuery) (store.EventPage, error) {
	return store.EventPage{}, u.fail(ctx, "ListEvents")
}

// LatestEvent fails with errors.ErrUnsupported.
func (u Unimplemented) LatestEvent(ctx context.Context, _ string) (string, error) {
	return "", u.fail(ctx, "LatestEvent")
}

// WatchEvents returns a channel that never wakes, closed when ctx is
// done.
func (Unimplemented) WatchEvents(ctx context.Context, _ string) <-chan struct{} {
	ch := make(chan struct{}, 1)
	context.AfterFunc(ctx, func() { close(ch) })
	return ch
}

// Ping answers nil: a fake is always there.
func (Unimplemented) Ping(context.Context) error { return nil }
