package eventtest

import (
	"context"

	"github.com/clientstatus/clientstatus/internal/test/eventfake"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/store"
)

// Store is a memstore.Store whose events are those its test adds (Add),
// with ids evt_1, evt_2, ...: its Silent, Expired and Fail are those of
// eventfake.Events. It is safe for concurrent use.
type Store struct {
	*memstore.Store
	*eventfake.Events
}

var _ store.Events = (*Store)(nil)

// New returns a Store on m, with no events.
func New(m *memstore.Store) *Store {
	ev := eventfake.New()
	ev.IDFormat = "evt_%d"
	return &Store{Store: m, Events: ev}
}

// Add appends events of org, and wakes its watchers (eventfake's AddAll).
func (s *Store) Add(org string, events ...store.Event) []store.Event {
	return s.Events.AddAll(org, events...)
}

// ListEvents implements store.Events with the events added.
func (s *Store) ListEvents(ctx context.Context, orgID string, q store.EventQuery) (store.EventPage, error) {
	return s.Events.ListEvents(ctx, orgID, q)
}

// LatestEvent implements store.Events with the events added.
func (s *Store) LatestEvent(ctx context.Context, orgID string) (string, error) {
	return s.Events.LatestEvent(ctx, orgID)
}

// WatchEvents implements store.Events with the events added.
func (s *Store) WatchEvents(ctx context.Context, orgID string) <-chan struct{} {
	return s.Events.WatchEvents(ctx, orgID)
}
