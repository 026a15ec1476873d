package bunstore_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/store"
)

// eventBenchStore returns a store on a schema of its own whose
// organization org_a has made about n events: 1,000 invoices (n/10 when
// fewer), then plain
// SQL updates of all of them until the store holds n events, each an
// invoice.updated and, every other round, a change of status (an
// invoice.{status} too: invoice.paid is one event in eight). It returns
// the ids of the events, oldest first.
func eventBenchStore(b *testing.B, n int) (*bunstore.Store, *bun.DB, []string) {
	st, db := eventBenchSeed(b, n)
	return st, db, eventIDs(b, st, db)
}

// eventBenchSeed is eventBenchStore without the ids.
func eventBenchSeed(b *testing.B, n int) (*bunstore.Store, *bun.DB) {
	b.Helper()
	db := migrated(b)
	st := bunstore.New(db)
	if err := st.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "A", Plan: store.PlanEnterprise, RetainerActive: true, APIEnabled: true}); err != nil {
		b.Fatal(err)
	}
	issued := time.Now().UTC().Truncate(time.Second)
	invoices := min(1000, n/10) // so that 1,000 events hold changes of status too
	for i := range invoices {
		inv := store.Invoice{ID: fmt.Sprintf("inv_%04d", i), OrgID: "org_a", Number: fmt.Sprint(i), Status: store.InvoiceDraft,
			Currency: "EUR", Total: 1000, IssuedAt: issued, DueAt: issued.AddDate(0, 1, 0)}
		if err := st.PutInvoice(ctx, inv); err != nil {
			b.Fatal(err)
		}
	}
	events, was := invoices, store.InvoiceDraft
	for round := 1; events < n; round++ {
		status := store.InvoiceStatuses[(round/2)%len(store.InvoiceStatuses)]
		if _, err := db.ExecContext(ctx, "UPDATE invoices SET total = total + 1, status = ? WHERE org_id = 'org_a'", status); err != nil {
			b.Fatal(err)
		}
		events += invoices
		if status != was {
			events += invoices
		}
		was = status
	}
	return st, db
}

// eventIDs returns org_a's event ids, oldest first.
func eventIDs(b *testing.B, st *bunstore.Store, db *bun.DB) []string {
	// Numbered at once, as a reader after each write would have, a batch
	// at a time.
	for {
		var left bool
		if err := db.NewRaw("SELECT clientstatus_number_events('org_a', 5000) IS NOT NULL AND EXISTS (SELECT FROM changes WHERE ord IS NULL)").Scan(ctx, &left); err != nil {
			b.Fatal(err)
		}
		if !left {
			break
		}
	}
	var ids []string
	for after := ""; ; {
		p, err := st.ListEvents(ctx, "org_a", store.EventQuery{After: after, Limit: 100})
		if err != nil {
			b.Fatal(err)
		}
		if len(p.Events) == 0 {
			break
		}
		for _, e := range p.Events {
			ids = append(ids, e.ID)
		}
		after = p.Last
	}
	if _, err := db.ExecContext(ctx, "VACUUM ANALYZE changes"); err != nil {
		b.Fatal(err)
	}
	return ids
}

// BenchmarkEventFeedPostgres is a page of 20 events of an organization
// with about 1,000 and 100,000 events on PostgreSQL, of all types and of
// one (invoice.paid), from no after (counting all the events in its
// total), after the oldest, after the middle one and near the newest (a
// poll); plain_list is a page of 20 of the same organization's invoices.
// The feed should cost about the same, whatever the number of events.
func BenchmarkEventFeedPostgres(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		st, _, ids := eventBenchStore(b, n)
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			for _, types := range [][]string{nil, {"invoice.paid"}} {
				name := "all"
				if types != nil {
					name = "typed"
				}
				b.Run(name, func(b *testing.B) {
					for _, at := range []struct{ name, after string }{
						{"absent", ""}, {"oldest", ids[0]}, {"middle", ids[len(ids)/2]}, {"newest", ids[len(ids)-2]},
					} {
						b.Run(at.name, func(b *testing.B) {
							q := store.EventQuery{After: at.after, Types: types, Limit: 20}
							b.ReportAllocs()
							for b.Loop() {
								if _, err := st.ListEvents(ctx, "org_a", q); err != nil {
									b.Fatal(err)
								}
							}
						})
					}
				})
			}
			b.Run("plain list", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := st.ListInvoices(ctx, "org_a", store.InvoiceQuery{PageRequest: store.PageRequest{Page: 1, Limit: 20}}); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}
