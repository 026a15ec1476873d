package memstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/clientstatus/clientstatus/store"
)

// DeleteOrganization removes an organization and everything it owns,
// and leaves no deletion records: an organization that no longer exists
// has no client to tell. The functions registered with
// OnDeleteOrganization are then called (the key store's drops its keys).
// It returns an error wrapping ErrNotFound when there is no such
// organization.
func (m *Store) DeleteOrganization(ctx context.Context, orgID string) error {
	if err := alive(ctx); err != nil {
		return err
	}
	defer m.wake(orgID)
	m.orgMu.Lock()
	defer m.orgMu.Unlock()
	m.mu.Lock()
	_, ok := m.orgs[orgID]
	delete(m.orgs, orgID)
	m.webhooks.dropOrganization(orgID) // webhooks.go
	m.mu.Unlock()
	if !ok {
		return fmt.Errorf("store: organization %q: %w", orgID, store.ErrNotFound)
	}
	for _, fn := range m.onDelete {
		fn(orgID)
	}
	return nil
}

// OnDeleteOrganization registers fn, called on the deleting goroutine with
// the id of every organization DeleteOrganization removes, before one with
// that id can be put again (auth.NewMemoryKeyStore drops its keys). fn may
// read the Store but not put or delete an organization. fn must not be nil.
func (m *Store) OnDeleteOrganization(fn func(orgID string)) {
	if fn == nil {
		panic("store: OnDeleteOrganization needs a function")
	}
	m.orgMu.Lock()
	defer m.orgMu.Unlock()
	m.onDelete = append(m.onDelete, fn)
}

// DeleteProject removes a project with its milestones, deliverables and
// threads (internal ones too) with their messages, recording a Deletion
// for each that clients could see (at one time, with the project's id),
// and takes it from the invoices that named it: they stay, with a nil
// ProjectID and a new UpdatedAt, as do threads about a milestone or
// deliverable it took, with a nil About. It returns an error wrapping
// ErrNotFound when the organization has no such project.
func (m *Store) DeleteProject(ctx context.Context, orgID, id string) error {
	return m.writing(ctx, orgID, func() error {
		t := m.orgs[orgID]
		if t == nil || projectItems.of(t).remove(id) == nil {
			return fmt.Errorf("store: project %q: %w", id, store.ErrNotFound)
		}
		at := m.stamp(t)
		t.record(store.KindProject, id, id, at)
		for _, tb := range t.rows { // its milestones and deliverables
			if tb.cascade != nil {
				for _, gone := range tb.cascade(id) {
					t.record(tb.kind, gone, id, at)
				}
			}
		}
		for _, tb := range t.rows { // its invoices, which stay
			if tb.detach != nil {
				tb.detach(id, at)
			}
		}
		t.deleteProjectThreads(id, at)
		t.dropStaleAbouts(at)
		m.prune(t)
		return nil
	})
}

// DeleteMilestone removes a milestone and records its Deletion; threads
// about it stay, with a nil About. It returns an error wrapping
// ErrNotFound when the organization has no such milestone.
func (m *Store) DeleteMilestone(ctx context.Context, orgID, id string) error {
	return milestoneItems.delete(ctx, m, orgID, id)
}

// DeleteDeliverable removes a deliverable and records its Deletion;
// threads about it stay, with a nil About. It returns an error wrapping
// ErrNotFound when the organization has no such deliverable.
func (m *Store) DeleteDeliverable(ctx context.Context, orgID, id string) error {
	return deliverableItems.delete(ctx, m, orgID, id)
}

// DeleteInvoice removes an invoice and records its Deletion (with no
// ProjectID for a retainer invoice); threads about it stay, with a nil
// About. It returns an error wrapping ErrNotFound when the organization
// has no such invoice.
func (m *Store) DeleteInvoice(ctx context.Context, orgID, id string) error {
	return invoiceItems.delete(ctx, m, orgID, id)
}

