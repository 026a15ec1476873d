package statusapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/store"
)

// countingStore is the test store that counts the queries the handler
// makes: it is a memstore.Store in all else (Versions included).
type countingStore struct {
	*memstore.Store
	queries  atomic.Int64
	versions atomic.Int64 // DataVersion's reads
}

func (s *countingStore) DataVersion(ctx context.Context, org string) (int64, error) {
	s.versions.Add(1)
	return s.Store.DataVersion(ctx, org)
}

func (s *countingStore) ListInvoices(ctx context.Context, org string, q store.InvoiceQuery) (store.Page[store.Invoice], error) {
	s.queries.Add(1)
	return s.Store.ListInvoices(context.Background(), org, q)
}

func (s *countingStore) GetProject(ctx context.Context, org, id string) (store.Project, error) {
	s.queries.Add(1)
	return s.Store.GetProject(context.Background(), org, id)
}

// counted returns a test API whose handler reads through a countingStore.
func counted(t *testing.T, opts ...statusapi.Option) (*testAPI, *countingStore) {
	var cs *countingStore
	s := unlimited
	s.wrap = func(st store.Store) store.Store {
		cs = &countingStore{Store: st.(*memstore.Store)}
		return cs
	}
	return newTestAPIWith(t, s, opts...), cs
}

func TestCacheAnswersWithoutQuery(t *testing.T) {
	is := is.New(t)
	api, cs := counted(t)

	first := api.do("GET", "/v1/invoices?limit=5", "a")
	is.Equal(first.Code, 200)
	is.Equal(cs.queries.Load(), int64(1))
	is.Equal(cs.versions.Load(), int64(0)) // nothing cached: the page says its version, none read before
	again := api.do("GET", "/v1/invoices?limit=5", "a")
	is.Equal(again.Code, 200)
	is.Equal(again.Body.String(), first.Body.String())               // the same bytes
	is.Equal(again.Header().Get("ETag"), first.Header().Get("ETag")) // the same tag
	is.Equal(again.Header().Get("Link"), first.Header().Get("Link")) // the same links
	is.Equal(again.Header().Get("Content-Length"), first.Header().Get("Content-Length"))
	is.Equal(cs.queries.Load(), int64(1)) // a cached page runs no query

	revalidated := api.do("GET", "/v1/invoices?limit=5", "a", "If-None-Match", first.Header().Get("ETag"))
	is.Equal(revalidated.Code, 304)
	is.Equal(revalidated.Body.Len(), 0)
	is.Equal(cs.queries.Load(), int64(1))  // a 304 runs no query
	is.Equal(cs.versions.Load(), int64(2)) // but reads the version, as a hit does

	head := api.do("HEAD", "/v1/invoices?limit=5", "a")
	is.Equal(head.Code, 200)
	is.Equal(head.Header().Get("Content-Length"), first.Header().Get("Content-Length"))
	is.Equal(head.Header().Get("ETag"), first.Header().Get("ETag"))

	// Another query, another key of the same organization: the query is
	// part of the key, the key is not.
	is.Equal(api.do("GET", "/v1/invoices?limit=6", "a").Code, 200)
	is.Equal(cs.queries.Load(), int64(2))
	is.Equal(api.do("GET", "/v1/invoices?limit=5", "a2").Body.String(), first.Body.String())
	is.Equal(cs.queries.Load(), int64(2))
}

// An answer whose store gives no version with it (an item) is kept from
// the second request on: the first marks its key, the second reads the
// version before the store, and the third is served from the cache.
func TestCacheKeepsAnswersWithoutVersion(t *testing.T) {
	is := is.New(t)
	api, cs := counted(t)
	first := api.do("GET", "/v1/projects/p1", "a")
	is.Equal(first.Code, 200)
	is.Equal(cs.queries.Load(), int64(1))
	is.Equal(cs.versions.Load(), int64(0))
	is.Equal(api.do("GET", "/v1/projects/p1", "a").Body.String(), first.Body.String())
	is.Equal(cs.queries.Load(), int64(2))  // not kept without a version
	is.Equal(cs.versions.Load(), int64(1)) // read first this time
	is.Equal(api.do("GET", "/v1/projects/p1", "a").Body.String(), first.Body.String())
	is.Equal(cs.queries.Load(), int64(2)) // kept at the version read
	is.Equal(cs.versions.Load(), int64(2))
}

