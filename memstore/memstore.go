package memstore

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clientstatus/clientstatus/internal/wake"
	"github.com/clientstatus/clientstatus/option"
	"github.com/clientstatus/clientstatus/store"
)

// Store is a whole store.Store, with the portal's side (Writer, Deleter,
// ThreadWriter, Organizations), a RequestLog and WebhookEndpoints, kept in
// memory: for tests, demos and one-box installs. It is safe for concurrent
// use, and stores and returns copies, every time in UTC truncated to the
// second, as bunstore keeps it. It dates every write from its clock
// (WithClock), and its times never go back. Its rules: docs/store.md.
// The zero value is not usable; call New.
type Store struct {
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
	// the Store was created, or later once records have been pruned.
	floor time.Time

	webhooks memoryWebhooks // webhooks.go
	requests requestLogs    // the request log (requestlog.go)
	// events numbers the events of every organization (events.go).
	events   int64
	watchers wake.Set
}

var (
	_ store.Store         = (*Store)(nil)
	_ store.Writer        = (*Store)(nil)
	_ store.Organizations = (*Store)(nil)
	_ store.Deleter       = (*Store)(nil)
)

// Option configures New. Options follow the module's one
// policy (see package [github.com/clientstatus/clientstatus/option]):
// each sets a field of a configuration that starts from the defaults, and
// a nil option, or an option given nil, keeps the default.
type Option func(*memoryConfig)

type memoryConfig struct {
	now func() time.Time
}

// WithClock sets the clock from which a Store dates its writes (UpdatedAt,
// DeletedAt) and measures how long it keeps deletion records; time.Now
// unless set, and nil keeps it. Golden tests use a fixed clock, so that
// UpdatedAt stays the same from one run to the next.
func WithClock(now func() time.Time) Option {
	return func(c *memoryConfig) {
		c.now = now
		if now == nil {
			c.now = time.Now
		}
	}
}

// New returns an empty Store. Its horizon for ListDeletions is the
// time it is created, on its clock.
func New(opts ...Option) *Store {
	c := memoryConfig{now: time.Now}
	option.Apply(&c, opts)
	created := kept(c.now())
	m := &Store{now: c.now, orgs: make(map[string]*tenant), floor: created}
	m.onDelete = append(m.onDelete, m.forgetRequests)
	return m
}

// tenant is one organization and everything it owns, each kind in list
// order, and its deletion records.
type tenant struct {
	org     store.Organization
	version int64 // moved by every write (stamp)
	// items holds the *sorted[T] of each kind of memoryKinds (see
	// itemDesc.of), and rows their kindTables, in the same order.
	items   map[store.Kind]any
	rows    []kindTable
	threads threadStore // and their messages (threads.go)

	deletions []*store.Deletion         // in feed order (deletionOrder)
	deleted   map[deletionKey]time.Time // DeletedAt of each record, to find it

	events   eventLog // oldest first, indexed (events.go)
	eventSeq *int64   // the Store's count of events, which ids follow

	departures []*departure                          // in feed order, then project (departures.go)
	departed   map[deletionKey]map[string]*departure // by item, then the project it left
}

// kindTable is a tenant's items of one kind, as the code that handles
// every kind alike sees them: a deleted project's cascade
// (DeleteProject), the item a thread is about (hasItem).
type kindTable struct {
	kind store.Kind
	has  func(id string) bool
	// cascade removes the items of a deleted project and returns their
	// ids, in list order; nil for a kind whose items stay (detach) or
	// that is the project.
	cascade func(projectID string) []string
	// detach, for a kind whose items stay when their project is deleted
	// (invoices), takes them out of it (itemDesc.detachAll); nil for the
	// others.
	detach func(projectID string, at time.Time)
}

// deletionKey names the item of a deletion record: one per kind and id.
type deletionKey struct {
	kind store.Kind
	id   string
}

func newTenant(o store.Organization) *tenant {
	t := &tenant{
		org:     o,
		items:   make(map[store.Kind]any, len(memoryKinds)),
		threads: newThreadStore(),
		deleted: make(map[deletionKey]time.Time),
	}
	for _, d := range memoryKinds {
		d.add(t)
	}
	return t
}

