package memstore

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/clientstatus/clientstatus/store"
)

// the Store's change spine read as events (Events): every write records its
// events in its own critical section and wakes the watchers once it is
// over. Ids are "evt_" and a zero-padded sequence of the Store, so they
// sort as written and never come back. The rules: docs/store.md.

var _ store.Events = (*Store)(nil)

// ListEvents returns the organization's events after q.After: none for
// an unknown organization, ErrUnknownCursor for an After it does not keep,
// ErrInvalid for a limit below 1. Events are indexed by type and kind, so
// a page costs the same however many are kept, unless OnlyProjects is set.
func (m *Store) ListEvents(ctx context.Context, orgID string, q store.EventQuery) (store.EventPage, error) {
	if err := alive(ctx); err != nil {
		return store.EventPage{}, err
	}
	if q.Limit < 1 {
		return store.EventPage{}, fmt.Errorf("store: %w event limit %d", store.ErrInvalid, q.Limit)
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	var l *eventLog
	if t := m.orgs[orgID]; t != nil {
		l = &t.events
	}
	from := m.keptFrom(l)
	start := from // the first event after q.After
	if q.After != "" {
		i, found := l.find(from, q.After)
		if !found {
			return store.EventPage{}, fmt.Errorf("store: events after %q: %w", q.After, store.ErrUnknownCursor)
		}
		start = i + 1
	}
	p := store.EventPage{Events: []store.Event{}, Last: q.After}
	add := func(e store.Event) {
		if len(p.Events) < q.Limit {
			p.Events = append(p.Events, e)
			p.Last = e.ID
		}
	}
	if l == nil || start == len(l.events) {
		return p, nil
	}
	if q.OnlyProjects != nil {
		for _, e := range l.events[start:] {
			if len(q.Types) > 0 && !slices.Contains(q.Types, e.Type) ||
				q.OnlyKinds != nil && !slices.Contains(q.OnlyKinds, e.Kind) ||
				e.ProjectID == "" || !slices.Contains(q.OnlyProjects, e.ProjectID) {
				continue
			}
			p.Total++
			add(e)
		}
		return p, nil
	}
	if len(q.Types) == 0 && q.OnlyKinds == nil {
		p.Total = len(l.events) - start
		for _, e := range l.events[start:min(start+q.Limit, len(l.events))] {
			add(e)
		}
		return p, nil
	}
	// The streams of seqs that the query reads, each after floor.
	floor := l.seqs[start]
	var streams [][]int64
	seen := map[string]bool{}
	if len(q.Types) > 0 {
		for _, typ := range q.Types {
			kind, _, _ := strings.Cut(typ, ".")
			if seen[typ] || q.OnlyKinds != nil && !slices.Contains(q.OnlyKinds, store.Kind(kind)) {
				continue
			}
			seen[typ] = true
			streams = append(streams, l.byType[typ])
		}
	} else {
		for _, k := range q.OnlyKinds {
			if !seen[string(k)] {
				seen[string(k)] = true
				streams = append(streams, l.byKind[k])
			}
		}
	}
	for i, s := range streams {
		at, _ := slices.BinarySearch(s, floor)
		streams[i] = s[at:]
		p.Total += len(s) - at
	}
	// Merge the streams' first q.Limit seqs, oldest first.
	for len(p.Events) < q.Limit {
		next := -1
		for i, s := range streams {
			if len(s) > 0 && (next < 0 || s[0] < streams[next][0]) {
				next = i
			}
		}
		if next < 0 {
			break
		}
		i, _ := slices.BinarySearch(l.seqs, streams[next][0])
		streams[next] = streams[next][1:]
		add(l.events[i])
	}
	return p, nil
}

// LatestEvent returns the id of the organization's newest event kept, ""
// when it has none.
func (m *Store) LatestEvent(ctx context.Context, orgID string) (string, error) {
	return reading(ctx, m, func() (string, error) {
		if t := m.orgs[orgID]; t != nil && m.keptFrom(&t.events) < len(t.events.events) {
			return t.events.events[len(t.events.events)-1].ID, nil
		}
		return "", nil
	})
}

// WatchEvents returns a channel that receives a value after each write to
// the organization (a write that changed nothing too: a wake-up may be
// spurious), and is closed when ctx is done.
func (m *Store) WatchEvents(ctx context.Context, orgID string) <-chan struct{} {
	return m.watchers.Watch(ctx, orgID)
}

// wake wakes the organization's watchers. Writes defer it before they
// lock mu, so that it runs once they have unlocked it.
func (m *Store) wake(orgID string) { m.watchers.Wake(orgID) }

// eventLog is an organization's events, oldest first, with the
// sequence numbers of each type's and each kind's, so that a page of one
// type and its total are found, not counted.
type eventLog struct {
	events []store.Event
	seqs   []int64                // events[i]'s sequence number, which its id carries
	byType map[string][]int64     // the seqs of each type's events, ascending
	byKind map[store.Kind][]int64 // the seqs of each kind's events, ascending
}

// find returns the index of the event id at or after from, and whether
// it is there.
func (l *eventLog) find(from int, id string) (int, bool) {
	if l == nil {
		return 0, false
	}
	i, found := slices.BinarySearchFunc(l.events[from:], id, func(e store.Event, id string) int { return strings.Compare(e.ID, id) })
	return from + i, found
}

// keptFrom returns the index of the first event of l not yet past
// EventRetention on the clock (len(l.events) when there is none). The
// caller holds mu.
func (m *Store) keptFrom(l *eventLog) int {
	if l == nil {
		return 0
	}
	cutoff := kept(m.now()).Add(-store.EventRetention)
	return sort.Search(len(l.events), func(i int) bool { return !l.events[i].CreatedAt.Before(cutoff) })
}

// emit appends an event to the organization's feed, with the next id,
// and prunes the events past EventRetention before it. The caller holds
// mu for writing.
func (t *tenant) emit(e store.Event) {
	*t.eventSeq++
	seq := *t.eventSeq
	e.ID = fmt.Sprintf("evt_%016d", seq)
	l := &t.events
	if l.byType == nil {
		l.byType, l.byKind = map[string][]int64{}, map[store.Kind][]int64{}
	}
	n := 0
	cutoff := e.CreatedAt.Add(-store.EventRetention)
	for n < len(l.events) && l.events[n].CreatedAt.Before(cutoff) {
		old := l.events[n]
		l.byType[old.Type] = l.byType[old.Type][1:] // the oldest of its type: it went in first
		l.byKind[old.Kind] = l.byKind[old.Kind][1:]
		n++
	}
	l.events = append(slices.Delete(l.events, 0, n), e)
	l.seqs = append(slices.Delete(l.seqs, 0, n), seq)
	l.byType[e.Type] = append(l.byType[e.Type], seq)
	l.byKind[e.Kind] = append(l.byKind[e.Kind], seq)
}

// put records the events of a write that made an item visible (existed
// false: created) or changed it (updated, and a change of status): status
// is its status now, was its status before.
func (t *tenant) put(kind store.Kind, id, projectID, threadID, was, status string, existed bool, at time.Time) {
	e := store.Event{Type: string(kind) + "." + string(store.ActionCreated), Kind: kind, ItemID: id,
		ProjectID: projectID, ThreadID: threadID, CreatedAt: at}
	if !existed {
		t.emit(e)
		return
	}
	e.Type = string(kind) + "." + string(store.ActionUpdated)
	t.emit(e)
	if was != status {
		e.Type, e.PreviousStatus = string(kind)+"."+status, was
		t.emit(e)
	}
}

// gone records the event of an item that clients no longer see: deleted,
// or made internal.
func (t *tenant) gone(kind store.Kind, id, projectID, threadID string, at time.Time) {
	t.emit(store.Event{Type: string(kind) + "." + string(store.ActionDeleted), Kind: kind, ItemID: id,
		ProjectID: projectID, ThreadID: threadID, CreatedAt: at})
}

// statusOf returns the status of old, "" when it is nil.
func statusOf[T any](old *T, status func(*T) string) string {
	if old == nil {
		return ""
	}
	return status(old)
}

// leftOr returns projectID, or when it is "" the project left ("" too
// when there was none).
func leftOr(projectID string, left *string) string {
	if projectID == "" && left != nil {
		return *left
	}
	return projectID
}

// deref returns *p, "" for nil.
func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
