package statusapi_test

import (
	"github.com/clientstatus/clientstatus/statusapi"
	"net/http/httptest"
	"testing"
)

// BenchmarkListInvoices measures a whole request through the handler:
// request id, auth (key hashing and lookup), the rate limiter (org_a's
// plan made unlimited, as enterprise is, so nothing is counted),
// parameters, the in-memory store and the JSON of a 20-invoice page.
func BenchmarkListInvoices(b *testing.B) {
	api := newTestAPIWith(b, unlimited)
	req := httptest.NewRequest("GET", "/v1/invoices?limit=20", nil)
	req.Header.Set("Authorization", "Bearer "+api.key["a"])
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res := httptest.NewRecorder()
		api.handler.ServeHTTP(res, req)
		if res.Code != 200 {
			b.Fatal(res.Code)
		}
	}
}

// BenchmarkListInvoicesUncached is BenchmarkListInvoices with the response
// cache off: every request queries the store and encodes the page.
func BenchmarkListInvoicesUncached(b *testing.B) {
	api := newTestAPIWith(b, unlimited, statusapi.WithoutResponseCache())
	req := httptest.NewRequest("GET", "/v1/invoices?limit=20", nil)
	req.Header.Set("Authorization", "Bearer "+api.key["a"])
	b.ReportAllocs()
	for b.Loop() {
		res := httptest.NewRecorder()
		api.handler.ServeHTTP(res, req)
		if res.Code != 200 {
			b.Fatal(res.Code)
		}
	}
}

// BenchmarkRevalidate measures a poll whose page has not changed: a 304
// from the response cache.
func BenchmarkRevalidate(b *testing.B) {
	api := newTestAPIWith(b, unlimited)
	req := httptest.NewRequest("GET", "/v1/invoices?limit=20", nil)
	req.Header.Set("Authorization", "Bearer "+api.key["a"])
	first := httptest.NewRecorder()
	api.handler.ServeHTTP(first, req)
	req.Header.Set("If-None-Match", first.Header().Get("ETag"))
	b.ReportAllocs()
	for b.Loop() {
		res := httptest.NewRecorder()
		api.handler.ServeHTTP(res, req)
		if res.Code != 304 {
			b.Fatal(res.Code)
		}
	}
}
