package devsettings_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/devsettings"
	"github.com/clientstatus/clientstatus/internal/test/pgtest"
	"github.com/clientstatus/clientstatus/store"
	"github.com/clientstatus/clientstatus/webhook"
)

// BenchmarkKeysPage renders the first page of an organization's 1,000
// keys: the page shows 25, but auth.Keys.List reads them all.
func BenchmarkKeysPage(b *testing.B) {
	f := newFixture(b)
	ks := auth.NewMemoryKeyStore(f.st)
	for i := range 1000 {
		if err := ks.CreateKey(b.Context(), auth.Key{ID: fmt.Sprintf("key_%04d", i), OrgID: "org_a", Name: fmt.Sprintf("key %d", i),
			Prefix: "csk_x", Hash: fmt.Sprintf("%064d", i), CreatedAt: t0.Add(time.Duration(i) * time.Second)}); err != nil {
			b.Fatal(err)
		}
	}
	f.keys = auth.NewKeys(ks)
	f.h = newHandler(f)
	bench(b, f, "/keys")
}

// BenchmarkEndpointPage renders an endpoint's page with 10,000 deliveries
// in its history: one page of 25, read as one page from the store.
func BenchmarkEndpointPage(b *testing.B) {
	for _, n := range []int{100, 10000} {
		b.Run(fmt.Sprintf("deliveries=%d", n), func(b *testing.B) {
			f := newFixture(b)
			e := f.endpoint("org_a", "http://127.0.0.1:9/a")
			f.deliver("org_a", e.ID, n)
			bench(b, f, "/webhooks/"+e.ID)
		})
	}
}

func bench(b *testing.B, f *fixture, path string) {
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest(http.MethodGet, path, nil)
		res := f.do(adminA, r)
		if res.Code != 200 {
			b.Fatalf("status %d", res.Code)
		}
	}
}

// BenchmarkEndpointPagePostgres is BenchmarkEndpointPage on PostgreSQL
// (TEST_DATABASE_URL), where a page of deliveries is one indexed query.
func BenchmarkEndpointPagePostgres(b *testing.B) {
	db, schema := pgtest.Schema(b, "devsettings_bench")
	st := bunstore.New(db, schema)
	ctx := b.Context()
	if err := st.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "Acme", Plan: store.PlanStarter, RetainerActive: true, APIEnabled: true}); err != nil {
		b.Fatal(err)
	}
	eps := webhook.NewEndpoints(st, st, make([]byte, webhook.KeySize), webhook.WithAllowLocal(true))
	h := devsettings.New(auth.NewKeys(st), st, account, devsettings.WithWebhooks(eps))
	e, _, err := eps.Create(ctx, "org_a", webhookSettings("http://127.0.0.1:9/a"))
	if err != nil {
		b.Fatal(err)
	}
	done := 0
	for _, n := range []int{100, 10000} {
		now := time.Now()
		for ; done < n; done++ {
			d := store.WebhookDelivery{ID: fmt.Sprintf("del_%05d", done), EndpointID: e.ID, EventID: fmt.Sprintf("evt_%05d", done),
				EventType: "invoice.paid", Attempt: 1, AttemptedAt: now.Add(-time.Duration(done) * time.Second), StatusCode: 200, Duration: time.Millisecond}
			job := store.WebhookJob{OrgID: "org_a", EndpointID: e.ID, EventID: d.EventID, EventType: d.EventType}
			if err := st.FinishWebhookAttempt(ctx, job, d, store.WebhookOutcome{Success: true}); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(fmt.Sprintf("deliveries=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r := httptest.NewRequest(http.MethodGet, "/webhooks/"+e.ID, nil)
				r.Header.Set(orgHeader, "org_a")
				r.Header.Set(roleHeader, "admin")
				res := httptest.NewRecorder()
				h.ServeHTTP(res, r)
				if res.Code != 200 {
					b.Fatalf("status %d", res.Code)
				}
			}
		})
	}
}