// stamp returns the time to date a write to t with: the clock's, in UTC
// truncated to the second, but never before the time of an earlier write
// nor a SyncedThrough already answered, so that UpdatedAt and DeletedAt
// never go back when the clock does. It moves t's data version. Every
// write calls it; the caller holds mu for writing.
func (m *Store) stamp(t *tenant) time.Time {
	m.bump(t)
	at := later(m.current(), m.last)
	m.last = at
	return at
}

// current is the clock's second, never before a SyncedThrough already
// answered.
func (m *Store) current() time.Time {
	return later(kept(m.now()), time.Unix(m.synced.Load(), 0).UTC())
}

// syncedThrough is Page.SyncedThrough of a list asked with since (zero
// for none, which has none): the store's current stamp second. The Store
// writes are atomic under mu, which the caller holds (for reading at
// least), so no write is in flight: every later write is dated at or
// after it, since stamp never goes before it.
func (m *Store) syncedThrough(since time.Time) time.Time {
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

// dataVersion is t's data version, or 0 for no tenant (an organization
// that has no data yet: nothing to keep a page at). The caller holds m.mu.
func (t *tenant) dataVersion() int64 {
	if t == nil {
		return 0
	}
	return t.version
}

// bump moves t's data version to a value no tenant had. The caller holds
// mu for writing.
func (m *Store) bump(t *tenant) {
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

// kept is t as the Store keeps it: in UTC, truncated to the second, as the
// wire shows it, so that the tie-breaks apply to times a client sees equal.
func kept(t time.Time) time.Time { return t.UTC().Truncate(time.Second) }

// PutOrganization inserts or replaces an organization; replacing keeps the
// items it owns. Replacing it with one that differs then calls the
// functions registered with OnOrganizationChange.
func (m *Store) PutOrganization(ctx context.Context, o store.Organization) error {
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

// OnOrganizationChange registers fn, called on the putting goroutine with
// the id of every organization PutOrganization replaces with one that
// differs, once stored (auth.NewMemoryKeyStore's cache forgets it). fn may
// read the Store but not put or delete an organization. fn must not be nil.
func (m *Store) OnOrganizationChange(fn func(orgID string)) {
	if fn == nil {
		panic("store: OnOrganizationChange needs a function")
	}
	m.orgMu.Lock()
	defer m.orgMu.Unlock()
	m.onChange = append(m.onChange, fn)
}

// Organization returns the organization with that id, or ErrNotFound.
func (m *Store) Organization(ctx context.Context, id string) (store.Organization, error) {
	return reading(ctx, m, func() (store.Organization, error) {
		t, ok := m.orgs[id]
		if !ok {
			return store.Organization{}, fmt.Errorf("store: organization %q: %w", id, store.ErrNotFound)
		}
		return t.org, nil
	})
}

// PutProject inserts or replaces a project of an existing organization.
func (m *Store) PutProject(ctx context.Context, p store.Project) error {
	return projectItems.put(ctx, m, p)
}

// PutMilestone inserts or replaces a milestone of an existing project.
func (m *Store) PutMilestone(ctx context.Context, ms store.Milestone) error {
	return milestoneItems.put(ctx, m, ms)
}

// PutDeliverable inserts or replaces a deliverable of an existing project.
func (m *Store) PutDeliverable(ctx context.Context, d store.Deliverable) error {
	return deliverableItems.put(ctx, m, d)
}

// PutInvoice inserts or replaces an invoice of an existing organization and,
// unless it is a retainer invoice (nil ProjectID), of an existing project.
func (m *Store) PutInvoice(ctx context.Context, i store.Invoice) error {
	return invoiceItems.put(ctx, m, i)
}

// owner returns the organization an item is put into. The caller holds mu.
func (m *Store) owner(kind, id, orgID string) (*tenant, error) {
	t, ok := m.orgs[orgID]
	if !ok {
		return nil, fmt.Errorf("store: %s %q: organization %q (put it first): %w", kind, id, orgID, store.ErrNotFound)
	}
	return t, nil
}

func (t *tenant) hasProject(kind, id, projectID string) error {
	if !projectItems.of(t).has(projectID) {
		return fmt.Errorf("store: %s %q: project %q of organization %q (put it first): %w", kind, id, projectID, t.org.ID, store.ErrNotFound)
	}
	return nil
}

// ListProjects returns a page of the organization's projects; an unknown
// organization has none.
func (m *Store) ListProjects(ctx context.Context, orgID string, q store.ProjectQuery) (store.Page[store.Project], error) {
	return projectItems.list(ctx, m, orgID, q.PageRequest, string(q.Status), q.ListFilter, false)
}

// GetProject returns one of the organization's projects, or ErrNotFound.
func (m *Store) GetProject(ctx context.Context, orgID, id string) (store.Project, error) {
	return projectItems.get(ctx, m, orgID, id)
}

// ListMilestones returns a page of one project's milestones, or ErrNotFound
// when the organization has no such project.
func (m *Store) ListMilestones(ctx context.Context, orgID, projectID string, q store.MilestoneQuery) (store.Page[store.Milestone], error) {
	q.ProjectID = projectID
	return milestoneItems.list(ctx, m, orgID, q.PageRequest, string(q.Status), q.ListFilter, true)
}

// ListAllMilestones returns a page of the organization's milestones of
// every project; an unknown organization has none.
func (m *Store) ListAllMilestones(ctx context.Context, orgID string, q store.AllMilestoneQuery) (store.Page[store.Milestone], error) {
	return milestoneItems.list(ctx, m, orgID, q.PageRequest, string(q.Status), q.ListFilter, false)
}

// ListDeliverables returns a page of the organization's deliverables.
func (m *Store) ListDeliverables(ctx context.Context, orgID string, q store.DeliverableQuery) (store.Page[store.Deliverable], error) {
	return deliverableItems.list(ctx, m, orgID, q.PageRequest, string(q.Status), q.ListFilter, false)
}

// GetDeliverable returns one of the organization's deliverables, or
// ErrNotFound.
func (m *Store) GetDeliverable(ctx context.Context, orgID, id string) (store.Deliverable, error) {
	return deliverableItems.get(ctx, m, orgID, id)
}

// ListInvoices returns a page of the organization's invoices.
func (m *Store) ListInvoices(ctx context.Context, orgID string, q store.InvoiceQuery) (store.Page[store.Invoice], error) {
	return invoiceItems.list(ctx, m, orgID, q.PageRequest, string(q.Status), q.ListFilter, false)
}

// DataVersion returns the organization's data version (see
// store.Versions): a counter that every write moves, 0 for an
// organization that does not exist.
func (m *Store) DataVersion(ctx context.Context, orgID string) (int64, error) {
	return reading(ctx, m, func() (int64, error) { return m.orgs[orgID].dataVersion(), nil })
}

// alive returns an error wrapping ctx.Err() once ctx is done.
func alive(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

// writing runs fn, a write to the organization, under mu held for
// writing, or returns alive's error once ctx is done: the frame of every
// write. It wakes the organization's watchers once mu is unlocked.
func (m *Store) writing(ctx context.Context, orgID string, fn func() error) error {
	if err := alive(ctx); err != nil {
		return err
	}
	defer m.wake(orgID)
	m.mu.Lock()
	defer m.mu.Unlock()
	return fn()
}

// reading returns fn's answer, read under mu for reading, or alive's
// error once ctx is done: the frame of every read.
func reading[T any](ctx context.Context, m *Store, fn func() (T, error)) (T, error) {
	if err := alive(ctx); err != nil {
		var zero T
		return zero, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	return fn()
}

// The copy functions return an item that shares no pointer with their
// argument, with every time in UTC truncated to the second (kept). The Store
// copies on the way in and out.

// Ping reports whether the store can serve, for a readiness check (see
// statusapi.Ready): memory always can, so it returns nil.
func (m *Store) Ping(ctx context.Context) error { return nil }
