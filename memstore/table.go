package memstore

import (
	"context"
	"fmt"
	"time"

	"github.com/clientstatus/clientstatus/store"
)

// itemDesc describes a kind of item that the Store keeps in a table of its
// own (a sorted per organization): projects and the items a project owns.
// The generic methods below do everything a Put, List, Get or Delete of
// such a kind does, so that a new kind is, in its own file
// (memory_<resource>.go), its description and thin exported methods,
// and its line in memoryKinds (see kinds.go for the kinds of the
// contract).
type itemDesc[T any] struct {
	kind  store.Kind
	order func(a, b *T) int // list order; ends with the id, so it is total
	id    func(*T) string
	org   func(*T) string
	// project is the project the item is in, "" for none; a project's
	// own id for a project.
	project  func(*T) string
	status   func(*T) string
	updated  func(*T) *time.Time // UpdatedAt, which a put sets
	due      func(*T) *time.Time // DueAt, nil for none; nil for a kind without it
	validate func(T) error       // the item's Validate
	copy     func(T) T           // see the copy functions
	// detach, when not nil, takes an item out of its project: its items
	// may have none (invoices), and stay when their project is deleted,
	// with none and a new UpdatedAt. When nil, a deleted project's items
	// go with it.
	detach func(*T)
}

// tableDesc is an itemDesc of any type, as newTenant sees it.
type tableDesc interface {
	// add gives t an empty table of the kind and its kindTable.
	add(t *tenant)
	kindOf() store.Kind
}

// memoryKinds lists the kinds of items the Store keeps in a table, in the
// order of Kinds, which is the order of a deleted project's cascade and
// of its events. Threads and messages, kept apart (threadStore), are not
// in it.
var memoryKinds = []tableDesc{projectItems, milestoneItems, deliverableItems, invoiceItems}

func (d *itemDesc[T]) kindOf() store.Kind { return d.kind }

// of returns t's table of the kind. The tenant holds one of each kind of
// memoryKinds, of its type, so the assertion holds.
func (d *itemDesc[T]) of(t *tenant) *sorted[T] {
	return t.items[d.kind].(*sorted[T])
}

func (d *itemDesc[T]) add(t *tenant) {
	s := ptr(newSorted(d.order, d.id, d.updated))
	t.items[d.kind] = s
	row := kindTable{kind: d.kind, has: s.has}
	switch {
	case d.kind == store.KindProject:
	case d.detach == nil:
		row.cascade = cascadeOf(s, d.project)
	default:
		row.detach = func(projectID string, at time.Time) { d.detachAll(t, projectID, at) }
	}
	t.rows = append(t.rows, row)
}

// detachAll takes the items of a deleted project out of it: each is
// dated at, with an updated event and a departure from the project.
func (d *itemDesc[T]) detachAll(t *tenant, projectID string, at time.Time) {
	s := d.of(t)
	var named []*T
	for _, v := range s.items {
		if d.project(v) == projectID {
			named = append(named, v)
		}
	}
	for _, v := range named {
		c := d.copy(*v)
		d.detach(&c)
		s.put(&c, at)
		t.put(d.kind, d.id(v), projectID, "", d.status(v), d.status(v), true, at) // the project it left
		t.depart(d.kind, d.id(v), true, projectID, "", at)
	}
}

// put inserts or replaces an item of an existing organization and, but
// for a project and an item in none, of an existing project: it dates
// it (unless nothing but UpdatedAt changed), notes its departure from
// the project it was in, records its events and drops its deletion
// record.
func (d *itemDesc[T]) put(ctx context.Context, m *Store, v T) error {
	if err := alive(ctx); err != nil {
		return err
	}
	if err := d.validate(v); err != nil {
		return err
	}
	id, orgID, project := d.id(&v), d.org(&v), d.project(&v)
	defer m.wake(orgID)
	m.mu.Lock()
	defer m.mu.Unlock()
	t, err := m.owner(string(d.kind), id, orgID)
	if err != nil {
		return err
	}
	isProject := d.kind == store.KindProject
	if !isProject && project != "" { // Validate refuses "" where a project is needed
		if err := t.hasProject(string(d.kind), id, project); err != nil {
			return err
		}
	}
	s := d.of(t)
	at := m.stamp(t)
	if !isProject {
		if old := s.byID[id]; old != nil {
			t.depart(d.kind, id, true, d.project(old), project, at)
		} else {
			t.depart(d.kind, id, false, "", project, at)
		}
	}
	if old, changed := s.put(ptr(d.copy(v)), at); changed {
		evProject := project
		if evProject == "" && old != nil {
			evProject = d.project(old) // the project it left
		}
		t.put(d.kind, id, evProject, "", statusOf(old, d.status), d.status(&v), old != nil, at)
	}
	t.forget(d.kind, id)
	return nil
}

