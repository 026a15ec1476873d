package bunstore_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"
	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/store"
)

// versions returns the transaction id that wrote each row of the store's
// tables (xmin): it changes whenever a row is rewritten.
func versions(t *testing.T, db *bun.DB) []string {
	t.Helper()
	var out []string
	for _, table := range []string{"organizations", "projects", "milestones", "deliverables", "invoices"} {
		var xmins []string
		err := db.NewSelect().TableExpr("?", bun.Ident(table)).
			ColumnExpr("? || ':' || id || ':' || xmin::text", table).
			OrderExpr("id").
			Scan(ctx, &xmins)
		if err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		out = append(out, xmins...)
	}
	return out
}

// TestPutSameTwice checks that writing the same items again, as loading a
// data file twice does, leaves every row as it was: not even rewritten.
func TestPutSameTwice(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db := migrated(t)
	st := bunstore.New(db)
	day := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	size := int64(3)
	name, ctype := "a.pdf", "application/pdf"
	put := func() {
		is.NoErr(st.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "Acme", Plan: "growth", RetainerActive: true, APIEnabled: true}))
		is.NoErr(st.PutProject(ctx, store.Project{ID: "p1", OrgID: "org_a", Name: "Site", Status: store.ProjectInProgress, StartedAt: &day, UpdatedAt: day}))
		is.NoErr(st.PutMilestone(ctx, store.Milestone{ID: "m1", OrgID: "org_a", ProjectID: "p1", Name: "Design", Status: store.MilestoneCompleted, DueAt: day, CompletedAt: &day}))
		is.NoErr(st.PutDeliverable(ctx, store.Deliverable{ID: "d1", OrgID: "org_a", ProjectID: "p1", Name: "Mockups", Status: store.DeliverableApproved,
			FileName: &name, ContentType: &ctype, SizeBytes: &size, FileKey: "d1", CreatedAt: day, UpdatedAt: day}))
		is.NoErr(st.PutInvoice(ctx, store.Invoice{ID: "i1", OrgID: "org_a", Number: "INV-1", Status: store.InvoicePaid, Currency: "EUR",
			Total: 100, AmountDue: 0, IssuedAt: day, DueAt: day, PaidAt: &day}))
	}
	put()
	before := versions(t, db)
	is.Equal(len(before), 5) // one row of each kind
	put()
	is.Equal(versions(t, db), before) // the same data again rewrites nothing

	is.NoErr(st.PutProject(ctx, store.Project{ID: "p1", OrgID: "org_a", Name: "New site", Status: store.ProjectInProgress, StartedAt: &day, UpdatedAt: day}))
	p, err := st.GetProject(ctx, "org_a", "p1")
	is.NoErr(err)
	is.Equal(p.Name, "New site") // while a change is written
}

// TestRefusedInput checks that what bunstore refuses for what it holds, an
// invalid item or an impossible page, wraps store.ErrInvalid, and that no
// refusal is taken for an outage.
func TestRefusedInput(t *testing.T) {
	t.Parallel()
	st := bunstore.New(migrated(t))
	is.New(t).NoErr(st.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "Acme", Plan: "growth"}))
	zero := store.PageRequest{Page: 0, Limit: 20}
	tests := []struct {
		name string
		call func() error
	}{
		{"organization with unknown plan", func() error {
			return st.PutOrganization(ctx, store.Organization{ID: "org_b", Plan: "gold"})
		}},
		{"project with unknown status", func() error {
			return st.PutProject(ctx, store.Project{ID: "p1", OrgID: "org_a", Status: "done"})
		}},
		{"projects page 0", func() error {
			_, err := st.ListProjects(ctx, "org_a", store.ProjectQuery{PageRequest: zero})
			return err
		}},
		{"invoices limit 0", func() error {
			_, err := st.ListInvoices(ctx, "org_a", store.InvoiceQuery{PageRequest: store.PageRequest{Page: 1}})
			return err
		}},
		{"key record without hash", func() error {
			return st.CreateKey(ctx, auth.Key{ID: "key_1", OrgID: "org_a"})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			err := tt.call()
			is.True(errors.Is(err, store.ErrInvalid))      // refused for what it holds
			is.True(errors.Is(err, auth.ErrInvalidInput))  // which auth calls by its own name
			is.True(!errors.Is(err, store.ErrUnavailable)) // never an outage
		})
	}
}