// ListDeletions returns a page of the organization's deletion records at
// or after q.Since, with departures under q.OnlyProjects. It answers
// ErrSinceTooOld for a q.Since (zero included) before the later of the
// the Store's creation and DeletionRetention ago.
func (m *Store) ListDeletions(ctx context.Context, orgID string, q store.DeletionQuery) (store.Page[store.Deletion], error) {
	return reading(ctx, m, func() (store.Page[store.Deletion], error) {
		// Whole seconds: clients give since in the contract's format, and a
		// store started at 09:00:00.4 knows everything from 09:00:00 (nothing
		// was deleted in it before it started).
		horizon := later(m.floor, kept(m.now()).Add(-store.DeletionRetention)).Truncate(time.Second)
		if q.Since.Before(horizon) {
			return store.Page[store.Deletion]{}, fmt.Errorf("store: deletions since %s: %w (it knows them from %s)",
				q.Since.UTC().Format(time.RFC3339Nano), store.ErrSinceTooOld, horizon.Format(time.RFC3339Nano))
		}
		var items []*store.Deletion
		if t := m.orgs[orgID]; t != nil {
			items = t.deletions[sort.Search(len(t.deletions), func(i int) bool { return !t.deletions[i].DeletedAt.Before(q.Since) }):]
		}
		if t := m.orgs[orgID]; t != nil && q.OnlyProjects != nil {
			if moved := t.departuresSince(q.OnlyProjects, q.Since); len(moved) > 0 {
				items = mergeDeletions(items, moved)
			}
		}
		var keep func(*store.Deletion) bool
		if q.Kind != "" || q.OnlyKinds != nil || q.OnlyProjects != nil || !q.After.IsZero() {
			keep = func(d *store.Deletion) bool {
				return (q.Kind == "" || d.Kind == q.Kind) && (q.OnlyKinds == nil || slices.Contains(q.OnlyKinds, d.Kind)) &&
					store.InProjects(q.OnlyProjects, d.ProjectID) && (q.After.IsZero() || q.After.Follows(d.DeletedAt, d.Kind, d.ID))
			}
		}
		return page(items, keep, q.PageRequest, func(d store.Deletion) store.Deletion { return d }, m.syncedThrough(q.Since), m.orgs[orgID].dataVersion())
	})
}

// record adds a deletion record to the organization's feed, in its place,
// and the deleted event. A message's is recorded before it leaves the
// visible messages, where its thread is read.
func (t *tenant) record(kind store.Kind, id, projectID string, at time.Time) {
	threadID := ""
	if msg := t.threads.shownMsgs.byID[id]; kind == store.KindMessage && msg != nil {
		threadID = msg.ThreadID
	}
	t.gone(kind, id, projectID, threadID, at)
	t.forget(kind, id) // none is left, unless a put was missed: keep one per item
	d := &store.Deletion{Kind: kind, ID: id, ProjectID: projectID, DeletedAt: at}
	i, _ := slices.BinarySearchFunc(t.deletions, d, deletionOrder)
	t.deletions = slices.Insert(t.deletions, i, d)
	t.deleted[deletionKey{kind, id}] = at
}

// forget drops the deletion record of the item of that kind and id, if
// any: the item has been put again.
func (t *tenant) forget(kind store.Kind, id string) {
	k := deletionKey{kind, id}
	at, ok := t.deleted[k]
	if !ok {
		return
	}
	if i, found := slices.BinarySearchFunc(t.deletions, &store.Deletion{Kind: kind, ID: id, DeletedAt: at}, deletionOrder); found {
		t.deletions = slices.Delete(t.deletions, i, i+1)
	}
	delete(t.deleted, k)
}

// prune drops the organization's deletion records older than
// DeletionRetention, and moves the horizon of ListDeletions past them. The
// caller holds mu for writing.
func (m *Store) prune(t *tenant) {
	cutoff := kept(m.now()).Add(-store.DeletionRetention)
	n := 0
	for n < len(t.deletions) && t.deletions[n].DeletedAt.Before(cutoff) {
		delete(t.deleted, deletionKey{t.deletions[n].Kind, t.deletions[n].ID})
		n++
	}
	if n > 0 {
		t.deletions = slices.Delete(t.deletions, 0, n)
		m.floor = later(m.floor, cutoff)
	}
	t.pruneDepartures(cutoff)
}

func deletionOrder(a, b *store.Deletion) int {
	return cmp.Or(a.DeletedAt.Compare(b.DeletedAt), strings.Compare(string(a.Kind), string(b.Kind)), strings.Compare(a.ID, b.ID))
}
