package storetest

import (
	"context"
	"errors"
	"fmt"

	"github.com/clientstatus/clientstatus/store"
)

// Unimplemented is a store.Store whose every read fails with an error
// wrapping errors.ErrUnsupported and naming the method; Ping answers nil
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
type Unimplemented struct{}

var _ store.Store = Unimplemented{}

func unsupported(method string) error {
	return fmt.Errorf("storetest.Unimplemented: %s: %w", method, errors.ErrUnsupported)
}

// ListProjects fails with errors.ErrUnsupported.
func (Unimplemented) ListProjects(context.Context, string, store.ProjectQuery) (store.Page[store.Project], error) {
	return store.Page[store.Project]{}, unsupported("ListProjects")
}

// GetProject fails with errors.ErrUnsupported.
func (Unimplemented) GetProject(context.Context, string, string) (store.Project, error) {
	return store.Project{}, unsupported("GetProject")
}

// GetProjects fails with errors.ErrUnsupported.
func (Unimplemented) GetProjects(context.Context, string, []string) ([]store.Project, error) {
	return nil, unsupported("GetProjects")
}

// ListMilestones fails with errors.ErrUnsupported.
func (Unimplemented) ListMilestones(context.Context, string, string, store.MilestoneQuery) (store.Page[store.Milestone], error) {
	return store.Page[store.Milestone]{}, unsupported("ListMilestones")
}

// GetMilestone fails with errors.ErrUnsupported.
func (Unimplemented) GetMilestone(context.Context, string, string) (store.Milestone, error) {
	return store.Milestone{}, unsupported("GetMilestone")
}

// ListDeliverables fails with errors.ErrUnsupported.
func (Unimplemented) ListDeliverables(context.Context, string, store.DeliverableQuery) (store.Page[store.Deliverable], error) {
	return store.Page[store.Deliverable]{}, unsupported("ListDeliverables")
}

// GetDeliverable fails with errors.ErrUnsupported.
func (Unimplemented) GetDeliverable(context.Context, string, string) (store.Deliverable, error) {
	return store.Deliverable{}, unsupported("GetDeliverable")
}

// ListInvoices fails with errors.ErrUnsupported.
func (Unimplemented) ListInvoices(context.Context, string, store.InvoiceQuery) (store.Page[store.Invoice], error) {
	return store.Page[store.Invoice]{}, unsupported("ListInvoices")
}

// GetInvoice fails with errors.ErrUnsupported.
func (Unimplemented) GetInvoice(context.Context, string, string) (store.Invoice, error) {
	return store.Invoice{}, unsupported("GetInvoice")
}

// ListDeletions fails with errors.ErrUnsupported.
func (Unimplemented) ListDeletions(context.Context, string, store.DeletionQuery) (store.Page[store.Deletion], error) {
	return store.Page[store.Deletion]{}, unsupported("ListDeletions")
}

// DataVersion fails with errors.ErrUnsupported.
func (Unimplemented) DataVersion(context.Context, string) (int64, error) {
	return 0, unsupported("DataVersion")
}

// ListThreads fails with errors.ErrUnsupported.
func (Unimplemented) ListThreads(context.Context, string, store.ThreadQuery) (store.Page[store.Thread], error) {
	return store.Page[store.Thread]{}, unsupported("ListThreads")
}

// GetThread fails with errors.ErrUnsupported.
func (Unimplemented) GetThread(context.Context, string, string) (store.Thread, error) {
	return store.Thread{}, unsupported("GetThread")
}

// ListThreadMessages fails with errors.ErrUnsupported.
func (Unimplemented) ListThreadMessages(context.Context, string, string, store.MessageQuery) (store.Page[store.Message], error) {
	return store.Page[store.Message]{}, unsupported("ListThreadMessages")
}

// ListMessages fails with errors.ErrUnsupported.
func (Unimplemented) ListMessages(context.Context, string, store.MessageQuery) (store.Page[store.Message], error) {
	return store.Page[store.Message]{}, unsupported("ListMessages")
}

// GetMessage fails with errors.ErrUnsupported.
func (Unimplemented) GetMessage(context.Context, string, string, []string) (store.Message, error) {
	return store.Message{}, unsupported("GetMessage")
}

// GetAttachment fails with errors.ErrUnsupported.
func (Unimplemented) GetAttachment(context.Context, string, string) (store.Attachment, error) {
	return store.Attachment{}, unsupported("GetAttachment")
}

// ListEvents fails with errors.ErrUnsupported.
func (Unimplemented) ListEvents(context.Context, string, store.EventQuery) (store.EventPage, error) {
	return store.EventPage{}, unsupported("ListEvents")
}

// LatestEvent fails with errors.ErrUnsupported.
func (Unimplemented) LatestEvent(context.Context, string) (string, error) {
	return "", unsupported("LatestEvent")
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
