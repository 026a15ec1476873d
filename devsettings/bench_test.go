package devsettings_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/clientstatus/clientstatus/auth"
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
			e, _, err := f.eps.Create(b.Context(), "org_a", webhookSettings("http://127.0.0.1:9/a"))
			if err != nil {
				b.Fatal(err)
			}
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