func TestCacheServesEveryWriteAtOnce(t *testing.T) {
	is := is.New(t)
	api := newTestAPIWith(t, unlimited)
	// A second replica on the same store, with a cache of its own.
	replica := api.Replica(nil)
	get := func(h http.Handler) (string, string) {
		t.Helper()
		res := api.Serve(h, api.Request("GET", "/v1/invoices?limit=3", "a"))
		is.Equal(res.Code, 200)
		return res.Body.String(), res.Header().Get("ETag")
	}
	before, tag := get(api.handler)
	get(replica)

	inv, err := api.store.ListInvoices(context.Background(), "org_a", store.InvoiceQuery{PageRequest: store.PageRequest{Page: 1, Limit: 1}})
	is.NoErr(err)
	changed := inv.Items[0]
	changed.AmountDue = 4242
	is.NoErr(api.store.PutInvoice(context.Background(), changed))
	for _, h := range []http.Handler{api.handler, replica} {
		body, newTag := get(h)
		is.True(strings.Contains(body, `"amountDue":4242`)) // a put is served at once
		is.True(newTag != tag)                              // with a new tag
	}

	is.NoErr(api.store.DeleteInvoice(context.Background(), "org_a", changed.ID))
	for _, h := range []http.Handler{api.handler, replica} {
		body, _ := get(h)
		is.True(!strings.Contains(body, `"id":"`+changed.ID+`"`)) // a delete is served at once
		is.True(body != before)
	}
}

func TestCacheKeepsInternalActivityOutOfTags(t *testing.T) {
	is := is.New(t)
	api := newTestAPIWith(t, unlimited)
	first := api.do("GET", "/v1/threads", "a")
	is.Equal(first.Code, 200)
	th := threadOf(t, api, "org_a")
	is.NoErr(api.store.PutMessage(context.Background(), store.Message{ID: "internal-x", OrgID: "org_a", ThreadID: th,
		Author: store.Author{Name: "Ana", Side: store.SideAgency}, Body: "margin", Internal: true, CreatedAt: now}))
	res := api.do("GET", "/v1/threads", "a", "If-None-Match", first.Header().Get("ETag"))
	is.Equal(res.Code, 304) // internal activity moves the version, not the tag
}

// threadOf returns the id of one of org's threads.
func threadOf(t *testing.T, api *testAPI, org string) string {
	t.Helper()
	p, err := api.store.ListThreads(context.Background(), org, store.ThreadQuery{PageRequest: store.PageRequest{Page: 1, Limit: 1}})
	if err != nil || len(p.Items) == 0 {
		t.Fatalf("no thread in %s: %v", org, err)
	}
	return p.Items[0].ID
}

func TestCacheSeparatesRestrictions(t *testing.T) {
	is := is.New(t)
	api := newTestAPIWith(t, unlimited)
	all := api.do("GET", "/v1/invoices?limit=100", "a")
	p1 := api.do("GET", "/v1/invoices?limit=100", "p1 only")
	p2 := api.do("GET", "/v1/invoices?limit=100", "p2 only")
	is.Equal(all.Code, 200)
	is.Equal(p1.Code, 200)
	is.Equal(p2.Code, 200)
	is.True(all.Body.String() != p1.Body.String()) // a restricted key gets its own answer
	is.True(p1.Body.String() != p2.Body.String())
	is.Equal(api.do("GET", "/v1/invoices?limit=100", "a").Body.String(), all.Body.String())
	is.Equal(api.do("GET", "/v1/invoices?limit=100", "p1 only").Body.String(), p1.Body.String())
	// A scope is checked before the cache is read.
	is.Equal(api.do("GET", "/v1/invoices?limit=100", "projects:read").Code, 403)
}

func TestCacheIsBounded(t *testing.T) {
	is := is.New(t)
	// Room for a few pages of one invoice each (about 600 bytes with
	// key and overhead), and each under a sixteenth of it.
	api, cs := counted(t, statusapi.WithResponseCache(16*1024))
	pages := 60
	for n := 1; n <= pages; n++ {
		is.Equal(api.do("GET", fmt.Sprintf("/v1/invoices?limit=1&page=%d", n%25+1), "a").Code, 200)
	}
	q := cs.queries.Load()
	is.Equal(api.do("GET", "/v1/invoices?limit=1&page=25", "a").Code, 200) // the last one asked is kept
	is.Equal(cs.queries.Load(), q)
	for n := 1; n <= 25; n++ { // 25 pages of ~600 bytes do not fit in 16 KiB
		api.do("GET", fmt.Sprintf("/v1/invoices?limit=1&page=%d", n), "a")
	}
	is.True(cs.queries.Load() > q+25-16*1024/600) // pages were evicted

	big := api.do("GET", "/v1/invoices?limit=100", "a") // over a sixteenth: never kept
	is.Equal(big.Code, 200)
	q = cs.queries.Load()
	api.do("GET", "/v1/invoices?limit=100", "a")
	is.Equal(cs.queries.Load(), q+1)
}

