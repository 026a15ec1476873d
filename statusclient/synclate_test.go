package statusclient_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/internal/test/apitest"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/statusclient"
	"github.com/clientstatus/clientstatus/store"
)

// TestSyncLateCommit runs a late commit on the fake: a transaction
// stamps invoice C, then waits; a later one writes invoice B and commits;
// the client syncs (it sees B, not C); then C commits, stamped before B.
// Asking again from the smallest syncedThrough fetches C.
func TestSyncLateCommit(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	f := newChangeAPI(t0)
	c := syncServer(t, f)
	seed(f)
	var r statusclient.Replica
	_, err := c.Sync(ctx, &r)
	is.NoErr(err)

	f.tick(time.Minute)
	tx1 := f.begin() // stamps C now
	tx1.put(statusclient.Invoice{ID: "C", Number: "C", Status: statusclient.InvoiceOpen, Currency: "EUR", IssuedAt: t0, DueAt: t0})
	tx1.del(statusclient.DeletionMilestone, "m3") // a deletion inside the late transaction
	f.tick(2 * time.Second)
	f.put(statusclient.Invoice{ID: "B", Number: "B", Status: statusclient.InvoiceOpen, Currency: "EUR", IssuedAt: t0, DueAt: t0})
	_, err = c.Sync(ctx, &r)
	is.NoErr(err)
	_, ok := r.Invoices["B"]
	is.True(ok) // B committed: seen

	f.tick(time.Second)
	tx1.commit() // C and the deletion, stamped before B
	for range 2 {
		f.tick(time.Minute)
		_, err = c.Sync(ctx, &r)
		is.NoErr(err)
	}
	_, hasC := r.Invoices["C"]
	_, hasM3 := r.Milestones["m3"]
	is.True(hasC)   // fetched by the next Sync
	is.True(!hasM3) // and the deletion applied
	f.equal(t, &r)
}

// TestSyncLateCommitDuringALoad opens a transaction before the first Sync
// (a full load) and commits it after: its new project, its edit of an
// invoice and its deletion of a deliverable all reach the replica by the
// next Sync.
func TestSyncLateCommitDuringALoad(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	f := newChangeAPI(t0)
	c := syncServer(t, f)
	seed(f)
	f.tick(time.Minute)
	tx := f.begin()
	tx.put(statusclient.Project{ID: "p9", Name: "Late", Status: statusclient.ProjectPlanned})
	inv := f.invoices["i2"]
	inv.Status = statusclient.InvoiceOpen
	tx.put(inv)
	tx.del(statusclient.DeletionDeliverable, "d2")
	f.tick(5 * time.Second)
	f.put(statusclient.Project{ID: "p8", Name: "Early", Status: statusclient.ProjectPlanned})

	var r statusclient.Replica
	st, err := c.Sync(ctx, &r)
	is.NoErr(err)
	is.True(st.Full)
	tx.commit()
	f.tick(time.Minute)
	st, err = c.Sync(ctx, &r)
	is.NoErr(err)
	is.True(!st.Full)
	f.equal(t, &r)
}

// inProcess is a transport that serves every request with h, without a
// socket: the many requests of TestSyncLateCommitsRandom stay cheap.
type inProcess struct{ h http.Handler }

func (t inProcess) RoundTrip(req *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, req)
	return rec.Result(), nil
}