// invoicesOf returns n valid invoices of org_a, ids prefix0, prefix1...,
// the first of project p1, the others retainer invoices.
func invoicesOf(prefix string, n int) []store.Invoice {
	day := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	p1 := "p1"
	out := make([]store.Invoice, n)
	for i := range out {
		out[i] = store.Invoice{ID: fmt.Sprintf("%s%d", prefix, i), OrgID: "org_a", Number: fmt.Sprintf("INV-%d", i),
			Status: store.InvoiceOpen, Currency: "EUR", Total: int64(i), AmountDue: int64(i), IssuedAt: day, DueAt: day}
	}
	if n > 0 {
		out[0].ProjectID = &p1
	}
	return out
}

// invoiceCount is how many invoices org_a has.
func invoiceCount(t *testing.T, st *bunstore.Store) int {
	t.Helper()
	page, err := st.ListInvoices(ctx, "org_a", store.InvoiceQuery{PageRequest: store.PageRequest{Page: 1, Limit: 1}})
	if err != nil {
		t.Fatal(err)
	}
	return page.Total
}

// TestPutBatch checks the batch writes: every item written, in statements
// of at most a thousand, with the change detection of one by one.
func TestPutBatch(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db, _ := withOrgAndProject(t)
	rec := &recorder{}
	db = db.WithQueryHook(rec)
	st := bunstore.New(db)

	batch := invoicesOf("i", 2500)
	is.NoErr(st.PutInvoices(ctx, batch))
	inserts := 0
	for _, q := range rec.take() {
		if strings.HasPrefix(q, "INSERT") {
			inserts++
		}
	}
	is.Equal(inserts, 3)                      // 2,500 invoices in three statements
	is.Equal(invoiceCount(t, st), len(batch)) // every one written
	before := versions(t, db)

	batch[7].Number = "INV-7 (changed)"
	is.NoErr(st.PutInvoices(ctx, batch))
	after := versions(t, db)
	changed := 0
	for i := range before {
		if before[i] != after[i] {
			changed++
		}
	}
	is.Equal(changed, 1) // the same batch again rewrites only the changed row

	is.NoErr(st.PutInvoices(ctx, nil)) // an empty batch is nothing to do
	is.NoErr(st.PutProjects(ctx, []store.Project{
		{ID: "p2", OrgID: "org_a", Name: "First", Status: store.ProjectPlanned},
		{ID: "p2", OrgID: "org_a", Name: "Second", Status: store.ProjectPlanned},
	}))
	p2, err := st.GetProject(ctx, "org_a", "p2")
	is.NoErr(err)
	is.Equal(p2.Name, "Second") // of two with the same id, the later wins
}

// TestPutBatchAllOrNothing checks that a batch with an invalid item, or
// one naming a project that does not exist, writes nothing, however many
// statements it takes; and that in a caller's transaction the failed
// batch leaves the transaction usable when it took a savepoint.
func TestPutBatchAllOrNothing(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db, st := withOrgAndProject(t)

	batch := invoicesOf("i", 1500)
	batch[1200].Currency = "euro"
	err := st.PutInvoices(ctx, batch)
	is.True(err != nil && strings.Contains(err.Error(), `"i1200"`)) // the invalid item is named
	is.Equal(invoiceCount(t, st), 0)                                // and nothing written

	batch = invoicesOf("i", 1500)
	nope := "nope"
	batch[1400].ProjectID = &nope
	err = st.PutInvoices(ctx, batch)
	is.True(errors.Is(err, store.ErrNotFound))                               // a missing project
	is.True(strings.Contains(err.Error(), "nope"))                           // is named
	is.Equal(invoiceCount(t, st), 0)                                         // and the first thousand are rolled back
	is.True(errors.Is(st.PutInvoices(ctx, batch[1300:]), store.ErrNotFound)) // so in one statement
	is.Equal(invoiceCount(t, st), 0)

	tx, err := db.BeginTx(ctx, nil)
	is.NoErr(err)
	defer tx.Rollback()
	in := st.WithTx(tx)
	is.NoErr(in.PutProject(ctx, store.Project{ID: "p2", OrgID: "org_a", Status: store.ProjectPlanned}))
	is.True(errors.Is(in.PutInvoices(ctx, batch), store.ErrNotFound)) // rolled back to its savepoint
	is.NoErr(in.PutInvoices(ctx, batch[:10]))                         // the transaction goes on
	is.NoErr(tx.Commit())
	_, err = st.GetProject(ctx, "org_a", "p2")
	is.NoErr(err)                     // what came before the failed batch is committed
	is.Equal(invoiceCount(t, st), 10) // and what came after
}

