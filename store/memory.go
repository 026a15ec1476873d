package store

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"
)

// Memory is a Store and Writer that keeps everything in memory: for tests,
// demos and one-box installs. The zero value is not usable; call NewMemory.
//
// Memory is safe for concurrent use. Ids are unique per organization only:
// two organizations may each have a project "p1". Put methods validate the
// item (see the Validate methods; the error wraps ErrInvalid), require its
// organization, and for milestones, deliverables and project invoices its
// project in the same organization, to be put first (otherwise the error
// wraps ErrNotFound), and insert or replace it by (organization, id).
// Memory stores and returns copies, with every time in UTC, so callers
// never share its data.
//
// A list asked for a page below 1 or a limit below 1 returns an error
// wrapping ErrInvalid (the handler never asks for one); a page past the end
// has no items, as a non-nil empty slice, and the true Total.
//
// Each organization's items are kept in list order as they are written, so
// a read costs one pass over the organization's items of that kind, and an
// unfiltered read only the page itself.
type Memory struct {
	mu   sync.RWMutex
	orgs map[string]*tenant
}

var (
	_ Store         = (*Memory)(nil)
	_ Writer        = (*Memory)(nil)
	_ Organizations = (*Memory)(nil)
)

// NewMemory returns an empty Memory.
func NewMemory() *Memory {
	return &Memory{orgs: make(map[string]*tenant)}
}

// tenant is one organization and everything it owns, each kind in list order.
type tenant struct {
	org          Organization
	projects     sorted[Project]
	milestones   sorted[Milestone]
	deliverables sorted[Deliverable]
	invoices     sorted[Invoice]
}

func newTenant(o Organization) *tenant {
	return &tenant{
		org:          o,
		projects:     newSorted(projectOrder, func(p *Project) string { return p.ID }),
		milestones:   newSorted(milestoneOrder, func(m *Milestone) string { return m.ID }),
		deliverables: newSorted(deliverableOrder, func(d *Deliverable) string { return d.ID }),
		invoices:     newSorted(invoiceOrder, func(i *Invoice) string { return i.ID }),
	}
}

