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
//
// Each resource's methods live in its own file of storetest, beside its
// kindCase (projects.go, milestones.go, ..., threadkinds.go): a new
// resource adds them there. This file keeps those of the parts of
// store.Store that are no resource (changes, versions, events, Ping).
type Unimplemented struct{}

var _ store.Store = Unimplemented{}

func unsupported(method string) error {
	return fmt.Errorf("storetest.Unimplemented: %s: %w", method, errors.ErrUnsupported)
}

// ListDeletions fails with errors.ErrUnsupported.
func (Unimplemented) ListDeletions(context.Context, string, store.DeletionQuery) (store.Page[store.Deletion], error) {
	return store.Page[store.Deletion]{}, unsupported("ListDeletions")
}

// DataVersion fails with errors.ErrUnsupported.
func (Unimplemented) DataVersion(context.Context, string) (int64, error) {
	return 0, unsupported("DataVersion")
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
