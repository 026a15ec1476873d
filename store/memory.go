package store

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clientstatus/clientstatus/internal/wake"
	"github.com/clientstatus/clientstatus/option"
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
// Memory stores and returns copies, with every time in UTC truncated to
// the second (what the wire shows, and what bunstore keeps, so that both
// stores answer alike and every order, with its tie-breaks, is the order
// of the values a client sees), so callers never share its data.
//
// A list asked for a page below 1 or a limit below 1 returns an error
// wrapping ErrInvalid (the handler never asks for one); a page past the end
// has no items, as a non-nil empty slice, and the true Total.
//
// Each organization's items are kept in list order as they are written, so
// a read costs one pass over the organization's items of that kind, and an
// unfiltered read only the page itself. A read with UpdatedSince scans the
// organization's items of that kind and sorts those it keeps.
//
// Memory is a whole Store (restrictions, changes, versions, threads,
// events) and the portal's side too (Writer, Deleter, ThreadWriter,
// Organizations), and it keeps a RequestLog and WebhookEndpoints. It dates every
// write from its clock (WithClock): a Put sets UpdatedAt when the item is
// new or differs from the stored one in any other field (FileKey included:
// a new file is new bytes behind the download link), and keeps it when
// nothing changed; the UpdatedAt given is ignored. The times it gives never
// go back, even when the clock does: a client that asks for changes since
// the latest time it saw misses none. Deletion records are kept
// DeletionRetention (older ones are pruned by later deletes), and dropped
// when an item of the same kind and id is put again; ListDeletions refuses
// (ErrSinceTooOld) a since before the Memory was created, since it knows
// nothing of what was deleted before.
//
// Memory keeps its changes as an event feed (Events; see ListEvents and
// memory_events.go for the rules), woken in process.
//
// Memory also holds communication threads (Threads, ThreadWriter; see
// PutThread and PutMessage for how internal content, deletion records and
// attachment ids are handled). A project's threads go with it; a thread
// about a milestone, deliverable or invoice that is deleted stays, with a
// nil About and a new UpdatedAt.
type Memory struct {
	now func() time.Time

	// orgMu serializes PutOrganization and DeleteOrganization, so that the
	// hooks of a deletion run before an organization with the same id can
	// be put again. It is taken before mu.
	orgMu    sync.Mutex
	onDelete []func(orgID string)
	onChange []func(orgID string)

	mu   sync.RWMutex
	orgs map[string]*tenant
	last time.Time // the latest time a write was dated with
	// synced is the latest second (Unix) a page answered as its
	// SyncedThrough: no later write is dated before it. Lists hold mu
	// for reading only, so it is atomic.
	synced atomic.Int64
	// seq counts the writes: each one gives its organization's tenant
	// the next value as its data version (DataVersion), so no value
	// comes back once an organization is deleted and put again.
	seq int64
	// floor is the earliest time ListDeletions answers for: when the
	// Memory was created, or later once records have been pruned.
	floor time.Time

	webhooks memoryWebhooks // memory_webhooks.go
	requests requestLogs    // the request log (memory_requestlog.go)
	// events numbers the events of every organization (memory_events.go).
	events   int64
	watchers wake.Set
}

var (
	_ Store         = (*Memory)(nil)
	_ Writer        = (*Memory)(nil)
	_ Organizations = (*Memory)(nil)
	_ Deleter       = (*Memory)(nil)
)

// MemoryOption configures NewMemory. Options follow the module's one
// policy (see package [github.com/clientstatus/clientstatus/option]):
// each sets a field of a configuration that starts from the defaults, and
// a nil option, or an option given nil, keeps the default.
type MemoryOption func(*memoryConfig)

type memoryConfig struct {
	now func() time.Time
}

// WithClock sets the clock from which a Memory dates its writes (UpdatedAt,
// DeletedAt) and measures how long it keeps deletion records; time.Now
// unless set, and nil keeps it. Golden tests use a fixed clock, so that
// UpdatedAt stays the same from one run to the next.
func WithClock(now func() time.Time) MemoryOption {
	return func(c *memoryConfig) {
		if now != nil {
			c.now = now
		}
	}
}

