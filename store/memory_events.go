package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Memory's change spine read as events (Events).
//
// Every write records its events in its own critical section, as it
// changes what clients see: created, updated (only when something visible
// changed: the rule that moves UpdatedAt) and deleted, with a cascade's
// items making their own; a change of status also "{kind}.{new status}"
// with PreviousStatus. Internal content makes none; content made internal
// is deleted, and made visible again created. An item that leaves a
// project (an invoice whose project is deleted, a thread made
// organization-wide) carries in its event the project it left, so that a
// key restricted to that project sees it go; one that moves to another
// project carries the new one. Ids are "evt_" and a zero-padded sequence
// of the Memory, so that they sort as they are written and never come
// back once an organization is deleted and put again (its events go with
// it). Events are kept EventRetention on the stamps they carry, pruned by
// later writes; a read ignores those past it on the clock. Watchers are
// woken once a write's critical section is over.

var _ Events = (*Memory)(nil)

// ListEvents returns the organization's events after q.After (see
// Events): an unknown organization has none. An After that is not the id
// of an event the organization keeps is ErrUnknownCursor; a limit below 1
// is ErrInvalid.
func (m *Memory) ListEvents(ctx context.Context, orgID string, q EventQuery) (EventPage, error) {
	if err := alive(ctx); err != nil {
		return EventPage{}, err
	}
	if q.Limit < 1 {
		return EventPage{}, fmt.Errorf("store: %w event limit %d", ErrInvalid, q.Limit)
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	all := m.keptEvents(orgID)
	if q.After != "" {
		i, found := slices.BinarySearchFunc(all, q.After, func(e Event, id string) int { return strings.Compare(e.ID, id) })
		if !found {
			return EventPage{}, fmt.Errorf("store: events after %q: %w", q.After, ErrUnknownCursor)
		}
		all = all[i+1:]
	}
	p := EventPage{Events: []Event{}, Last: q.After}
	for _, e := range all {
		if len(q.Types) > 0 && !slices.Contains(q.Types, e.Type) ||
			q.OnlyKinds != nil && !slices.Contains(q.OnlyKinds, e.Kind) ||
			q.OnlyProjects != nil && (e.ProjectID == "" || !slices.Contains(q.OnlyProjects, e.ProjectID)) {
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

// LatestEvent returns the id of the organization's newest event kept, ""
// when it has none.
func (m *Memory) LatestEvent(ctx context.Context, orgID string) (string, error) {
	if err := alive(ctx); err != nil {
		return "", err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if all := m.keptEvents(orgID); len(all) > 0 {
		return all[len(all)-1].ID, nil
	}
	return "", nil
}

// WatchEvents returns a channel that receives a value after each write to
// the organization (a write that changed nothing too: a wake-up may be
// spurious), and is closed when ctx is done.
func (m *Memory) WatchEvents(ctx context.Context, orgID string) <-chan struct{} {
	return m.watchers.Watch(ctx, orgID)
}

// wake wakes the organization's watchers. Writes defer it before they
// lock mu, so that it runs once they have unlocked it.
func (m *Memory) wake(orgID string) { m.watchers.Wake(orgID) }

// keptEvents returns the organization's events not yet past
// EventRetention on the clock. The caller holds mu.
func (m *Memory) keptEvents(orgID string) []Event {
	t := m.orgs[orgID]
	if t == nil {
		return nil
	}
	cutoff := kept(m.now()).Add(-EventRetention)
	from, _ := slices.BinarySearchFunc(t.events, cutoff, func(e Event, at time.Time) int {
		if e.CreatedAt.Before(at) {
			return -1
		}
		return 1
	})
	return t.events[from:]
}

// emit appends an event to the organization's feed, with the next id,
// and prunes the events past EventRetention before it. The caller holds
// mu for writing.
func (t *tenant) emit(e Event) {
	*t.eventSeq++
	e.ID = fmt.Sprintf("evt_%016d", *t.eventSeq)
	n := 0
	cutoff := e.CreatedAt.Add(-EventRetention)
	for n < len(t.events) && t.events[n].CreatedAt.Before(cutoff) {
		n++
	}
	t.events = append(slices.Delete(t.events, 0, n), e)
}

// put records the events of a write that made an item visible (existed
// false: created) or changed it (updated, and a change of status): status
// is its status now, was its status before.
func (t *tenant) put(kind Kind, id, projectID, threadID, was, status string, existed bool, at time.Time) {
	e := Event{Type: string(kind) + "." + string(ActionCreated), Kind: kind, ItemID: id,
		ProjectID: projectID, ThreadID: threadID, CreatedAt: at}
	if !existed {
		t.emit(e)
		return
	}
	e.Type = string(kind) + "." + string(ActionUpdated)
	t.emit(e)
	if was != status {
		e.Type, e.PreviousStatus = string(kind)+"."+status, was
		t.emit(e)
	}
}

// gone records the event of an item that clients no longer see: deleted,
// or made internal.
func (t *tenant) gone(kind Kind, id, projectID, threadID string, at time.Time) {
	t.emit(Event{Type: string(kind) + "." + string(ActionDeleted), Kind: kind, ItemID: id,
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
