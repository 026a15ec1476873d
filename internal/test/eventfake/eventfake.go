package eventfake

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/clientstatus/clientstatus/store"
)

var _ store.Events = (*Events)(nil)

// Events is a store.Events for tests: events appended in order (Add),
// numbered by IDFormat. It is safe for concurrent use.
type Events struct {
	// IDFormat is the format of an event's id, of its number: evt_000001,
	// evt_000002, ... from New. Set it before any Add.
	IDFormat string
	// Silent, when set before any Add, makes WatchEvents never wake:
	// readers must poll.
	Silent bool
	// Expired holds ids no longer kept: an After naming one is
	// store.ErrUnknownCursor. Set it before the events are read.
	Expired map[string]bool
	// Fail, when set, is the error of every ListEvents and LatestEvent.
	Fail error

	mu      sync.Mutex
	byOrg   map[string][]store.Event // oldest first
	n       int
	watches map[string][]chan struct{}
}

// New returns an empty Events.
func New() *Events {
	return &Events{IDFormat: "evt_%06d", Expired: map[string]bool{}, byOrg: map[string][]store.Event{}, watches: map[string][]chan struct{}{}}
}

// Add appends an event to the organization's feed, as AddAll does, and
// returns it.
func (f *Events) Add(orgID string, e store.Event) store.Event {
	return f.AddAll(orgID, e)[0]
}

// AddAll appends events to the organization's feed, each with the next
// id (and a fixed CreatedAt when it has none), wakes its watchers, and
// returns the events as added.
func (f *Events) AddAll(orgID string, events ...store.Event) []store.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range events {
		f.n++
		events[i].ID = fmt.Sprintf(f.IDFormat, f.n)
		if events[i].CreatedAt.IsZero() {
			events[i].CreatedAt = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
		}
		f.byOrg[orgID] = append(f.byOrg[orgID], events[i])
	}
	if !f.Silent {
		for _, c := range f.watches[orgID] {
			select {
			case c <- struct{}{}:
			default:
			}
		}
	}
	return events
}

// ListEvents implements store.Events.
func (f *Events) ListEvents(ctx context.Context, orgID string, q store.EventQuery) (store.EventPage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.Fail != nil {
		return store.EventPage{}, f.Fail
	}
	all := f.byOrg[orgID]
	from := 0
	if q.After != "" {
		i := slices.IndexFunc(all, func(e store.Event) bool { return e.ID == q.After })
		if i < 0 || f.Expired[q.After] {
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
func (f *Events) LatestEvent(ctx context.Context, orgID string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.Fail != nil {
		return "", f.Fail
	}
	if all := f.byOrg[orgID]; len(all) > 0 {
		return all[len(all)-1].ID, nil
	}
	return "", nil
}

// WatchEvents implements store.Events.
func (f *Events) WatchEvents(ctx context.Context, orgID string) <-chan struct{} {
	c := make(chan struct{}, 1)
	f.mu.Lock()
	f.watches[orgID] = append(f.watches[orgID], c)
	f.mu.Unlock()
	context.AfterFunc(ctx, func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.watches[orgID] = slices.DeleteFunc(f.watches[orgID], func(x chan struct{}) bool { return x == c })
		close(c)
	})
	return c
}

// Watched reports whether a reader watches the organization's events (an
// open stream).
func (f *Events) Watched(orgID string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.watches[orgID]) > 0
}
