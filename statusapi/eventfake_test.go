package statusapi_test

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/clientstatus/clientstatus/store"
)

// eventStore is a store.Memory with events the test adds itself
// (store.Events), for the handler's tests of the feed and the stream,
// apart from how a store makes them.
type eventStore struct {
	*store.Memory

	mu       sync.Mutex
	events   map[string][]store.Event // by organization, oldest first
	expired  map[string]bool          // ids no longer kept
	watchers map[string][]chan struct{}
	silent   bool // WatchEvents never wakes: the stream must poll
	n        int
}

var _ store.Events = (*eventStore)(nil)

func newEventStore(m *store.Memory) *eventStore {
	return &eventStore{Memory: m, events: map[string][]store.Event{}, expired: map[string]bool{},
		watchers: map[string][]chan struct{}{}}
}

// add appends events of org, numbering their ids evt_1, evt_2..., and
// wakes its watchers. It returns the events as added.
func (s *eventStore) add(org string, events ...store.Event) []store.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range events {
		s.n++
		events[i].ID = fmt.Sprintf("evt_%d", s.n)
		s.events[org] = append(s.events[org], events[i])
	}
	if !s.silent {
		for _, ch := range s.watchers[org] {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}
	return events
}

func (s *eventStore) ListEvents(ctx context.Context, orgID string, q store.EventQuery) (store.EventPage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	all := s.events[orgID]
	from := 0
	if q.After != "" {
		i := slices.IndexFunc(all, func(e store.Event) bool { return e.ID == q.After })
		if i < 0 || s.expired[q.After] {
			return store.EventPage{}, fmt.Errorf("fake: %q: %w", q.After, store.ErrUnknownCursor)
		}
		from = i + 1
	}
	p := store.EventPage{Last: q.After}
	for _, e := range all[from:] {
		if len(q.Types) > 0 && !slices.Contains(q.Types, e.Type) ||
			q.OnlyKinds != nil && !slices.Contains(q.OnlyKinds, e.Kind) ||
			q.OnlyProjects != nil && !slices.Contains(q.OnlyProjects, e.ProjectID) {
			continue
		}
		p.Total++
		if len(p.Events) < q.Limit {
			p.Events = append(p.Events, e)
			p.Last = e.ID
		}
	}
	return p, nil
}

func (s *eventStore) LatestEvent(ctx context.Context, orgID string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if all := s.events[orgID]; len(all) > 0 {
		return all[len(all)-1].ID, nil
	}
	return "", nil
}

func (s *eventStore) WatchEvents(ctx context.Context, orgID string) <-chan struct{} {
	ch := make(chan struct{}, 1)
	s.mu.Lock()
	s.watchers[orgID] = append(s.watchers[orgID], ch)
	s.mu.Unlock()
	context.AfterFunc(ctx, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.watchers[orgID] = slices.DeleteFunc(s.watchers[orgID], func(c chan struct{}) bool { return c == ch })
		close(ch)
	})
	return ch
}