// TestSyncLateCommitsRandom interleaves several writers, each a
// transaction stamped when it begins and seen when it commits, with a
// syncing client, over many seeds: after the last commit and a last Sync,
// the replica equals the fake's data.
func TestSyncLateCommitsRandom(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(100) {
		rng := rand.New(rand.NewPCG(seed, 19))
		f := newChangeAPI(t0)
		c := statusclient.New("http://fake.invalid/v1", "k", statusclient.WithHTTPClient(&http.Client{Transport: inProcess{f}}))
		for i := range 5 {
			f.put(statusclient.Project{ID: fmt.Sprint("p", i), Status: statusclient.ProjectPlanned})
		}
		var r statusclient.Replica
		var open []*lateTx
		for range 60 {
			switch rng.IntN(5) {
			case 0: // a writer begins
				open = append(open, f.begin())
			case 1: // a writer writes in its transaction, or on its own
				inv := statusclient.Invoice{ID: fmt.Sprint("i", rng.IntN(20)), Number: fmt.Sprint(rng.IntN(1000)), Status: statusclient.InvoiceOpen, Currency: "EUR", IssuedAt: t0, DueAt: t0}
				ms := statusclient.Milestone{ID: fmt.Sprint("m", rng.IntN(20)), ProjectID: fmt.Sprint("p", rng.IntN(5)), Name: fmt.Sprint(rng.IntN(1000)), Status: statusclient.MilestonePending, DueAt: t0}
				if len(open) > 0 && rng.IntN(3) > 0 {
					open[rng.IntN(len(open))].put(inv, ms)
				} else {
					f.put(inv, ms)
				}
			case 2: // a writer deletes in its transaction (once committed, if the item is there)
				if len(open) > 0 {
					tx := open[rng.IntN(len(open))]
					id := fmt.Sprint("i", rng.IntN(20))
					tx.dels = append(tx.dels, deletionKey{statusclient.DeletionInvoice, id})
				}
			case 3: // a writer commits
				if len(open) > 0 {
					i := rng.IntN(len(open))
					open[i].commit()
					open = append(open[:i], open[i+1:]...)
				}
			case 4:
				_, err := c.Sync(ctx, &r)
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
			}
			f.tick(time.Duration(rng.IntN(3)) * time.Second)
		}
		for _, tx := range open {
			tx.commit()
		}
		f.tick(time.Second)
		if _, err := c.Sync(ctx, &r); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) { f.equal(t, &r) })
	}
}

// lateStore is the in-memory store behind the real handler, with
// invoices written by a transaction that has not committed yet: hidden
// from every list until commit, while their stamp, taken at the write,
// holds the store's SyncedThrough back, as a late-committing writer on
// PostgreSQL does. A commit moves the data version, as a real one.
type lateStore struct {
	*memstore.Store
	now func() time.Time

	mu      sync.Mutex
	hidden  map[string]time.Time // invoice id: its stamp
	commits int64
}

// write puts inv in a transaction still open: stamped now, hidden.
func (s *lateStore) write(ctx context.Context, inv store.Invoice) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hidden[inv.ID] = s.now()
	return s.Store.PutInvoice(ctx, inv)
}

// commit makes the open transaction's invoices seen.
func (s *lateStore) commit() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.hidden)
	s.commits++
}

func (s *lateStore) DataVersion(ctx context.Context, org string) (int64, error) {
	v, err := s.Store.DataVersion(ctx, org)
	s.mu.Lock()
	defer s.mu.Unlock()
	return v + s.commits, err
}

// through is the SyncedThrough of a page of changes: the store's, or the
// current second, or the stamp of a hidden write if older.
func (s *lateStore) through(t time.Time) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t.IsZero() {
		t = s.now()
	}
	for _, at := range s.hidden {
		if at.Before(t) {
			t = at
		}
	}
	return t.Truncate(time.Second)
}

func lateSynced[T any](s *lateStore, changes bool, p store.Page[T], err error) (store.Page[T], error) {
	if err == nil && changes {
		p.SyncedThrough = s.through(p.SyncedThrough)
	}
	return p, err
}

func (s *lateStore) ListInvoices(ctx context.Context, org string, q store.InvoiceQuery) (store.Page[store.Invoice], error) {
	p, err := s.Store.ListInvoices(ctx, org, q)
	s.mu.Lock()
	p.Items = slices.DeleteFunc(p.Items, func(i store.Invoice) bool {
		_, hidden := s.hidden[i.ID]
		if hidden {
			p.Total--
		}
		return hidden
	})
	s.mu.Unlock()
	return lateSynced(s, !q.UpdatedSince.IsZero(), p, err)
}

