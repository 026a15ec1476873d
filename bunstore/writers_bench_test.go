package bunstore_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/store"
)

// writers is how many transactions of one organization the writer
// benchmarks and tests run at once.
const writers = 8

// withWriters returns a store of one organization, org_a with a project p1,
// on a pool wide enough for writers transactions and a reader.
func withWriters(tb testing.TB) (*bun.DB, *bunstore.Store) {
	tb.Helper()
	db := migrated(tb)
	db.SetMaxOpenConns(2*writers + 2)
	st := bunstore.New(db)
	if err := st.PutOrganization(ctx, store.Organization{ID: "org_a", Plan: store.PlanGrowth}); err != nil {
		tb.Fatal(err)
	}
	if err := st.PutProject(ctx, store.Project{ID: "p1", OrgID: "org_a", Name: "Site", Status: store.ProjectInProgress}); err != nil {
		tb.Fatal(err)
	}
	return db, st
}

// writeIn puts invoice id of org_a (amount n, so that every put changes
// it) in a transaction of its own, runs hold in it, then commits.
func writeIn(db *bun.DB, st *bunstore.Store, id string, n int, hold func(bun.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	p1 := "p1"
	day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	if err := st.WithTx(tx).PutInvoice(ctx, store.Invoice{ID: id, OrgID: "org_a", ProjectID: &p1, Number: id,
		Status: store.InvoiceStatuses[n%len(store.InvoiceStatuses)], Currency: "EUR", Total: int64(n), AmountDue: int64(n), IssuedAt: day, DueAt: day}); err != nil {
		return err
	}
	if hold != nil {
		if err := hold(tx); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// holdFor is a hold of writeIn: the transaction stays open d, as a
// portal's transaction busy with other work does.
func holdFor(d time.Duration) func(bun.Tx) error {
	return func(tx bun.Tx) error {
		_, err := tx.ExecContext(ctx, "SELECT pg_sleep(?)", d.Seconds())
		return err
	}
}

// together runs writers transactions of org_a at once, each writing an
// invoice of its own (round r's) and holding hold, and returns how long
// they took together.
func together(db *bun.DB, st *bunstore.Store, r int, hold func(bun.Tx) error) (time.Duration, error) {
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	start := time.Now()
	for w := range writers {
		wg.Go(func() { errs <- writeIn(db, st, fmt.Sprintf("w%d", w), r, hold) })
	}
	wg.Wait()
	took := time.Since(start)
	close(errs)
	for err := range errs {
		if err != nil {
			return took, err
		}
	}
	return took, nil
}

// BenchmarkConcurrentWriters measures one organization's writes with
// writers concurrent transactions, each on an invoice of its own:
// "throughput" commits transactions of one put as fast as they go
// (writes/s), "hold1s" has each hold its transaction open a second
// (s/round: 1 when no writer waits for another, 8 when they take turns).
func BenchmarkConcurrentWriters(b *testing.B) {
	b.Run("throughput", func(b *testing.B) {
		db, st := withWriters(b)
		var wg sync.WaitGroup
		errs := make(chan error, writers)
		b.ResetTimer()
		start := time.Now()
		for w := range writers {
			wg.Go(func() {
				for n := w; n < b.N; n += writers {
					if err := writeIn(db, st, fmt.Sprintf("w%d", w), n, nil); err != nil {
						errs <- err
						return
					}
				}
			})
		}
		wg.Wait()
		b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "writes/s")
		close(errs)
		for err := range errs {
			b.Fatal(err)
		}
	})
	b.Run("hold1s", func(b *testing.B) {
		db, st := withWriters(b)
		var total time.Duration
		for r := range b.N {
			took, err := together(db, st, r, holdFor(time.Second))
			if err != nil {
				b.Fatal(err)
			}
			total += took
		}
		b.ReportMetric(total.Seconds()/float64(b.N), "s/round")
	})
}
