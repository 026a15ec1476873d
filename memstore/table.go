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
}

// memoryKinds lists the kinds of items the Store keeps in a table, in the
// order of Kinds, which is the order of a deleted project's cascade and
// of its events. Threads and messages, kept apart (threadStore), are not
// in it.
var memoryKinds = []tableDesc{projectItems, milestoneItems, deliverableItems, invoiceItems}

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
	id, orgID, project := d.id(&v), d.org(&v), d.project(&v)
	return m.writing(ctx, orgID, func() error {
		if err := d.validate(v); err != nil {
			return err
		}
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
	})
}

// list returns a page of the organization's items that status ("" for
// any) and f select; an unknown organization has none. inProject makes
// f.ProjectID a project that must exist: a list of a project's items
// answers ErrNotFound for an unknown one.
func (d *itemDesc[T]) list(ctx context.Context, m *Store, orgID string, r store.PageRequest, status string, f store.ListFilter, inProject bool) (store.Page[T], error) {
	return reading(ctx, m, func() (store.Page[T], error) {
		t := m.orgs[orgID]
		if inProject && (t == nil || !projectItems.of(t).has(f.ProjectID)) {
			return store.Page[T]{}, fmt.Errorf("store: project %q: %w", f.ProjectID, store.ErrNotFound)
		}
		var s *sorted[T]
		if t != nil {
			s = d.of(t)
		}
		return listed(m, t, s, fields[T]{d.status, d.project, d.due}, r, status, f, nil, d.copy)
	})
}

// fields are the accessors of a kind's items that a list's filters test
// (see match): its status, its project ("" for none) and its DueAt (nil
// for none; a nil due for a kind without one).
type fields[T any] struct {
	status  func(*T) string
	project func(*T) string
	due     func(*T) *time.Time
}

// match is the predicate of a list's filters but UpdatedSince and After
// (which view applies): status ("" for any), then f's, one condition each;
// nil when there are none, so that a list without filters counts its
// items without reading them. A filter of a field the kind has not
// matches none of its items.
func match[T any](a fields[T], status string, f store.ListFilter) func(*T) bool {
	var conds []func(*T) bool
	add := func(on bool, c func(*T) bool) {
		if on {
			conds = append(conds, c)
		}
	}
	add(status != "", func(v *T) bool { return a.status != nil && a.status(v) == status })
	add(f.ProjectID != "", func(v *T) bool { return a.project(v) == f.ProjectID })
	add(f.OnlyProjects != nil, func(v *T) bool { return store.InProjects(f.OnlyProjects, a.project(v)) })
	add(!f.DueBefore.IsZero(), func(v *T) bool {
		if a.due == nil { // a kind without a DueAt
			return false
		}
		due := a.due(v)
		return due != nil && due.Before(f.DueBefore)
	})
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

// listed returns the page of s's items (none when s is nil) that status,
// f and, when not nil, keep select: the one list of every kind. The
// caller holds mu for reading; t is the organization (nil for none).
func listed[T any](m *Store, t *tenant, s *sorted[T], a fields[T], r store.PageRequest, status string, f store.ListFilter, keep func(*T) bool, copyItem func(T) T) (store.Page[T], error) {
	if filter := match(a, status, f); keep == nil {
		keep = filter
	} else if filter != nil {
		only := keep
		keep = func(v *T) bool { return only(v) && filter(v) }
	}
	var items []*T
	if s != nil {
		items, keep = s.view(f.UpdatedSince, f.After, keep)
	}
	return page(items, keep, r, copyItem, m.syncedThrough(f.UpdatedSince), t.dataVersion())
}

// get returns one of the organization's items, or ErrNotFound.
func (d *itemDesc[T]) get(ctx context.Context, m *Store, orgID, id string) (T, error) {
	return reading(ctx, m, func() (T, error) {
		if t := m.orgs[orgID]; t != nil {
			if v, ok := d.of(t).byID[id]; ok {
				return d.copy(*v), nil
			}
		}
		var none T
		return none, fmt.Errorf("store: %s %q: %w", d.kind, id, store.ErrNotFound)
	})
}

// delete removes an item and records its Deletion (with the project it
// was in); threads about it stay, with a nil About. It returns an error
// wrapping ErrNotFound when the organization has no such item. Projects
// have their own (DeleteProject).
func (d *itemDesc[T]) delete(ctx context.Context, m *Store, orgID, id string) error {
	return m.writing(ctx, orgID, func() error {
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
	})
}