func (s *lateStore) ListProjects(ctx context.Context, org string, q store.ProjectQuery) (store.Page[store.Project], error) {
	p, err := s.Store.ListProjects(ctx, org, q)
	return lateSynced(s, !q.UpdatedSince.IsZero(), p, err)
}

func (s *lateStore) ListMilestones(ctx context.Context, org, project string, q store.MilestoneQuery) (store.Page[store.Milestone], error) {
	p, err := s.Store.ListMilestones(ctx, org, project, q)
	return lateSynced(s, !q.UpdatedSince.IsZero(), p, err)
}

func (s *lateStore) ListDeliverables(ctx context.Context, org string, q store.DeliverableQuery) (store.Page[store.Deliverable], error) {
	p, err := s.Store.ListDeliverables(ctx, org, q)
	return lateSynced(s, !q.UpdatedSince.IsZero(), p, err)
}

func (s *lateStore) ListThreads(ctx context.Context, org string, q store.ThreadQuery) (store.Page[store.Thread], error) {
	p, err := s.Store.ListThreads(ctx, org, q)
	return lateSynced(s, !q.UpdatedSince.IsZero(), p, err)
}

func (s *lateStore) ListMessages(ctx context.Context, org string, q store.MessageQuery) (store.Page[store.Message], error) {
	p, err := s.Store.ListMessages(ctx, org, q)
	return lateSynced(s, !q.UpdatedSince.IsZero(), p, err)
}

func (s *lateStore) ListDeletions(ctx context.Context, org string, q store.DeletionQuery) (store.Page[store.Deletion], error) {
	p, err := s.Store.ListDeletions(ctx, org, q)
	return lateSynced(s, true, p, err)
}

// TestSyncLateCommitThroughTheHandler runs the schedule through
// the real handler (its response cache included), on a store that
// reports an older syncedThrough while a transaction is open: invoice C
// is stamped, then B is written and committed, the client syncs and sees
// B only; C commits, stamped before B, and the next Sync fetches it.
func TestSyncLateCommitThroughTheHandler(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	var st *lateStore
	api := apitest.New(t, apitest.WithStoreWrapper(func(s store.Store) store.Store {
		if st == nil {
			st = &lateStore{Store: s.(*memstore.Store), hidden: map[string]time.Time{}}
		}
		return st
	}))
	st.now = api.Clock.Now
	srv := api.Server("", nil)
	api.Org("org_a", store.PlanEnterprise)
	c := statusclient.New(srv.URL+"/v1", api.Mint("a", "org_a"))
	day := api.Clock.Now()
	invoice := func(id string) store.Invoice {
		return store.Invoice{ID: id, OrgID: "org_a", Number: id, Status: store.InvoiceOpen, Currency: "EUR", IssuedAt: day, DueAt: day}
	}
	is.NoErr(st.PutInvoice(ctx, invoice("A")))
	var r statusclient.Replica
	_, err := c.Sync(ctx, &r)
	is.NoErr(err)

	api.Clock.Advance(time.Minute)
	is.NoErr(st.write(ctx, invoice("C"))) // stamped now, not committed
	api.Clock.Advance(2 * time.Second)
	is.NoErr(st.PutInvoice(ctx, invoice("B"))) // stamped later, committed first
	_, err = c.Sync(ctx, &r)
	is.NoErr(err)
	is.Equal(ids(r.Invoices), []string{"A", "B"})

	api.Clock.Advance(time.Second)
	st.commit()
	_, err = c.Sync(ctx, &r)
	is.NoErr(err)
	is.Equal(ids(r.Invoices), []string{"A", "B", "C"})                   // C fetched
	is.True(r.Invoices["C"].UpdatedAt.Before(r.Invoices["B"].UpdatedAt)) // though stamped before B
}