// listing is what a list asks of a table, from its query.
type listing struct {
	store.PageRequest
	status    string // "" for any
	projectID string // "" for any
	// inProject makes projectID a project that must exist: a list of a
	// project's items answers ErrNotFound for an unknown one.
	inProject bool
	only      []string  // OnlyProjects
	dueBefore time.Time // DueBefore
	since     time.Time
	after     store.Position
}

// list returns a page of the organization's items; an unknown
// organization has none.
func (d *itemDesc[T]) list(ctx context.Context, m *Store, orgID string, l listing) (store.Page[T], error) {
	if err := alive(ctx); err != nil {
		return store.Page[T]{}, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	t := m.orgs[orgID]
	if l.inProject && (t == nil || !projectItems.of(t).has(l.projectID)) {
		return store.Page[T]{}, fmt.Errorf("store: project %q: %w", l.projectID, store.ErrNotFound)
	}
	keep := d.filter(l)
	var items []*T
	if t != nil {
		items, keep = d.of(t).view(l.since, l.after, keep)
	}
	return page(items, keep, l.PageRequest, d.copy, m.syncedThrough(l.since), t.dataVersion())
}

// filter is the predicate of l's filters (but UpdatedSince, which view
// applies), one condition each; nil when l has none, so that a list
// without filters counts its items without reading them.
func (d *itemDesc[T]) filter(l listing) func(*T) bool {
	var conds []func(*T) bool
	if l.status != "" {
		conds = append(conds, func(v *T) bool { return d.status(v) == l.status })
	}
	if l.projectID != "" {
		conds = append(conds, func(v *T) bool { return d.project(v) == l.projectID })
	}
	if l.only != nil {
		conds = append(conds, func(v *T) bool { return store.InProjects(l.only, d.project(v)) })
	}
	if !l.dueBefore.IsZero() {
		conds = append(conds, func(v *T) bool { due := d.due(v); return due != nil && due.Before(l.dueBefore) })
	}
	if len(conds) == 0 {
		return nil
	}
	return func(v *T) bool {
		for _, c := range conds {
			if !c(v) {
				return false
			}
		}
		return true
	}
}

// get returns one of the organization's items, or ErrNotFound.
func (d *itemDesc[T]) get(ctx context.Context, m *Store, orgID, id string) (T, error) {
	var none T
	if err := alive(ctx); err != nil {
		return none, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if t := m.orgs[orgID]; t != nil {
		if v, ok := d.of(t).byID[id]; ok {
			return d.copy(*v), nil
		}
	}
	return none, fmt.Errorf("store: %s %q: %w", d.kind, id, store.ErrNotFound)
}

// delete removes an item and records its Deletion (with the project it
// was in); threads about it stay, with a nil About. It returns an error
// wrapping ErrNotFound when the organization has no such item. Projects
// have their own (DeleteProject).
func (d *itemDesc[T]) delete(ctx context.Context, m *Store, orgID, id string) error {
	if err := alive(ctx); err != nil {
		return err
	}
	defer m.wake(orgID)
	m.mu.Lock()
	defer m.mu.Unlock()
	var gone *T
	t := m.orgs[orgID]
	if t != nil {
		gone = d.of(t).remove(id)
	}
	if gone == nil {
		return fmt.Errorf("store: %s %q: %w", d.kind, id, store.ErrNotFound)
	}
	at := m.stamp(t)
	t.record(d.kind, id, d.project(gone), at)
	if d.kind.About() {
		t.dropStaleAbouts(at)
	}
	m.prune(t)
	return nil
}
