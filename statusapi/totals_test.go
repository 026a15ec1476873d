package statusapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/files"
	"github.com/clientstatus/clientstatus/internal/test/apitest"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/store"
)

// TestListTotalsMemory and TestListTotalsPostgres hold every paged list
// route to its meta.total: with every combination of the filters it
// declares (statusapi.Operations), a key that reads everything and one
// restricted to a project, meta.total is the same on every page and
// equals the items the pages hold together (7 a page); with
// updatedSince, the cursor walk (meta.next) sees them all, each page's
// total counting what is left. On PostgreSQL a total may come from the
// item_counts tallies, which must count what the list serves. A filter a
// route gains that this test cannot vary fails it (filterValues).
func TestListTotalsMemory(t *testing.T) {
	m := memstore.New()
	testListTotals(t, m, auth.NewMemoryKeyStore(m))
}

func TestListTotalsPostgres(t *testing.T) {
	db, _, cs := migratedSchema(t, "statusapi_totals")
	st := bunstore.New(db, cs)
	testListTotals(t, st, st)
}

// filterValues are the values each list filter takes in the walk, beside
// its enum's values and, unless required, its absence. The deletion
// feed's since is set when the walk starts: not before the store did.
var filterValues = map[string][]string{
	"projectId":    {"p1", "p2", "nope"},
	"threadId":     {"t1", "nope"},
	"dueBefore":    {t0.AddDate(0, 0, 20).Format(time.RFC3339), t0.AddDate(1, 0, 0).Format(time.RFC3339)},
	"updatedSince": {t0.Format(time.RFC3339), t0.Add(time.Hour).Format(time.RFC3339)},
	"since":        nil,
	"status":       nil, // an enum, or the request log's status
	"type":         nil, // an enum
	"expand":       nil, // changes no total
}

