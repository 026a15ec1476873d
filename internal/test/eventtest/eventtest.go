package eventtest

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/store"
)

// Store is a memstore.Store whose events are those its test adds. It is
// safe for concurrent use.
type Store struct {
	*memstore.Store

	mu       sync.Mutex
	events   map[string][]store.Event // by organization, oldest first
	watchers map[string][]chan struct{}
	// Silent, when set before any Add, makes WatchEvents never wake:
	// readers must poll.
	Silent bool
	// Expired holds ids no longer kept: an After naming one is
	// store.ErrUnknownCursor. Set it before the store is read.
	Expired map[string]bool
	// Fail, when set, is the error of every ListEvents and LatestEvent.
	Fail error
	n    int
}

var _ store.Events = (*Store)(nil)

// New returns a Store on m, with no events.
func New(m *memstore.Store) *Store {
	return &Store{Store: m, events: map[string][]store.Event{}, Expired: map[string]bool{},
		watchers: map[string][]chan struct{}{}}
}

// Add appends events of org, numbering their ids evt_1, evt_2..., and
// wakes its watchers. It returns the events as added.
func (s *Store) Add(org string, events ...store.Event) []store.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range events {
		s.n++
		events[i].ID = fmt.Sprintf("evt_%d", s.n)
		s.events[org] = append(s.events[org], events[i])
	}
	if !s.Silent {
		for _, ch := range s.watchers[org] {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}
	return events
}

// ListEvents implements store.Events.
func (s *Store) ListEvents(ctx context.Context, orgID string, q store.EventQuery) (store.EventPage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Fail != nil {
		return store.EventPage{}, s.Fail
	}
	all := s.events[orgID]
	from := 0
	if q.After != "" {
		i := slices.IndexFunc(all, func(e store.Event) bool { return e.ID == q.After })
		if i < 0 || s.Expired[q.After] {
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

// LatestEvent implements store.Events.
func (s *Store) LatestEvent(ctx context.Context, orgID string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Fail != nil {
		return "", s.Fail
	}
	if all := s.events[orgID]; len(all) > 0 {
		return all[len(all)-1].ID, nil
	}
	return "", nil
}

// WatchEvents implements store.Events.
func (s *Store) WatchEvents(ctx context.Context, orgID string) <-chan struct{} {
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

// Watched reports whether a reader watches org's events (an open stream).
func (s *Store) Watched(org string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.watchers[org]) > 0
}