// An answer too large to keep leaves its tag (as an answer pushed out of
// a full cache does: cache_internal_test.go): a revalidation naming it
// is a 304 without a query while the data do not change, and anything
// else runs the store as a miss does.
func TestCacheRevalidatesAnswersItCannotKeep(t *testing.T) {
	is := is.New(t)
	api, cs := counted(t, statusapi.WithResponseCache(16*1024))
	big := api.do("GET", "/v1/invoices?limit=100", "a") // over a sixteenth: kept as its tag
	is.Equal(big.Code, 200)
	q := cs.queries.Load()
	is.Equal(api.do("GET", "/v1/invoices?limit=100", "a", "If-None-Match", big.Header().Get("ETag")).Code, 304)
	is.Equal(cs.queries.Load(), q)
	is.Equal(api.do("GET", "/v1/invoices?limit=100", "a", "If-None-Match", `W/"other"`).Code, 200)
	is.Equal(cs.queries.Load(), q+1)

	// A write moves the version: the tag no longer answers.
	inv, err := api.store.ListInvoices(context.Background(), "org_a", store.InvoiceQuery{PageRequest: store.PageRequest{Page: 1, Limit: 1}})
	is.NoErr(err)
	changed := inv.Items[0]
	changed.AmountDue = 4243
	is.NoErr(api.store.PutInvoice(context.Background(), changed))
	q = cs.queries.Load()
	after := api.do("GET", "/v1/invoices?limit=100", "a", "If-None-Match", big.Header().Get("ETag"))
	is.Equal(after.Code, 200)
	is.True(strings.Contains(after.Body.String(), `"amountDue":4243`))
	is.Equal(cs.queries.Load(), q+1)
}

func TestWithoutResponseCache(t *testing.T) {
	is := is.New(t)
	api, cs := counted(t, statusapi.WithoutResponseCache())
	first := api.do("GET", "/v1/projects/p1", "a")
	again := api.do("GET", "/v1/projects/p1", "a", "If-None-Match", first.Header().Get("ETag"))
	is.Equal(again.Code, 304)
	is.Equal(cs.queries.Load(), int64(2)) // every request reads the store

	err := statusapi.Validate(api.store, api.keys, ratelimit.NewMemory(), statusapi.WithResponseCache(-1))
	is.True(err != nil && strings.Contains(err.Error(), "WithResponseCache")) // a negative size is refused
}

// TestCacheConvergesUnderConcurrentWrites polls one page from several
// goroutines while another writes to it: whatever the interleaving (an
// answer encoded from data newer than the version it is kept under, say),
// the first request after the last write serves the last write, on every
// poller.
func TestCacheConvergesUnderConcurrentWrites(t *testing.T) {
	is := is.New(t)
	api := newTestAPIWith(t, unlimited)
	ctx := context.Background()
	page, err := api.store.ListInvoices(ctx, "org_a", store.InvoiceQuery{PageRequest: store.PageRequest{Page: 1, Limit: 1}})
	is.NoErr(err)
	inv := page.Items[0]

	get := func() string {
		req := api.Request("GET", "/v1/invoices?limit=3", "a")
		res := httptest.NewRecorder()
		api.handler.ServeHTTP(res, req)
		if res.Code != 200 {
			t.Errorf("status %d", res.Code)
		}
		return res.Body.String()
	}
	stop := make(chan struct{})
	var pollers sync.WaitGroup
	for range 4 {
		pollers.Add(1)
		go func() {
			defer pollers.Done()
			for {
				select {
				case <-stop:
					return
				default:
					get()
				}
			}
		}()
	}
	const writes = 300
	for n := 1; n <= writes; n++ {
		inv.AmountDue = int64(n)
		is.NoErr(api.store.PutInvoice(ctx, inv))
	}
	close(stop)
	pollers.Wait()
	want := fmt.Sprintf(`"amountDue":%d,`, writes)
	for range 4 {
		is.True(strings.Contains(get(), want)) // every request after the last write serves it
	}
}