// TestPutBatchesConcurrently checks that batches over the same rows, given
// in different orders, wait for each other rather than deadlock.
func TestPutBatchesConcurrently(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	// Each batch waits for the others' row locks, several in a row on a
	// loaded machine: a lock_timeout of a minute, so that only a deadlock
	// (which PostgreSQL breaks after deadlock_timeout, 1 s, with an error)
	// fails the test, not a slow turn (Open's 2 s failed it once under CI).
	schema, dsn := newSchema(t)
	db, err := bunstore.Open(ctx, withParams(dsn, map[string]string{"search_path": schema, "lock_timeout": "60000"}))
	is.NoErr(err)
	t.Cleanup(func() { db.Close() })
	is.NoErr(bunstore.Migrate(ctx, db))
	st := bunstore.New(db)
	is.NoErr(st.PutOrganization(ctx, store.Organization{ID: "org_a", Plan: store.PlanGrowth}))
	is.NoErr(st.PutProject(ctx, store.Project{ID: "p1", OrgID: "org_a", Name: "Site", Status: store.ProjectInProgress}))
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for w := range errs {
		wg.Go(func() {
			for round := range 5 {
				batch := invoicesOf("i", 300)
				for k := range batch {
					batch[k].Number = fmt.Sprintf("w%d r%d", w, round) // every row changes
				}
				if w%2 == 1 {
					slices.Reverse(batch)
				}
				if err := st.PutInvoices(ctx, batch); err != nil {
					errs[w] = err
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		is.NoErr(err) // no deadlock, whatever the order given
	}
	is.Equal(invoiceCount(t, st), 300)
}

// BenchmarkPutInvoices writes 1,000 new invoices per iteration, one by one
// and as one batch.
func BenchmarkPutInvoices(b *testing.B) {
	for _, tt := range []struct {
		name string
		put  func(st *bunstore.Store, batch []store.Invoice) error
	}{
		{"one by one", func(st *bunstore.Store, batch []store.Invoice) error {
			for _, i := range batch {
				if err := st.PutInvoice(ctx, i); err != nil {
					return err
				}
			}
			return nil
		}},
		{"batch", func(st *bunstore.Store, batch []store.Invoice) error { return st.PutInvoices(ctx, batch) }},
	} {
		b.Run(tt.name, func(b *testing.B) {
			db := migrated(b)
			st := bunstore.New(db)
			if err := st.PutOrganization(ctx, store.Organization{ID: "org_a", Plan: store.PlanGrowth}); err != nil {
				b.Fatal(err)
			}
			if err := st.PutProject(ctx, store.Project{ID: "p1", OrgID: "org_a", Status: store.ProjectPlanned}); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				b.StopTimer()
				batch := invoicesOf(fmt.Sprintf("b%d-", n), 1000)
				n++
				b.StartTimer()
				if err := tt.put(st, batch); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestPutBatchInCallersTransaction checks that a batch of more than a
// thousand items written in the caller's transaction (WithTx, a savepoint)
// leaves that transaction usable and commits with it.
func TestPutBatchInCallersTransaction(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db, st := withOrgAndProject(t)
	tx, err := db.BeginTx(ctx, nil)
	is.NoErr(err)
	defer tx.Rollback()
	is.NoErr(st.WithTx(tx).PutInvoices(ctx, invoicesOf("tx", 1500))) // over a thousand: a savepoint
	_, err = tx.ExecContext(ctx, "SELECT 1")
	is.NoErr(err)         // the caller's transaction is still usable
	is.NoErr(tx.Commit()) // and commits
	is.Equal(invoiceCount(t, st), 1500)
}