// NewMemory returns an empty Memory. Its horizon for ListDeletions is the
// time it is created, on its clock.
func NewMemory(opts ...MemoryOption) *Memory {
	c := memoryConfig{now: time.Now}
	option.Apply(&c, opts)
	created := kept(c.now())
	m := &Memory{now: c.now, orgs: make(map[string]*tenant), floor: created}
	m.onDelete = append(m.onDelete, m.forgetRequests)
	return m
}

// tenant is one organization and everything it owns, each kind in list
// order, and its deletion records.
type tenant struct {
	org          Organization
	version      int64 // moved by every write (stamp)
	projects     sorted[Project]
	milestones   sorted[Milestone]
	deliverables sorted[Deliverable]
	invoices     sorted[Invoice]
	threads      threadStore // and their messages (memory_threads.go)

	deletions []*Deletion               // in feed order (deletionOrder)
	deleted   map[deletionKey]time.Time // DeletedAt of each record, to find it

	events   eventLog // oldest first, indexed (memory_events.go)
	eventSeq *int64   // the Memory's count of events, which ids follow

	departures []*departure                          // in feed order, then project (memory_departures.go)
	departed   map[deletionKey]map[string]*departure // by item, then the project it left
}

// deletionKey names the item of a deletion record: one per kind and id.
type deletionKey struct {
	kind Kind
	id   string
}

func newTenant(o Organization) *tenant {
	return &tenant{
		org: o,
		projects: newSorted(projectOrder, func(p *Project) string { return p.ID },
			func(p *Project) *time.Time { return &p.UpdatedAt }),
		milestones: newSorted(milestoneOrder, func(m *Milestone) string { return m.ID },
			func(m *Milestone) *time.Time { return &m.UpdatedAt }),
		deliverables: newSorted(deliverableOrder, func(d *Deliverable) string { return d.ID },
			func(d *Deliverable) *time.Time { return &d.UpdatedAt }),
		invoices: newSorted(invoiceOrder, func(i *Invoice) string { return i.ID },
			func(i *Invoice) *time.Time { return &i.UpdatedAt }),
		threads: newThreadStore(),
		deleted: make(map[deletionKey]time.Time),
	}
}

// stamp returns the time to date a write to t with: the clock's, in UTC
// truncated to the second, but never before the time of an earlier write
// nor a SyncedThrough already answered, so that UpdatedAt and DeletedAt
// never go back when the clock does. It moves t's data version. Every
// write calls it; the caller holds mu for writing.
func (m *Memory) stamp(t *tenant) time.Time {
	m.bump(t)
	at := later(m.current(), m.last)
	m.last = at
	return at
}

// current is the clock's second, never before a SyncedThrough already
// answered.
func (m *Memory) current() time.Time {
	return later(kept(m.now()), time.Unix(m.synced.Load(), 0).UTC())
}

// syncedThrough is Page.SyncedThrough of a list asked with since (zero
// for none, which has none): the store's current stamp second. Memory
// writes are atomic under mu, which the caller holds (for reading at
// least), so no write is in flight: every later write is dated at or
// after it, since stamp never goes before it.
func (m *Memory) syncedThrough(since time.Time) time.Time {
	if since.IsZero() {
		return time.Time{}
	}
	at := later(m.current(), m.last)
	for {
		old := m.synced.Load()
		if at.Unix() <= old || m.synced.CompareAndSwap(old, at.Unix()) {
			return at
		}
	}
}

// bump moves t's data version to a value no tenant had. The caller holds
// mu for writing.
func (m *Memory) bump(t *tenant) {
	m.seq++
	t.version = m.seq
}

// later returns the later of a and b.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// kept is t as Memory keeps it: in UTC, truncated to the second, as the
// wire shows it (issue 26: sorting by the kept value is sorting by the
// wire's, so the documented tie-breaks apply to equal seconds).
func kept(t time.Time) time.Time { return t.UTC().Truncate(time.Second) }

// PutOrganization inserts or replaces an organization; replacing keeps the
// items it owns. Replacing it with one that differs then calls the
// functions registered with OnOrganizationChange.
func (m *Memory) PutOrganization(ctx context.Context, o Organization) error {
	if err := alive(ctx); err != nil {
		return err
	}
	if err := o.Validate(); err != nil {
		return err
	}
	m.orgMu.Lock()
	defer m.orgMu.Unlock()
	m.mu.Lock()
	t, ok := m.orgs[o.ID]
	changed := ok && t.org != o
	if !ok {
		t = newTenant(o)
		t.eventSeq = &m.events
		m.orgs[o.ID] = t
	}
	t.org = o
	m.bump(t)
	m.mu.Unlock()
	if changed {
		for _, fn := range m.onChange {
			fn(o.ID)
		}
	}
	return nil
}

