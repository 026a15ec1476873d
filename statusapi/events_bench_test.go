package statusapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/internal/test/apitest"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/store"
)

// eventBench is a handler on a memstore.Store whose organization has made
// about n events: 1,000 invoices (n/10 when fewer), each written again
// until the store holds n events, each write an invoice.updated (and,
// every other write, a change of status: an invoice.{status} too), and
// the ids of the events, oldest first. It skips when memstore.Store keeps
// no events.
func eventBench(b *testing.B, n int) (http.Handler, string, []string) {
	ctx := context.Background()
	st := memstore.New()
	if _, ok := any(st).(store.Events); !ok {
		b.Skip("memstore.Store keeps no events (store.Events)")
	}
	org := store.Organization{ID: "org_a", Name: "A", Plan: store.PlanEnterprise, RetainerActive: true, APIEnabled: true}
	if err := st.PutOrganization(ctx, org); err != nil {
		b.Fatal(err)
	}
	keys := auth.NewKeys(auth.NewMemoryKeyStore(st))
	b.Cleanup(func() { _ = keys.Close() })
	key, _, err := keys.Mint(ctx, "org_a", "bench", nil)
	if err != nil {
		b.Fatal(err)
	}
	events := any(st).(store.Events)
	issued := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	invoices := min(1000, n/10) // so that 1,000 events hold changes of status too
	for round := 0; ; round++ {
		for i := range invoices {
			inv := store.Invoice{ID: fmt.Sprintf("inv_%04d", i), OrgID: "org_a", Number: fmt.Sprint(i),
				Status: store.InvoiceStatuses[(round/2)%len(store.InvoiceStatuses)], Currency: "EUR",
				Total: int64(1000 + round), IssuedAt: issued, DueAt: issued.AddDate(0, 1, 0)}
			if err := st.PutInvoice(ctx, inv); err != nil {
				b.Fatal(err)
			}
		}
		p, err := events.ListEvents(ctx, "org_a", store.EventQuery{Limit: 1})
		if err != nil {
			b.Fatal(err)
		}
		if p.Total >= n {
			break
		}
	}
	h := apitest.Handler(st, auth.NewCache(keys), nil, statusapi.WithoutResponseCache())
	return h, key, eventIDs(b, events, "org_a")
}

// eventIDs returns the ids of the organization's events, oldest first.
func eventIDs(b *testing.B, events store.Events, org string) []string {
	var ids []string
	for after := ""; ; {
		p, err := events.ListEvents(context.Background(), org, store.EventQuery{After: after, Limit: 100})
		if err != nil {
			b.Fatal(err)
		}
		if len(p.Events) == 0 {
			return ids
		}
		for _, e := range p.Events {
			ids = append(ids, e.ID)
		}
		after = p.Last
	}
}

func benchGet(b *testing.B, h http.Handler, key, target string) {
	req := apitest.NewRequest("GET", target, key)
	b.ReportAllocs()
	for b.Loop() {
		res := httptest.NewRecorder()
		h.ServeHTTP(res, req)
		if res.Code != http.StatusOK {
			b.Fatalf("%s: %d %s", target, res.Code, res.Body)
		}
	}
}

// BenchmarkEventFeed is a page of 20 events of an organization with
// about 1,000 and 100,000 events, of all types and of one (invoice.paid,
// one event in eight), from no after (counting all the events in its
// total), after the oldest, after the middle one and near the newest (a
// poll). Compare BenchmarkEventFeed/plain_list, a page of 20 invoices of
// the same store, uncached: the feed should cost about the same, whatever
// the number of events.
func BenchmarkEventFeed(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		h, key, ids := eventBench(b, n)
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			for _, filter := range []string{"", "&type=invoice.paid"} {
				name := "all"
				if filter != "" {
					name = "typed"
				}
				b.Run(name, func(b *testing.B) {
					for _, at := range []struct{ name, after string }{
						{"absent", ""}, {"oldest", "&after=" + ids[0]}, {"middle", "&after=" + ids[len(ids)/2]}, {"newest", "&after=" + ids[len(ids)-2]},
					} {
						b.Run(at.name, func(b *testing.B) { benchGet(b, h, key, "/v1/events?limit=20"+filter+at.after) })
					}
				})
			}
			b.Run("plain list", func(b *testing.B) { benchGet(b, h, key, "/v1/invoices?limit=20") })
		})
	}
}
