package storetest

import (
	"context"
	"errors"
	"fmt"

	"github.com/clientstatus/clientstatus/store"
)

// Unimplemented is a store.Store whose every read fails with an error
// wrapping errors.ErrUnsupported and naming the method (or with Err's);
// Ping answers nil and WatchEvents never wakes. Embed it in a partial fake
// and override the methods a test is about:
//
//	type failingProjects struct{ storetest.Unimplemented }
//
//	func (failingProjects) ListProjects(context.Context, string, store.ProjectQuery) (store.Page[store.Project], error) {
//		return store.Page[store.Project]{}, store.ErrUnavailable
//	}
//
// Each resource's methods live beside its kindCase; this file holds the
// rest. The zero value is ready to use.
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

// ListDeletions fails with errors.ErrUnsupported.
func (u Unimplemented) ListDeletions(ctx context.Context, _ string, _ store.DeletionQuery) (store.Page[store.Deletion], error) {
	return store.Page[store.Deletion]{}, u.fail(ctx, "ListDeletions")
}

// DataVersion fails with errors.ErrUnsupported.
func (u Unimplemented) DataVersion(ctx context.Context, _ string) (int64, error) {
	return 0, u.fail(ctx, "DataVersion")
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
