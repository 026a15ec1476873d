package bunstore_test

import (
	"errors"
	"testing"
	"time"

	"github.com/matryer/is"
	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/store"
)

// TestWritersDoNotWait runs writers transactions of one organization at
// once, each writing an invoice of its own and holding its transaction a
// second, as a portal's transactions busy with other work do: none waits
// for another (migration 20261001000003_lockfree), so together they take
// about a second, not one each (the bound leaves room for a loaded
// machine). The version and the totals come out right.
func TestWritersDoNotWait(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db, st := withWriters(t)
	before, err := st.DataVersion(ctx, "org_a")
	is.NoErr(err)
	took, err := together(db, st, 0, holdFor(time.Second))
	is.NoErr(err)
	t.Logf("%d transactions holding 1s each took %v together", writers, took)
	if took >= 4*time.Second {
		t.Fatalf("%d transactions holding 1s each took %v together: writers of one organization wait for each other", writers, took)
	}
	after, err := st.DataVersion(ctx, "org_a")
	is.NoErr(err)
	is.True(after >= before+writers) // every commit moved the version
	page, err := st.ListInvoices(ctx, "org_a", store.InvoiceQuery{PageRequest: store.PageRequest{Page: 1, Limit: 1}})
	is.NoErr(err)
	is.Equal(page.Total, writers) // and the total counts every invoice
}

// TestLongTransactionDelaysNoWriter holds a transaction that wrote to an
// organization open while others write to it, in the library and in plain
// SQL, each under a lock_timeout and statement_timeout of a second (so
// that a wait fails the test instead of hanging it): they commit, and
// every reader sees their writes and a new version at once. When the long
// one commits, its write and another version show too, and the next
// write folds the log and the deltas to a few rows.
func TestLongTransactionDelaysNoWriter(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db, st := withWriters(t)
	version := func() int64 {
		t.Helper()
		v, err := st.DataVersion(ctx, "org_a")
		is.NoErr(err)
		return v
	}
	total := func() int {
		t.Helper()
		page, err := st.ListInvoices(ctx, "org_a", store.InvoiceQuery{PageRequest: store.PageRequest{Page: 1, Limit: 1}})
		is.NoErr(err)
		return page.Total
	}
	is.NoErr(writeIn(db, st, "old", 0, nil))

	long, err := db.BeginTx(ctx, nil)
	is.NoErr(err)
	defer long.Rollback()
	p1 := "p1"
	day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	is.NoErr(st.WithTx(long).PutInvoice(ctx, store.Invoice{ID: "long", OrgID: "org_a", ProjectID: &p1, Status: store.InvoiceOpen, Currency: "EUR", IssuedAt: day, DueAt: day}))
	is.NoErr(st.WithTx(long).PutProject(ctx, store.Project{ID: "p1", OrgID: "org_a", Name: "Site, renamed", Status: store.ProjectInProgress}))

	impatient := func(tx bun.Tx) error {
		_, err := tx.ExecContext(ctx, "SET LOCAL lock_timeout = '1s'; SET LOCAL statement_timeout = '1s'")
		return err
	}
	v := version()
	for n, write := range []func(bun.Tx) error{
		func(tx bun.Tx) error {
			return st.WithTx(tx).PutInvoice(ctx, store.Invoice{ID: "quick", OrgID: "org_a", ProjectID: &p1, Status: store.InvoiceOpen, Currency: "EUR", IssuedAt: day, DueAt: day})
		},
		func(tx bun.Tx) error {
			_, err := tx.ExecContext(ctx, `INSERT INTO invoices (org_id, id, project_id, status, currency, total, amount_due, issued_at, due_at)
				VALUES ('org_a', 'sql', 'p1', 'open', 'EUR', 1, 1, now(), now())`)
			return err
		},
		func(tx bun.Tx) error { return st.WithTx(tx).DeleteInvoice(ctx, "org_a", "old") },
		func(tx bun.Tx) error {
			return st.WithTx(tx).PutMilestone(ctx, store.Milestone{ID: "m1", OrgID: "org_a", ProjectID: "p1", Status: store.MilestonePending, DueAt: day})
		},
	} {
		tx, err := db.BeginTx(ctx, nil)
		is.NoErr(err)
		is.NoErr(impatient(tx))
		start := time.Now()
		if err := write(tx); err != nil {
			_ = tx.Rollback()
			t.Fatalf("write %d beside an open transaction of the organization: %v", n, err)
		}
		is.NoErr(tx.Commit())
		t.Logf("write %d took %v", n, time.Since(start))
		now := version()
		is.True(now > v) // seen at once, with a new version
		v = now
	}
	is.Equal(total(), 2) // quick and sql; old gone; long not yet

	is.NoErr(long.Commit())
	is.True(version() > v) // the long one's commit moves it too
	is.Equal(total(), 3)

	// The next write folds what the long transaction held back.
	is.NoErr(writeIn(db, st, "after", 1, nil))
	var logged, deltas int
	is.NoErr(db.NewRaw("SELECT (SELECT count(*) FROM data_version_log), (SELECT count(*) FROM item_counts)").Scan(ctx, &logged, &deltas))
	t.Logf("left to fold: %d log rows, %d counts", logged, deltas)
	is.True(logged <= 2) // the fold's sum and the last write's own
	is.True(deltas <= 6) // a row per count (5 of them) and the last write's own
	is.Equal(total(), 4)
}

// TestLockTimeout has two transactions write the same invoice: the second
// waits for the first, which holds the row, and after its lock_timeout
// fails with store.ErrLockTimeout, not store.ErrUnavailable: contention,
// not an outage.
func TestLockTimeout(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db, st := withWriters(t)
	first, err := db.BeginTx(ctx, nil)
	is.NoErr(err)
	defer first.Rollback()
	day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	inv := store.Invoice{ID: "same", OrgID: "org_a", Status: store.InvoiceOpen, Currency: "EUR", IssuedAt: day, DueAt: day}
	is.NoErr(st.WithTx(first).PutInvoice(ctx, inv))

	second, err := db.BeginTx(ctx, nil)
	is.NoErr(err)
	defer second.Rollback()
	_, err = second.ExecContext(ctx, "SET LOCAL lock_timeout = '100ms'")
	is.NoErr(err)
	inv.AmountDue = 1
	err = st.WithTx(second).PutInvoice(ctx, inv)
	is.True(errors.Is(err, store.ErrLockTimeout))  // its own error
	is.True(!errors.Is(err, store.ErrUnavailable)) // not an outage
}