// OnOrganizationChange registers fn, to be called with the id of every
// organization that PutOrganization replaces with one that differs (its
// plan, flags or name), once the new one is stored. auth.NewMemoryKeyStore
// registers one, so that a resolver cache forgets the organization's
// account at once when its retainer or API access is switched off.
//
// fn runs on the putting goroutine, as OnDeleteOrganization's do, with the
// same rule: it may read the Memory, but must not put or delete an
// organization. It panics if fn is nil.
func (m *Memory) OnOrganizationChange(fn func(orgID string)) {
	if fn == nil {
		panic("store: OnOrganizationChange needs a function")
	}
	m.orgMu.Lock()
	defer m.orgMu.Unlock()
	m.onChange = append(m.onChange, fn)
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
	defer m.wake(p.OrgID)
	m.mu.Lock()
	defer m.mu.Unlock()
	t, err := m.owner("project", p.ID, p.OrgID)
	if err != nil {
		return err
	}
	at := m.stamp(t)
	if old, changed := t.projects.put(ptr(copyProject(p)), at); changed {
		t.put(KindProject, p.ID, p.ID, "", statusOf(old, func(o *Project) string { return string(o.Status) }), string(p.Status), old != nil, at)
	}
	t.forget(KindProject, p.ID)
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
	defer m.wake(ms.OrgID)
	m.mu.Lock()
	defer m.mu.Unlock()
	t, err := m.owner("milestone", ms.ID, ms.OrgID)
	if err != nil {
		return err
	}
	if err := t.hasProject("milestone", ms.ID, ms.ProjectID); err != nil {
		return err
	}
	at := m.stamp(t)
	if old := t.milestones.byID[ms.ID]; old != nil {
		t.depart(KindMilestone, ms.ID, true, old.ProjectID, ms.ProjectID, at)
	} else {
		t.depart(KindMilestone, ms.ID, false, "", ms.ProjectID, at)
	}
	if old, changed := t.milestones.put(ptr(copyMilestone(ms)), at); changed {
		t.put(KindMilestone, ms.ID, ms.ProjectID, "", statusOf(old, func(o *Milestone) string { return string(o.Status) }), string(ms.Status), old != nil, at)
	}
	t.forget(KindMilestone, ms.ID)
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
	defer m.wake(d.OrgID)
	m.mu.Lock()
	defer m.mu.Unlock()
	t, err := m.owner("deliverable", d.ID, d.OrgID)
	if err != nil {
		return err
	}
	if err := t.hasProject("deliverable", d.ID, d.ProjectID); err != nil {
		return err
	}
	at := m.stamp(t)
	if old := t.deliverables.byID[d.ID]; old != nil {
		t.depart(KindDeliverable, d.ID, true, old.ProjectID, d.ProjectID, at)
	} else {
		t.depart(KindDeliverable, d.ID, false, "", d.ProjectID, at)
	}
	if old, changed := t.deliverables.put(ptr(copyDeliverable(d)), at); changed {
		t.put(KindDeliverable, d.ID, d.ProjectID, "", statusOf(old, func(o *Deliverable) string { return string(o.Status) }), string(d.Status), old != nil, at)
	}
	t.forget(KindDeliverable, d.ID)
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
	defer m.wake(i.OrgID)
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
	at := m.stamp(t)
	if old := t.invoices.byID[i.ID]; old != nil {
		t.depart(KindInvoice, i.ID, true, deref(old.ProjectID), deref(i.ProjectID), at)
	} else {
		t.depart(KindInvoice, i.ID, false, "", deref(i.ProjectID), at)
	}
	if old, changed := t.invoices.put(ptr(copyInvoice(i)), at); changed {
		var left *string
		if old != nil {
			left = old.ProjectID
		}
		t.put(KindInvoice, i.ID, leftOr(deref(i.ProjectID), left), "", statusOf(old, func(o *Invoice) string { return string(o.Status) }), string(i.Status), old != nil, at)
	}
	t.forget(KindInvoice, i.ID)
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
	var keep func(*Project) bool
	if q.Status != "" || q.OnlyProjects != nil {
		keep = func(p *Project) bool {
			return (q.Status == "" || p.Status == q.Status) && InProjects(q.OnlyProjects, p.ID)
		}
	}
	var items []*Project
	if t := m.orgs[orgID]; t != nil {
		items, keep = t.projects.view(q.UpdatedSince, keep)
	}
	return page(items, keep, q.PageRequest, copyProject, m.syncedThrough(q.UpdatedSince))
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
	items, keep := t.milestones.view(q.UpdatedSince, keep)
	return page(items, keep, q.PageRequest, copyMilestone, m.syncedThrough(q.UpdatedSince))
}

