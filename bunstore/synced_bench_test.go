package bunstore_test

import (
	"testing"
	"time"

	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/store"
)

// BenchmarkSyncedThrough measures what Page.SyncedThrough costs a request:
// the calling organization's first page of invoices without UpdatedSince,
// with it (the same page in the changes' order, its total counted, and
// SyncedThrough read first, in a round trip of its own), and
// clientstatus_synced_through alone, the horizon's statement.
func BenchmarkSyncedThrough(b *testing.B) {
	st := benchStore(b, 0)
	db := bench.dbs[0]
	long := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, bm := range []struct {
		name string
		run  func(*bunstore.Store) error
	}{
		{"list", func(st *bunstore.Store) error {
			_, err := st.ListInvoices(ctx, benchCaller, store.InvoiceQuery{PageRequest: benchPage})
			return err
		}},
		{"list updatedSince", func(st *bunstore.Store) error {
			p, err := st.ListInvoices(ctx, benchCaller, store.InvoiceQuery{PageRequest: benchPage, ListFilter: store.ListFilter{UpdatedSince: long}})
			if err == nil && p.SyncedThrough.IsZero() {
				b.Fatal("no SyncedThrough")
			}
			return err
		}},
		{"horizon alone", func(*bunstore.Store) error {
			var at time.Time
			return db.NewRaw("SELECT clientstatus_synced_through()").Scan(ctx, &at)
		}},
	} {
		b.Run(bm.name, func(b *testing.B) {
			for range b.N {
				if err := bm.run(st); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
