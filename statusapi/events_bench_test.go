package statusapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/internal/apitest"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/store"
)

// eventBench is a handler on a store.Memory whose organization has made
// about n events: 1,000 invoices, each written again until the store
// holds n events, each write an invoice.updated (and, every other write,
// a change of status: an invoice.{status} too). It skips when
// store.Memory keeps no events.
func eventBench(b *testing.B, n int) (http.Handler, string, string) {
	ctx := context.Background()
	st := store.NewMemory()
	if _, ok := any(st).(store.Events); !ok {
		b.Skip("store.Memory keeps no events (store.Events)")
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
	for round := 0; ; round++ {
		for i := range 1000 {
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
	latest, err := events.LatestEvent(ctx, "org_a")
	if err != nil {
		b.Fatal(err)
	}
	return h, key, latest
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
// 100,000 events: from the oldest (counting all 100,000 in its total), of
// one type, and after the newest (empty: a poll). Compare
// BenchmarkEventFeedPlainList, a page of 20 invoices of the same store,
// uncached: the feed should cost about the same, whatever the number of
// events.
func BenchmarkEventFeed(b *testing.B) {
	h, key, latest := eventBench(b, 100_000)
	b.Run("oldest", func(b *testing.B) { benchGet(b, h, key, "/v1/events?limit=20") })
	b.Run("newest", func(b *testing.B) { benchGet(b, h, key, "/v1/events?limit=20&after="+latest) })
	b.Run("typed", func(b *testing.B) { benchGet(b, h, key, "/v1/events?limit=20&type=invoice.paid") })
	b.Run("plain list", func(b *testing.B) { benchGet(b, h, key, "/v1/invoices?limit=20") })
}