func testListTotals(t *testing.T, st declaredStore, ks auth.KeyStore) {
	is := is.New(t)
	ctx := context.Background()
	src := files.NewMemory()
	putFixtures(t, st, src)
	// Enterprise: no rate limit to run out of.
	is.NoErr(st.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "org_a", Plan: store.PlanEnterprise, RetainerActive: true, APIEnabled: true}))
	keys := auth.NewKeys(ks)
	t.Cleanup(func() { _ = keys.Close() })
	open, _, err := keys.Mint(ctx, "org_a", "totals", nil)
	is.NoErr(err)
	restricted, _, err := keys.MintRestricted(ctx, "org_a", "totals p1", nil, auth.Restriction{ProjectIDs: []string{"p1"}})
	is.NoErr(err)
	// The request log holds what is flushed below, before the walk, and
	// nothing of the walk: its own requests would move the totals it
	// checks (a batch written in the middle of a walk of the log).
	rec := statusapi.NewRequestRecorder(st, statusapi.WithRecorderFlushInterval(time.Hour),
		statusapi.WithRecorderBuffer(1_000_000), statusapi.WithRecorderBatch(1_000_000))
	t.Cleanup(func() { _ = rec.Close(context.Background()) })
	opts := []statusapi.Option{statusapi.WithFiles(src), statusapi.WithWebhookEndpoints(st), statusapi.WithRequestLog(rec)}
	h := apitest.Handler(st, keys, nil, opts...)
	for _, key := range []string{open, restricted} {
		for _, target := range []string{"/v1/projects", "/v1/invoices", "/v1/projects/nope", "/v1/invoices?limit=0"} {
			h.ServeHTTP(httptest.NewRecorder(), apitest.NewRequest("GET", target, key))
		}
	}
	is.NoErr(rec.Flush(ctx))
	paths := map[string]string{} // pattern: a path of it that names fixture items
	for _, rt := range statusapi.RouteTable(opts...) {
		paths[rt.Pattern], _, _ = strings.Cut(rt.Example, "?")
	}

	requests := 0
	get := func(target, key string) (items int, total int, next *string) {
		t.Helper()
		requests++
		res := httptest.NewRecorder() // not checked against the document: too many for that
		h.ServeHTTP(res, apitest.NewRequest("GET", target, key))
		if res.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", target, res.Code, res.Body)
		}
		var out struct {
			Data []json.RawMessage `json:"data"`
			Meta struct {
				Total *int    `json:"total"`
				Next  *string `json:"next"`
			} `json:"meta"`
		}
		is.NoErr(json.Unmarshal(res.Body.Bytes(), &out))
		if out.Meta.Total == nil {
			t.Fatalf("%s: no meta.total in %s", target, res.Body)
		}
		return len(out.Data), *out.Meta.Total, out.Meta.Next
	}
	// check walks q's pages at each limit and its cursor, returning the
	// total.
	check := func(path string, q url.Values, key string) int {
		t.Helper()
		var want int
		for i, limit := range []int{7} {
			q := cloneValues(q)
			q.Set("limit", fmt.Sprint(limit))
			seen := 0
			for page := 1; ; page++ {
				q.Set("page", fmt.Sprint(page))
				n, total, _ := get(path+"?"+q.Encode(), key)
				if i == 0 && page == 1 {
					want = total
				}
				if total != want {
					t.Fatalf("%s?%s: meta.total %d, %d on the first page", path, q.Encode(), total, want)
				}
				if seen += n; n == 0 {
					break
				}
			}
			if seen != want {
				t.Fatalf("%s?%s: the pages hold %d items, meta.total says %d", path, q.Encode(), seen, want)
			}
			if q.Get("updatedSince") == "" {
				continue
			}
			q.Del("page")
			seen = 0
			for after := ""; ; {
				target := path + "?" + q.Encode()
				if after != "" {
					target += "&after=" + url.QueryEscape(after)
				}
				n, total, next := get(target, key)
				if total != want-seen {
					t.Fatalf("%s: meta.total %d after %d items of %d", target, total, seen, want)
				}
				seen += n
				if next == nil {
					break
				}
				after = *next
			}
			if seen != want {
				t.Fatalf("%s?%s: the cursor walk saw %d items of %d", path, q.Encode(), seen, want)
			}
		}
		return want
	}

	lists, nonEmpty := 0, 0
	for _, op := range statusapi.Operations(opts...) {
		if !slices.ContainsFunc(op.Params, func(p statusapi.Param) bool { return p.Name == "page" }) {
			continue // not a paged list
		}
		var filters []statusapi.Param
		for _, p := range op.Params {
			if p.In != "query" || p.Name == "page" || p.Name == "limit" || p.Name == "after" || p.Name == "expand" {
				continue // set by the walk, or no filter
			}
			if _, ok := filterValues[p.Name]; !ok {
				t.Fatalf("%s declares %s, which the totals walk cannot vary: give it values in filterValues", op.Path, p.Name)
			}
			filters = append(filters, p)
		}
		lists++
		path := paths[op.Path]
		var walk func(i int, q url.Values)
		walk = func(i int, q url.Values) {
			if i == len(filters) {
				for _, key := range []string{open, restricted} {
					if check(path, q, key) > 0 {
						nonEmpty++
					}
				}
				return
			}
			p := filters[i]
			values := append(append([]string(nil), filterValues[p.Name]...), p.Enum...)
			if p.Name == "since" {
				values = []string{time.Now().Add(time.Second).UTC().Format(time.RFC3339)}
			}
			if op.Path == "/v1/request_logs" && p.Name == "status" {
				values = []string{"200", "4xx"}
			}
			if !p.Required {
				values = append([]string{""}, values...)
			}
			for _, v := range values {
				q := cloneValues(q)
				if v != "" {
					q.Set(p.Name, v)
				}
				walk(i+1, q)
			}
		}
		walk(0, url.Values{})
	}
	is.True(lists >= 10)    // every paged list was walked
	is.True(nonEmpty > 100) // and the fixtures fill many of their answers
	t.Logf("%d lists, %d requests, %d non-empty answers walked", lists, requests, nonEmpty)
}