// ListDeliverables returns a page of the organization's deliverables.
func (m *Memory) ListDeliverables(ctx context.Context, orgID string, q DeliverableQuery) (Page[Deliverable], error) {
	if err := alive(ctx); err != nil {
		return Page[Deliverable]{}, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	var keep func(*Deliverable) bool
	if q.Status != "" || q.ProjectID != "" || q.OnlyProjects != nil {
		keep = func(d *Deliverable) bool {
			return (q.Status == "" || d.Status == q.Status) && (q.ProjectID == "" || d.ProjectID == q.ProjectID) &&
				InProjects(q.OnlyProjects, d.ProjectID)
		}
	}
	var items []*Deliverable
	if t := m.orgs[orgID]; t != nil {
		items, keep = t.deliverables.view(q.UpdatedSince, keep)
	}
	return page(items, keep, q.PageRequest, copyDeliverable, m.syncedThrough(q.UpdatedSince))
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
	var keep func(*Invoice) bool
	if q.Status != "" || q.ProjectID != "" || q.OnlyProjects != nil {
		keep = func(i *Invoice) bool {
			project := ""
			if i.ProjectID != nil {
				project = *i.ProjectID
			}
			return (q.Status == "" || i.Status == q.Status) && (q.ProjectID == "" || project == q.ProjectID) &&
				InProjects(q.OnlyProjects, project)
		}
	}
	var items []*Invoice
	if t := m.orgs[orgID]; t != nil {
		items, keep = t.invoices.view(q.UpdatedSince, keep)
	}
	return page(items, keep, q.PageRequest, copyInvoice, m.syncedThrough(q.UpdatedSince))
}

// DataVersion returns the organization's data version (see
// store.Versions): a counter that every write moves, 0 for an
// organization that does not exist.
func (m *Memory) DataVersion(ctx context.Context, orgID string) (int64, error) {
	if err := alive(ctx); err != nil {
		return 0, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if t := m.orgs[orgID]; t != nil {
		return t.version, nil
	}
	return 0, nil
}

// DeleteOrganization removes an organization and everything it owns,
// and leaves no deletion records: an organization that no longer exists
// has no client to tell. The functions registered with
// OnDeleteOrganization are then called (the key store's drops its keys).
// It returns an error wrapping ErrNotFound when there is no such
// organization.
func (m *Memory) DeleteOrganization(ctx context.Context, orgID string) error {
	if err := alive(ctx); err != nil {
		return err
	}
	defer m.wake(orgID)
	m.orgMu.Lock()
	defer m.orgMu.Unlock()
	m.mu.Lock()
	_, ok := m.orgs[orgID]
	delete(m.orgs, orgID)
	m.webhooks.dropOrganization(orgID) // memory_webhooks.go
	m.mu.Unlock()
	if !ok {
		return fmt.Errorf("store: organization %q: %w", orgID, ErrNotFound)
	}
	for _, fn := range m.onDelete {
		fn(orgID)
	}
	return nil
}

// OnDeleteOrganization registers fn, to be called with the id of every
// organization DeleteOrganization removes, once everything the
// organization owned is gone and before an organization with the same id
// can be put again. auth.NewMemoryKeyStore registers one that drops the
// organization's keys, so that they stop working for good.
//
// fn runs on the deleting goroutine. It may read the Memory, but must not
// put or delete an organization: that would wait for itself. It panics if
// fn is nil.
func (m *Memory) OnDeleteOrganization(fn func(orgID string)) {
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
func (m *Memory) DeleteProject(ctx context.Context, orgID, id string) error {
	if err := alive(ctx); err != nil {
		return err
	}
	defer m.wake(orgID)
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.orgs[orgID]
	if t == nil || t.projects.remove(id) == nil {
		return fmt.Errorf("store: project %q: %w", id, ErrNotFound)
	}
	at := m.stamp(t)
	t.record(KindProject, id, id, at)
	for _, ms := range t.milestones.removeAll(func(ms *Milestone) bool { return ms.ProjectID == id }) {
		t.record(KindMilestone, ms.ID, id, at)
	}
	for _, d := range t.deliverables.removeAll(func(d *Deliverable) bool { return d.ProjectID == id }) {
		t.record(KindDeliverable, d.ID, id, at)
	}
	var named []*Invoice
	for _, i := range t.invoices.items {
		if i.ProjectID != nil && *i.ProjectID == id {
			named = append(named, i)
		}
	}
	for _, i := range named {
		c := copyInvoice(*i)
		c.ProjectID = nil
		t.invoices.put(&c, at)
		t.put(KindInvoice, i.ID, id, "", string(i.Status), string(i.Status), true, at) // the project it left
		t.depart(KindInvoice, i.ID, true, id, "", at)
	}
	t.deleteProjectThreads(id, at)
	t.dropStaleAbouts(at)
	m.prune(t)
	return nil
}

// DeleteMilestone removes a milestone and records its Deletion; threads
// about it stay, with a nil About. It returns an error wrapping
// ErrNotFound when the organization has no such milestone.
func (m *Memory) DeleteMilestone(ctx context.Context, orgID, id string) error {
	if err := alive(ctx); err != nil {
		return err
	}
	defer m.wake(orgID)
	m.mu.Lock()
	defer m.mu.Unlock()
	var gone *Milestone
	t := m.orgs[orgID]
	if t != nil {
		gone = t.milestones.remove(id)
	}
	if gone == nil {
		return fmt.Errorf("store: milestone %q: %w", id, ErrNotFound)
	}
	at := m.stamp(t)
	t.record(KindMilestone, id, gone.ProjectID, at)
	t.dropStaleAbouts(at)
	m.prune(t)
	return nil
}

// DeleteDeliverable removes a deliverable and records its Deletion;
// threads about it stay, with a nil About. It returns an error wrapping
// ErrNotFound when the organization has no such deliverable.
func (m *Memory) DeleteDeliverable(ctx context.Context, orgID, id string) error {
	if err := alive(ctx); err != nil {
		return err
	}
	defer m.wake(orgID)
	m.mu.Lock()
	defer m.mu.Unlock()
	var gone *Deliverable
	t := m.orgs[orgID]
	if t != nil {
		gone = t.deliverables.remove(id)
	}
	if gone == nil {
		return fmt.Errorf("store: deliverable %q: %w", id, ErrNotFound)
	}
	at := m.stamp(t)
	t.record(KindDeliverable, id, gone.ProjectID, at)
	t.dropStaleAbouts(at)
	m.prune(t)
	return nil
}

// DeleteInvoice removes an invoice and records its Deletion (with no
// ProjectID for a retainer invoice); threads about it stay, with a nil
// About. It returns an error wrapping ErrNotFound when the organization
// has no such invoice.
func (m *Memory) DeleteInvoice(ctx context.Context, orgID, id string) error {
	if err := alive(ctx); err != nil {
		return err
	}
	defer m.wake(orgID)
	m.mu.Lock()
	defer m.mu.Unlock()
	var gone *Invoice
	t := m.orgs[orgID]
	if t != nil {
		gone = t.invoices.remove(id)
	}
	if gone == nil {
		return fmt.Errorf("store: invoice %q: %w", id, ErrNotFound)
	}
	projectID := ""
	if gone.ProjectID != nil {
		projectID = *gone.ProjectID
	}
	at := m.stamp(t)
	t.record(KindInvoice, id, projectID, at)
	t.dropStaleAbouts(at)
	m.prune(t)
	return nil
}

// ListDeletions returns a page of the organization's deletion records at
// or after q.Since, ordered by DeletedAt, Kind, then ID; an unknown
// organization has none. It returns an error wrapping ErrSinceTooOld when
// q.Since (a zero one included) is before the Memory's horizon: the later
// of when it was created and DeletionRetention ago.
//
// With q.OnlyProjects, the records also hold the items still stored that
// left one of those projects (moved to another project or to none, a
// deleted project's invoices included) and are in none of them now, dated
// when they left (the latest time, when they left several): the key saw
// them go. Such a list scans the organization's departures since q.Since.
func (m *Memory) ListDeletions(ctx context.Context, orgID string, q DeletionQuery) (Page[Deletion], error) {
	if err := alive(ctx); err != nil {
		return Page[Deletion]{}, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	// Whole seconds: clients give since in the contract's format, and a
	// store started at 09:00:00.4 knows everything from 09:00:00 (nothing
	// was deleted in it before it started).
	horizon := later(m.floor, kept(m.now()).Add(-DeletionRetention)).Truncate(time.Second)
	if q.Since.Before(horizon) {
		return Page[Deletion]{}, fmt.Errorf("store: deletions since %s: %w (it knows them from %s)",
			q.Since.UTC().Format(time.RFC3339Nano), ErrSinceTooOld, horizon.Format(time.RFC3339Nano))
	}
	var items []*Deletion
	if t := m.orgs[orgID]; t != nil {
		from, _ := slices.BinarySearchFunc(t.deletions, q.Since, func(d *Deletion, since time.Time) int {
			if d.DeletedAt.Before(since) {
				return -1
			}
			return 1
		})
		items = t.deletions[from:]
	}
	if t := m.orgs[orgID]; t != nil && q.OnlyProjects != nil {
		if moved := t.departuresSince(q.OnlyProjects, q.Since); len(moved) > 0 {
			items = mergeDeletions(items, moved)
		}
	}
	var keep func(*Deletion) bool
	if q.Kind != "" || q.OnlyKinds != nil || q.OnlyProjects != nil {
		keep = func(d *Deletion) bool {
			return (q.Kind == "" || d.Kind == q.Kind) && (q.OnlyKinds == nil || slices.Contains(q.OnlyKinds, d.Kind)) &&
				InProjects(q.OnlyProjects, d.ProjectID)
		}
	}
	return page(items, keep, q.PageRequest, func(d Deletion) Deletion { return d }, m.syncedThrough(q.Since))
}

// record adds a deletion record to the organization's feed, in its place,
// and the deleted event. A message's is recorded before it leaves the
// visible messages, where its thread is read.
func (t *tenant) record(kind Kind, id, projectID string, at time.Time) {
	threadID := ""
	if msg := t.threads.shownMsgs.byID[id]; kind == KindMessage && msg != nil {
		threadID = msg.ThreadID
	}
	t.gone(kind, id, projectID, threadID, at)
	t.forget(kind, id) // none is left, unless a put was missed: keep one per item
	d := &Deletion{Kind: kind, ID: id, ProjectID: projectID, DeletedAt: at}
	i, _ := slices.BinarySearchFunc(t.deletions, d, deletionOrder)
	t.deletions = slices.Insert(t.deletions, i, d)
	t.deleted[deletionKey{kind, id}] = at
}

// forget drops the deletion record of the item of that kind and id, if
// any: the item has been put again.
func (t *tenant) forget(kind Kind, id string) {
	k := deletionKey{kind, id}
	at, ok := t.deleted[k]
	if !ok {
		return
	}
	if i, found := slices.BinarySearchFunc(t.deletions, &Deletion{Kind: kind, ID: id, DeletedAt: at}, deletionOrder); found {
		t.deletions = slices.Delete(t.deletions, i, i+1)
	}
	delete(t.deleted, k)
}

// prune drops the organization's deletion records older than
// DeletionRetention, and moves the horizon of ListDeletions past them. The
// caller holds mu for writing.
func (m *Memory) prune(t *tenant) {
	cutoff := kept(m.now()).Add(-DeletionRetention)
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

func deletionOrder(a, b *Deletion) int {
	if c := a.DeletedAt.Compare(b.DeletedAt); c != 0 {
		return c
	}
	if c := strings.Compare(string(a.Kind), string(b.Kind)); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
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
	order   func(a, b *T) int // list order; ends with the id, so it is total
	id      func(*T) string
	updated func(*T) *time.Time // the item's UpdatedAt, which put sets
	byID    map[string]*T
	items   []*T
}

func newSorted[T any](order func(a, b *T) int, id func(*T) string, updated func(*T) *time.Time) sorted[T] {
	return sorted[T]{order: order, id: id, updated: updated, byID: make(map[string]*T)}
}

func (s *sorted[T]) has(id string) bool {
	_, ok := s.byID[id]
	return ok
}

// put inserts v at its place in the order, replacing the item with its
// id, and sets v's UpdatedAt to now. When v differs from the item it would
// replace in nothing but UpdatedAt, nothing changes: the stored item keeps
// its UpdatedAt. v must be normalized as the copy functions do (UTC,
// microseconds), so that equal instants compare equal. It returns the
// item replaced (nil for none) and whether anything changed.
func (s *sorted[T]) put(v *T, now time.Time) (old *T, changed bool) {
	id := s.id(v)
	if old, ok := s.byID[id]; ok {
		*s.updated(v) = *s.updated(old)
		if reflect.DeepEqual(old, v) {
			return old, false
		}
		i, _ := slices.BinarySearchFunc(s.items, old, s.order)
		s.items = slices.Delete(s.items, i, i+1)
	}
	*s.updated(v) = now
	i, _ := slices.BinarySearchFunc(s.items, v, s.order)
	s.items = slices.Insert(s.items, i, v)
	old = s.byID[id]
	s.byID[id] = v
	return old, true
}

// remove deletes the item with the id and returns it; nil when there is
// none.
func (s *sorted[T]) remove(id string) *T {
	old, ok := s.byID[id]
	if !ok {
		return nil
	}
	i, _ := slices.BinarySearchFunc(s.items, old, s.order)
	s.items = slices.Delete(s.items, i, i+1)
	delete(s.byID, id)
	return old
}

// removeAll deletes the items match accepts and returns them, in list
// order.
func (s *sorted[T]) removeAll(match func(*T) bool) []*T {
	var gone []*T
	s.items = slices.DeleteFunc(s.items, func(v *T) bool {
		if !match(v) {
			return false
		}
		gone = append(gone, v)
		delete(s.byID, s.id(v))
		return true
	})
	return gone
}

// view returns the items a list reads and the filter left to apply to
// them. Without since (zero) they are all the items, in list order, and
// keep is left to apply. With it, they are the items keep accepts (all
// when it is nil) with UpdatedAt at or after since, ordered by UpdatedAt,
// then id, and nothing is left to apply.
func (s *sorted[T]) view(since time.Time, keep func(*T) bool) ([]*T, func(*T) bool) {
	if since.IsZero() {
		return s.items, keep
	}
	var out []*T
	for _, v := range s.items {
		if !s.updated(v).Before(since) && (keep == nil || keep(v)) {
			out = append(out, v)
		}
	}
	slices.SortFunc(out, func(a, b *T) int {
		if c := s.updated(a).Compare(*s.updated(b)); c != 0 {
			return c
		}
		return strings.Compare(s.id(a), s.id(b))
	})
	return out, nil
}

// page returns the requested page of the items keep accepts (all when keep
// is nil), copied, and how many it accepts in all, with synced as its
// SyncedThrough.
func page[T any](items []*T, keep func(*T) bool, r PageRequest, copyItem func(T) T, synced time.Time) (Page[T], error) {
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
		return Page[T]{Items: out, Total: len(items), SyncedThrough: synced}, nil
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
	return Page[T]{Items: out, Total: total, SyncedThrough: synced}, nil
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
// argument, with every time in UTC truncated to the second (kept). Memory
// copies on the way in and out.

func copyProject(p Project) Project {
	p.StartedAt = utcPtr(p.StartedAt)
	p.DueAt = utcPtr(p.DueAt)
	p.UpdatedAt = kept(p.UpdatedAt)
	return p
}

func copyMilestone(m Milestone) Milestone {
	m.DueAt = kept(m.DueAt)
	m.CompletedAt = utcPtr(m.CompletedAt)
	m.UpdatedAt = kept(m.UpdatedAt)
	return m
}

func copyDeliverable(d Deliverable) Deliverable {
	d.FileName = clonePtr(d.FileName)
	d.ContentType = clonePtr(d.ContentType)
	d.SizeBytes = clonePtr(d.SizeBytes)
	d.CreatedAt = kept(d.CreatedAt)
	d.UpdatedAt = kept(d.UpdatedAt)
	return d
}

func copyInvoice(i Invoice) Invoice {
	i.ProjectID = clonePtr(i.ProjectID)
	i.IssuedAt = kept(i.IssuedAt)
	i.DueAt = kept(i.DueAt)
	i.PaidAt = utcPtr(i.PaidAt)
	i.UpdatedAt = kept(i.UpdatedAt)
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
	u := kept(*t)
	return &u
}