// PutOrganization inserts or replaces an organization; replacing keeps the
// items it owns.
func (m *Memory) PutOrganization(ctx context.Context, o Organization) error {
	if err := alive(ctx); err != nil {
		return err
	}
	if err := o.Validate(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if t, ok := m.orgs[o.ID]; ok {
		t.org = o
		return nil
	}
	m.orgs[o.ID] = newTenant(o)
	return nil
}

// Organization returns the organization with that id, or ErrNotFound.
func (m *Memory) Organization(ctx context.Context, id string) (Organization, error) {
	if err := alive(ctx); err != nil {
		return Organization{}, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	t, ok := m.orgs[id]
	if !ok {
		return Organization{}, fmt.Errorf("store: organization %q: %w", id, ErrNotFound)
	}
	return t.org, nil
}

// PutProject inserts or replaces a project of an existing organization.
func (m *Memory) PutProject(ctx context.Context, p Project) error {
	if err := alive(ctx); err != nil {
		return err
	}
	if err := p.Validate(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	t, err := m.owner("project", p.ID, p.OrgID)
	if err != nil {
		return err
	}
	t.projects.put(ptr(copyProject(p)))
	return nil
}

// PutMilestone inserts or replaces a milestone of an existing project.
func (m *Memory) PutMilestone(ctx context.Context, ms Milestone) error {
	if err := alive(ctx); err != nil {
		return err
	}
	if err := ms.Validate(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	t, err := m.owner("milestone", ms.ID, ms.OrgID)
	if err != nil {
		return err
	}
	if err := t.hasProject("milestone", ms.ID, ms.ProjectID); err != nil {
		return err
	}
	t.milestones.put(ptr(copyMilestone(ms)))
	return nil
}

// PutDeliverable inserts or replaces a deliverable of an existing project.
func (m *Memory) PutDeliverable(ctx context.Context, d Deliverable) error {
	if err := alive(ctx); err != nil {
		return err
	}
	if err := d.Validate(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	t, err := m.owner("deliverable", d.ID, d.OrgID)
	if err != nil {
		return err
	}
	if err := t.hasProject("deliverable", d.ID, d.ProjectID); err != nil {
		return err
	}
	t.deliverables.put(ptr(copyDeliverable(d)))
	return nil
}

// PutInvoice inserts or replaces an invoice of an existing organization and,
// unless it is a retainer invoice (nil ProjectID), of an existing project.
func (m *Memory) PutInvoice(ctx context.Context, i Invoice) error {
	if err := alive(ctx); err != nil {
		return err
	}
	if err := i.Validate(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	t, err := m.owner("invoice", i.ID, i.OrgID)
	if err != nil {
		return err
	}
	if i.ProjectID != nil {
		if err := t.hasProject("invoice", i.ID, *i.ProjectID); err != nil {
			return err
		}
	}
	t.invoices.put(ptr(copyInvoice(i)))
	return nil
}

// owner returns the organization an item is put into. The caller holds mu.
func (m *Memory) owner(kind, id, orgID string) (*tenant, error) {
	t, ok := m.orgs[orgID]
	if !ok {
		return nil, fmt.Errorf("store: %s %q: organization %q (put it first): %w", kind, id, orgID, ErrNotFound)
	}
	return t, nil
}

func (t *tenant) hasProject(kind, id, projectID string) error {
	if !t.projects.has(projectID) {
		return fmt.Errorf("store: %s %q: project %q of organization %q (put it first): %w", kind, id, projectID, t.org.ID, ErrNotFound)
	}
	return nil
}

// ListProjects returns a page of the organization's projects; an unknown
// organization has none.
func (m *Memory) ListProjects(ctx context.Context, orgID string, q ProjectQuery) (Page[Project], error) {
	if err := alive(ctx); err != nil {
		return Page[Project]{}, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	var items []*Project
	if t := m.orgs[orgID]; t != nil {
		items = t.projects.items
	}
	var keep func(*Project) bool
	if q.Status != "" {
		keep = func(p *Project) bool { return p.Status == q.Status }
	}
	return page(items, keep, q.PageRequest, copyProject)
}

// GetProject returns one of the organization's projects, or ErrNotFound.
func (m *Memory) GetProject(ctx context.Context, orgID, id string) (Project, error) {
	if err := alive(ctx); err != nil {
		return Project{}, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if t := m.orgs[orgID]; t != nil {
		if p, ok := t.projects.byID[id]; ok {
			return copyProject(*p), nil
		}
	}
	return Project{}, fmt.Errorf("store: project %q: %w", id, ErrNotFound)
}

// ListMilestones returns a page of one project's milestones, or ErrNotFound
// when the organization has no such project.
func (m *Memory) ListMilestones(ctx context.Context, orgID, projectID string, q MilestoneQuery) (Page[Milestone], error) {
	if err := alive(ctx); err != nil {
		return Page[Milestone]{}, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	t := m.orgs[orgID]
	if t == nil || !t.projects.has(projectID) {
		return Page[Milestone]{}, fmt.Errorf("store: project %q: %w", projectID, ErrNotFound)
	}
	keep := func(ms *Milestone) bool {
		return ms.ProjectID == projectID && (q.Status == "" || ms.Status == q.Status)
	}
	return page(t.milestones.items, keep, q.PageRequest, copyMilestone)
}

// ListDeliverables returns a page of the organization's deliverables.
func (m *Memory) ListDeliverables(ctx context.Context, orgID string, q DeliverableQuery) (Page[Deliverable], error) {
	if err := alive(ctx); err != nil {
		return Page[Deliverable]{}, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	var items []*Deliverable
	if t := m.orgs[orgID]; t != nil {
		items = t.deliverables.items
	}
	var keep func(*Deliverable) bool
	if q.Status != "" || q.ProjectID != "" {
		keep = func(d *Deliverable) bool {
			return (q.Status == "" || d.Status == q.Status) && (q.ProjectID == "" || d.ProjectID == q.ProjectID)
		}
	}
	return page(items, keep, q.PageRequest, copyDeliverable)
}

// GetDeliverable returns one of the organization's deliverables, or
// ErrNotFound.
func (m *Memory) GetDeliverable(ctx context.Context, orgID, id string) (Deliverable, error) {
	if err := alive(ctx); err != nil {
		return Deliverable{}, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if t := m.orgs[orgID]; t != nil {
		if d, ok := t.deliverables.byID[id]; ok {
			return copyDeliverable(*d), nil
		}
	}
	return Deliverable{}, fmt.Errorf("store: deliverable %q: %w", id, ErrNotFound)
}

// ListInvoices returns a page of the organization's invoices.
func (m *Memory) ListInvoices(ctx context.Context, orgID string, q InvoiceQuery) (Page[Invoice], error) {
	if err := alive(ctx); err != nil {
		return Page[Invoice]{}, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	var items []*Invoice
	if t := m.orgs[orgID]; t != nil {
		items = t.invoices.items
	}
	var keep func(*Invoice) bool
	if q.Status != "" || q.ProjectID != "" {
		keep = func(i *Invoice) bool {
			return (q.Status == "" || i.Status == q.Status) &&
				(q.ProjectID == "" || i.ProjectID != nil && *i.ProjectID == q.ProjectID)
		}
	}
	return page(items, keep, q.PageRequest, copyInvoice)
}

// alive returns an error wrapping ctx.Err() once ctx is done.
func alive(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

// sorted holds items of one kind, unique by id, in list order.
// It holds pointers, which are cheap to move on insert and to scan; an item
// it points to is never changed, only replaced.
type sorted[T any] struct {
	order func(a, b *T) int // list order; ends with the id, so it is total
	id    func(*T) string
	byID  map[string]*T
	items []*T
}

func newSorted[T any](order func(a, b *T) int, id func(*T) string) sorted[T] {
	return sorted[T]{order: order, id: id, byID: make(map[string]*T)}
}

func (s *sorted[T]) has(id string) bool {
	_, ok := s.byID[id]
	return ok
}

// put inserts v at its place in the order, replacing the item with its id.
func (s *sorted[T]) put(v *T) {
	id := s.id(v)
	if old, ok := s.byID[id]; ok {
		i, _ := slices.BinarySearchFunc(s.items, old, s.order)
		s.items = slices.Delete(s.items, i, i+1)
	}
	i, _ := slices.BinarySearchFunc(s.items, v, s.order)
	s.items = slices.Insert(s.items, i, v)
	s.byID[id] = v
}

// page returns the requested page of the items keep accepts (all when keep
// is nil), copied, and how many it accepts in all.
func page[T any](items []*T, keep func(*T) bool, r PageRequest, copyItem func(T) T) (Page[T], error) {
	if r.Page < 1 || r.Limit < 1 {
		return Page[T]{}, fmt.Errorf("store: %w page request (page %d, limit %d)", ErrInvalid, r.Page, r.Limit)
	}
	offset := math.MaxInt // a page too far to compute is past the end
	if r.Page-1 <= math.MaxInt/r.Limit {
		offset = r.Offset()
	}
	out := make([]T, 0, min(r.Limit, len(items)))
	if keep == nil {
		if offset < len(items) {
			for _, v := range items[offset : offset+min(r.Limit, len(items)-offset)] {
				out = append(out, copyItem(*v))
			}
		}
		return Page[T]{Items: out, Total: len(items)}, nil
	}
	total := 0
	for _, v := range items {
		if !keep(v) {
			continue
		}
		if total >= offset && len(out) < r.Limit {
			out = append(out, copyItem(*v))
		}
		total++
	}
	return Page[T]{Items: out, Total: total}, nil
}

func projectOrder(a, b *Project) int {
	switch {
	case a.StartedAt == nil && b.StartedAt == nil:
	case a.StartedAt == nil:
		return 1
	case b.StartedAt == nil:
		return -1
	default:
		if c := b.StartedAt.Compare(*a.StartedAt); c != 0 {
			return c
		}
	}
	return strings.Compare(a.ID, b.ID)
}

func milestoneOrder(a, b *Milestone) int {
	if c := a.DueAt.Compare(b.DueAt); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

func deliverableOrder(a, b *Deliverable) int {
	if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

func invoiceOrder(a, b *Invoice) int {
	if c := b.IssuedAt.Compare(a.IssuedAt); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

// The copy functions return an item that shares no pointer with their
// argument, with every time in UTC. Memory copies on the way in and out.

func copyProject(p Project) Project {
	p.StartedAt = utcPtr(p.StartedAt)
	p.DueAt = utcPtr(p.DueAt)
	p.UpdatedAt = p.UpdatedAt.UTC()
	return p
}

func copyMilestone(m Milestone) Milestone {
	m.DueAt = m.DueAt.UTC()
	m.CompletedAt = utcPtr(m.CompletedAt)
	return m
}

func copyDeliverable(d Deliverable) Deliverable {
	d.FileName = clonePtr(d.FileName)
	d.ContentType = clonePtr(d.ContentType)
	d.SizeBytes = clonePtr(d.SizeBytes)
	d.CreatedAt = d.CreatedAt.UTC()
	d.UpdatedAt = d.UpdatedAt.UTC()
	return d
}

func copyInvoice(i Invoice) Invoice {
	i.ProjectID = clonePtr(i.ProjectID)
	i.IssuedAt = i.IssuedAt.UTC()
	i.DueAt = i.DueAt.UTC()
	i.PaidAt = utcPtr(i.PaidAt)
	return i
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	return ptr(*p)
}

func ptr[T any](v T) *T { return &v }

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
