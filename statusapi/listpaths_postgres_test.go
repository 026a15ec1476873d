package statusapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/internal/test/apitest"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/store"
)

// listPathFilter is a query parameter of /v1/invoices as
// TestInvoiceRoutePathsAgree varies it: its values ("" for absent first)
// and the SQL predicate of a value in the COUNT(*) of the invoices table
// ("" for a parameter that selects nothing, expand).
type listPathFilter struct {
	name   string
	values []string
	where  string
}

// TestInvoiceRoutePathsAgree serves GET /v1/invoices with every
// combination of the filters the route declares (statusapi.Operations),
// with a key that reads everything and one restricted to a project,
// limits 1, 2, 3 and 100, page by page and, with updatedSince, cursor by
// cursor (meta.next), from two handlers on one PostgreSQL schema: one on
// Open's pgx pool, whose store answers with the prepared page, and one
// on a bun.Conn, whose store answers with the generic list. The bodies
// must be equal to the byte, and every meta.total must equal a COUNT(*)
// of the invoices table under the same filters (less the items of the
// cursor walk's earlier pages). A parameter the route gains and this
// test cannot vary fails it.
func TestInvoiceRoutePathsAgree(t *testing.T) {
	ctx := context.Background()
	db, schema, cs := migratedSchema(t, "statusapi_paths")
	epoch := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := epoch
	writer := bunstore.New(db, cs, bunstore.WithClock(func() time.Time { return clock }))
	must(t, writer.PutOrganization(ctx, store.Organization{ID: "o1", Name: "O1", Plan: store.PlanEnterprise, RetainerActive: true, APIEnabled: true}))
	for _, p := range []string{"p1", "p2"} {
		must(t, writer.PutProject(ctx, store.Project{ID: p, OrgID: "o1", Name: "<" + p + ">", Status: store.ProjectInProgress}))
	}
	for j := range 9 {
		if j%4 == 0 {
			clock = clock.Add(time.Minute)
		}
		issued := epoch.Add(-time.Duration(j%4) * time.Hour)
		inv := store.Invoice{ID: fmt.Sprintf("inv_%02d", (j*7)%9), OrgID: "o1", Number: fmt.Sprint("N&", j),
			Status: store.InvoiceStatuses[j%len(store.InvoiceStatuses)], Currency: "EUR", Total: int64(j),
			IssuedAt: issued, DueAt: issued.AddDate(0, 0, j%3*10)}
		if j%3 > 0 {
			inv.ProjectID = &[]string{"p1", "p2"}[j%3-1]
		}
		must(t, writer.PutInvoice(ctx, inv))
	}
	conn, err := db.Conn(ctx)
	must(t, err)
	t.Cleanup(func() { conn.Close() })
	// One clock for both, that syncedThrough reads: the two answers of a
	// request are never a second apart.
	fixed := bunstore.WithClock(func() time.Time { return clock })
	fast, generic := bunstore.New(db, cs, fixed), bunstore.New(conn, cs, fixed)
	keys := auth.NewKeys(fast)
	t.Cleanup(func() { _ = keys.Close() })
	// Each request is made with a key that reads everything and with one
	// restricted to p2 (the store's OnlyProjects), whose COUNT(*) adds its
	// predicate.
	type pathKey struct {
		key, where string
	}
	open, _, err := keys.Mint(ctx, "o1", "paths", nil)
	must(t, err)
	restricted, _, err := keys.MintRestricted(ctx, "o1", "paths p2", nil, auth.Restriction{ProjectIDs: []string{"p2"}})
	must(t, err)
	pathKeys := []pathKey{{open, ""}, {restricted, "project_id = 'p2'"}}
	handlers := [2]http.Handler{apitest.Handler(fast, keys, nil), apitest.Handler(generic, keys, nil)}

	var filters []listPathFilter
	for _, op := range statusapi.Operations() {
		if op.Path != "/v1/invoices" {
			continue
		}
		for _, p := range op.Params {
			if p.In != "query" {
				continue
			}
			f := listPathFilter{name: p.Name, values: append([]string{""}, p.Enum...)}
			switch p.Name {
			case "page", "limit", "after": // set by the walk
				continue
			case "status":
				f.where = "status = ?"
			case "projectId":
				f.values, f.where = []string{"", "p1", "nope"}, "project_id = ?"
			case "dueBefore":
				f.values, f.where = []string{"", epoch.AddDate(0, 0, 5).Format(time.RFC3339)}, "due_at < ?"
			case "updatedSince":
				f.values, f.where = []string{"", epoch.Add(2 * time.Minute).Format(time.RFC3339), epoch.Format(time.RFC3339)}, "updated_at >= ?"
			case "expand":
			default:
				t.Fatalf("/v1/invoices declares %s, which TestInvoiceRoutePathsAgree cannot vary: give it values and a COUNT(*) predicate", p.Name)
			}
			filters = append(filters, f)
		}
	}
	if len(filters) == 0 {
		t.Fatal("no /v1/invoices among statusapi.Operations")
	}

	get := func(target, key string) (string, listMeta) {
		t.Helper()
		var bodies [2]string
		for i, h := range handlers {
			res := serveWith(t, h, apitest.NewRequest("GET", target, key))
			if res.Code != http.StatusOK {
				t.Fatalf("%s: %d %s", target, res.Code, res.Body)
			}
			bodies[i] = res.Body.String()
		}
		if bodies[0] != bodies[1] {
			t.Fatalf("%s:\nprepared page: %s\ngeneric list:  %s", target, bodies[0], bodies[1])
		}
		var out struct {
			Data []json.RawMessage `json:"data"`
			Meta listMeta          `json:"meta"`
		}
		must(t, json.Unmarshal([]byte(bodies[0]), &out))
		out.Meta.items = len(out.Data)
		return bodies[0], out.Meta
	}
	count := func(where []string, args []any) int {
		var n int
		must(t, db.QueryRowContext(ctx, "SELECT count(*) FROM "+schema+".invoices WHERE "+strings.Join(where, " AND "), args...).Scan(&n))
		return n
	}

	cases := 0
	var walkPages func(q url.Values, key string, total int)
	var walk func(i int, q url.Values, where []string, args []any)
	walk = func(i int, q url.Values, where []string, args []any) {
		if i < len(filters) {
			f := filters[i]
			for _, v := range f.values {
				q, where, args := cloneValues(q), where, args
				if v != "" {
					q.Set(f.name, v)
					if f.where != "" {
						where, args = append(where[:len(where):len(where)], f.where), append(args[:len(args):len(args)], v)
					}
				}
				walk(i+1, q, where, args)
			}
			return
		}
		for _, k := range pathKeys {
			where := where
			if k.where != "" {
				where = append(where[:len(where):len(where)], k.where)
			}
			total := count(where, args)
			walkPages(q, k.key, total)
		}
	}
	walkPages = func(q url.Values, key string, total int) {
		for _, limit := range []int{1, 2, 3, 100} {
			q.Set("limit", fmt.Sprint(limit))
			for page := 1; ; page++ {
				q.Set("page", fmt.Sprint(page))
				_, meta := get("/v1/invoices?"+q.Encode(), key)
				cases++
				if meta.Total != total {
					t.Fatalf("%s: meta.total %d, COUNT(*) %d", q.Encode(), meta.Total, total)
				}
				if meta.items == 0 {
					break
				}
			}
			q.Del("page")
			if q.Get("updatedSince") == "" {
				continue
			}
			seen := 0
			for after := ""; ; {
				target := "/v1/invoices?" + q.Encode()
				if after != "" {
					target += "&after=" + url.QueryEscape(after)
				}
				_, meta := get(target, key)
				cases++
				if meta.Total != total-seen {
					t.Fatalf("%s: meta.total %d after %d items, COUNT(*) %d", target, meta.Total, seen, total)
				}
				seen += meta.items
				if meta.Next == nil {
					break
				}
				after = *meta.Next
			}
			if seen != total {
				t.Fatalf("%s: the cursor walk saw %d items of %d", q.Encode(), seen, total)
			}
		}
	}
	walk(0, url.Values{}, []string{"org_id = ?"}, []any{"o1"})
	t.Logf("%d pages compared over the filters %v", cases, filterNames(filters))
}

// listMeta is the meta of a list as TestInvoiceRoutePathsAgree reads it.
type listMeta struct {
	Total int     `json:"total"`
	Next  *string `json:"next"`
	items int
}

func cloneValues(q url.Values) url.Values {
	out := url.Values{}
	for k, v := range q {
		out[k] = append([]string(nil), v...)
	}
	return out
}

func filterNames(fs []listPathFilter) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.name)
	}
	return out
}

// must fails the test on err.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
