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

// Events is a store.Events for tests, until the stores have one: events
// appended in order (Add), with ids evt_000001, evt_000002, ... It is safe
// for concurrent use.
type Events struct {
	mu      sync.Mutex
	byOrg   map[string][]store.Event
	n       int
	watches map[string][]chan struct{}
}

// New returns an empty Events.
func New() *Events {
	return &Events{byOrg: map[string][]store.Event{}, watches: map[string][]chan struct{}{}}
}

// Add appends an event to the organization's feed, with the next id
// (and a fixed CreatedAt when it has none), wakes its watchers, and
// returns it.
func (f *Events) Add(orgID string, e store.Event) store.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	e.ID = fmt.Sprintf("evt_%06d", f.n)
	if e.CreatedAt.IsZero() {
		e.CreatedAt = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	}
	f.byOrg[orgID] = append(f.byOrg[orgID], e)
	for _, c := range f.watches[orgID] {
		select {
		case c <- struct{}{}:
		default:
		}
	}
	return e
}

// ListEvents implements store.Events (Types, OnlyKinds and OnlyProjects
// are ignored).
func (f *Events) ListEvents(ctx context.Context, orgID string, q store.EventQuery) (store.EventPage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	all := f.byOrg[orgID]
	i := 0
	if q.After != "" {
		i = slices.IndexFunc(all, func(e store.Event) bool { return e.ID == q.After })
		if i < 0 {
			return store.EventPage{}, store.ErrUnknownCursor
		}
		i++
	}
	p := store.EventPage{Last: q.After, Total: len(all) - i}
	for _, e := range all[i:min(len(all), i+q.Limit)] {
		p.Events = append(p.Events, e)
		p.Last = e.ID
	}
	return p, nil
}

// LatestEvent implements store.Events.
func (f *Events) LatestEvent(ctx context.Context, orgID string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
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
	go func() {
		<-ctx.Done()
		f.mu.Lock()
		f.watches[orgID] = slices.DeleteFunc(f.watches[orgID], func(x chan struct{}) bool { return x == c })
		f.mu.Unlock()
		close(c)
	}()
	return c
}
