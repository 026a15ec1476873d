package statusapi_test

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/internal/test/apitest"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/store"
)

// BenchmarkListInvoices measures a whole request through the handler:
// request id, auth (key hashing and lookup), the rate limiter (org_a's
// plan made unlimited, as enterprise is, so nothing is counted), the
// response cache's version read and lookup, and the headers of a
// 20-invoice page served from the cache.
func BenchmarkListInvoices(b *testing.B) {
	api := newTestAPIWith(b, unlimited)
	recordEach(b, api.handler, pageRequest(api), http.StatusOK)
}

// BenchmarkListInvoicesUncached is BenchmarkListInvoices with the response
// cache off: every request queries the store and encodes the page.
func BenchmarkListInvoicesUncached(b *testing.B) {
	api := newTestAPIWith(b, unlimited, statusapi.WithoutResponseCache())
	recordEach(b, api.handler, pageRequest(api), http.StatusOK)
}

// BenchmarkRevalidate measures a poll whose page has not changed: a 304
// from the response cache.
func BenchmarkRevalidate(b *testing.B) {
	api := newTestAPIWith(b, unlimited)
	req := pageRequest(api)
	first := httptest.NewRecorder()
	api.handler.ServeHTTP(first, req)
	req.Header.Set("If-None-Match", first.Header().Get("ETag"))
	recordEach(b, api.handler, req, http.StatusNotModified)
}

// BenchmarkCachedPage is the handler's own cost for a page from the
// response cache, written to a ResponseWriter that keeps nothing: the
// request id, authentication, the rate limit, the version read, the cache
// and the headers. Compare BenchmarkStaticBytes, the floor.
func BenchmarkCachedPage(b *testing.B) {
	api := newTestAPIWith(b, unlimited)
	// As the README mounts it: keys behind auth.Cache, a public URL.
	cache := auth.NewCache(api.keys)
	b.Cleanup(func() { _ = cache.Close() })
	h := apitest.Handler(api.store, cache, ratelimit.NewMemory(ratelimit.WithRate(store.PlanStarter, ratelimit.Unlimited)),
		statusapi.WithPublicURL("https://portal.example.com/api"))
	discardEach(b, h, pageRequest(api))
}

// BenchmarkStaticBytes is the floor BenchmarkCachedPage is measured
// against: a handler that checks the bearer key by its SHA-256 and writes
// fixed bytes.
func BenchmarkStaticBytes(b *testing.B) {
	api := newTestAPIWith(b, unlimited)
	body := api.do("GET", "/v1/invoices?limit=20", "a").Body.Bytes()
	want := sha256.Sum256([]byte(api.Key("a")))
	static := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := sha256.Sum256([]byte(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")))
		if subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = w.Write(body)
	})
	discardEach(b, static, pageRequest(api))
}

// pageRequest is the benchmarks' request: page 1 of 20 invoices, with
// org_a's key "a".
func pageRequest(api *testAPI) *http.Request {
	return api.Request("GET", "/v1/invoices?limit=20", "a")
}

// recordEach serves req to h b.N times, each into a fresh recorder, and
// fails on a status other than want.
func recordEach(b *testing.B, h http.Handler, req *http.Request, want int) {
	b.ReportAllocs()
	for b.Loop() {
		res := httptest.NewRecorder()
		h.ServeHTTP(res, req)
		if res.Code != want {
			b.Fatal(res.Code)
		}
	}
}

// discardEach serves req to h b.N times into a ResponseWriter that keeps
// nothing, so that it measures the handler rather than httptest's
// recorder.
func discardEach(b *testing.B, h http.Handler, req *http.Request) {
	w := &discard{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		h.ServeHTTP(w, req)
	}
}

// discard is a ResponseWriter that keeps nothing.
type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(p []byte) (int, error) { return len(p), nil }
func (d *discard) WriteHeader(int)             {}

// changesRequest is a page of changes whose meta carries syncedThrough and
// a next cursor: 2 of the fixture's invoices changed since t0.
func changesRequest(api *testAPI) *http.Request {
	return api.Request("GET", "/v1/invoices?updatedSince=2026-03-01T09:00:00Z&limit=2", "a")
}

// BenchmarkListChanges is BenchmarkListInvoices for a page of changes,
// served from the cache while its syncedThrough is fresh.
func BenchmarkListChanges(b *testing.B) {
	api := newTestAPIWith(b, unlimited)
	recordEach(b, api.handler, changesRequest(api), http.StatusOK)
}

// BenchmarkListChangesUncached is BenchmarkListChanges with the response
// cache off: the store query, the cursor and the encoding on each request.
func BenchmarkListChangesUncached(b *testing.B) {
	api := newTestAPIWith(b, unlimited, statusapi.WithoutResponseCache())
	recordEach(b, api.handler, changesRequest(api), http.StatusOK)
}

// BenchmarkListChangesClockMoves is BenchmarkListChanges with the clock
// two seconds on at each request: the cached page's syncedThrough is never
// fresh, so each request reads the store again, the worst case of a
// client polling one page of changes less often than every second.
func BenchmarkListChangesClockMoves(b *testing.B) {
	api := newTestAPIWith(b, unlimited)
	req := changesRequest(api)
	b.ReportAllocs()
	for b.Loop() {
		api.clock.Advance(2 * time.Second)
		res := httptest.NewRecorder()
		api.handler.ServeHTTP(res, req)
		if res.Code != http.StatusOK {
			b.Fatal(res.Code)
		}
	}
}
