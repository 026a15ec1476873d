package statusapi_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/openapi"
)

// TestRouteScopes walks every route of the handler's table: the scope
// each declares ("" for none, and none
// for a route that takes no key) is the OpenAPI document's x-scope; and
// through the examples of the keyed routes, with a key of each scope and
// with keys restricted to projects, a route outside the key's scopes is
// 403 INSUFFICIENT_SCOPE with WWW-Authenticate naming the scope; inside,
// the route answers as for an unrestricted key, or 404 for an item of
// another project.
func TestRouteScopes(t *testing.T) {
	api := newTestAPIWith(t, unlimited)
	doc := documentScopes(t)
	for _, rt := range table {
		scope, target := rt.Scope, rt.Example
		t.Run(rt.Pattern, func(t *testing.T) {
			is := is.New(t)
			documented, ok := doc[rt.Pattern]
			is.True(ok)                         // the route is documented
			is.Equal(documented, string(scope)) // the document's x-scope is the handler's
			is.True(rt.Keyed || scope == "")    // a route that takes no key needs no scope
			if target == "" {
				return // exempt: its own test covers it
			}
			for _, s := range auth.AllScopes {
				res := api.do("GET", target, string(s))
				if scope == "" || s == scope {
					is.Equal(res.Code, 200) // a key with the route's scope is served
					continue
				}
				is.Equal(res.Code, 403) // a key without the route's scope is refused
				is.Equal(errorOf(t, res).Error.Code, "INSUFFICIENT_SCOPE")
				is.Equal(res.Header().Get("WWW-Authenticate"), `Bearer error="insufficient_scope", scope="`+string(scope)+`"`)
				head := api.do("HEAD", target, string(s))
				is.Equal(head.Code, 403)
				is.Equal(head.Header().Get("WWW-Authenticate"), res.Header().Get("WWW-Authenticate")) // HEAD says the same
			}
			// Every example names items of p1.
			is.Equal(api.do("GET", target, "p1 only").Code, 200) // a key restricted to p1 sees p1's items
			other := api.do("GET", target, "p2 only")
			if strings.Contains(rt.Pattern, "{") { // the example names an item, or a list of one
				is.Equal(other.Code, 404) // an item of another project answers as one that does not exist
				is.Equal(errorOf(t, other).Error.Code, "NOT_FOUND")
			} else {
				is.Equal(other.Code, 200) // a list answers, with what the key may see
			}
		})
	}
}

// documentScopes reads the x-scope of each GET operation of the OpenAPI
// document, by path ("" for an operation without one).
func documentScopes(t *testing.T) map[string]string {
	t.Helper()
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(openapi.JSON(), &doc); err != nil {
		t.Fatal(err)
	}
	out := make(map[string]string)
	for path, item := range doc.Paths {
		var get, head struct {
			Scope string `json:"x-scope"`
		}
		_ = json.Unmarshal(item["get"], &get)
		_ = json.Unmarshal(item["head"], &head)
		if get.Scope != head.Scope {
			t.Errorf("%s: GET and HEAD name different scopes", path)
		}
		out[path] = get.Scope
	}
	return out
}

// TestInsufficientScopeCostsNothing checks that a refusal for the scope
// comes before the rate limit, as 401 and 403 do.
func TestInsufficientScopeCostsNothing(t *testing.T) {
	is := is.New(t)
	api := newTestAPI(t)
	first := api.do("GET", "/v1/projects", "a")
	is.Equal(first.Header().Get("X-RateLimit-Remaining"), "59")
	for range 3 {
		res := api.do("GET", "/v1/projects", "invoices:read")
		is.Equal(res.Code, 403)
		is.Equal(res.Header().Get("X-RateLimit-Limit"), "") // not rate limited
	}
	is.Equal(api.do("GET", "/v1/projects", "a").Header().Get("X-RateLimit-Remaining"), "58") // nothing was spent
}

// TestProjectRestriction reads every list with keys restricted to one
// project: each holds that project's items only, with a total that
// counts only them, and never a retainer invoice; an item of another
// project answers exactly as an unknown id.
func TestProjectRestriction(t *testing.T) {
	api := newTestAPIWith(t, unlimited)
	for _, tc := range []struct {
		key, project string
	}{{"p1 only", "p1"}, {"p2 only", "p2"}} {
		t.Run(tc.key, func(t *testing.T) {
			is := is.New(t)
			l := listOf(t, api.do("GET", "/v1/projects?limit=100", tc.key))
			is.Equal(l.ids(), []string{tc.project}) // only its project
			is.Equal(l.Meta.Total, 1)               // and counted alone

			all := listOf(t, api.do("GET", "/v1/deliverables?limit=100", "a"))
			want := []string{}
			for _, d := range all.Data {
				if d["projectId"] == tc.project {
					want = append(want, d["id"].(string))
				}
			}
			l = listOf(t, api.do("GET", "/v1/deliverables?limit=100", tc.key))
			is.Equal(l.ids(), want) // only its project's deliverables
			is.Equal(l.Meta.Total, len(want))

			all = listOf(t, api.do("GET", "/v1/invoices?limit=100", "a"))
			want = []string{}
			for _, i := range all.Data {
				if i["projectId"] == tc.project {
					want = append(want, i["id"].(string))
				}
			}
			l = listOf(t, api.do("GET", "/v1/invoices?limit=100", tc.key))
			is.Equal(l.ids(), want) // only invoices naming its project, no retainer invoice
			is.Equal(l.Meta.Total, len(want))
			l = listOf(t, api.do("GET", "/v1/invoices?limit=2&page=2", tc.key))
			is.Equal(l.Meta.Total, len(want)) // the total on every page

			other := map[string]string{"p1": "p2", "p2": "p1"}[tc.project]
			is.Equal(listOf(t, api.do("GET", "/v1/deliverables?projectId="+other, tc.key)).Meta.Total, 0) // filtering by another project shows nothing
			for _, path := range []string{"/v1/projects/" + other, "/v1/projects/" + other + "/milestones"} {
				hidden := api.do("GET", path, tc.key, "X-Request-Id", "same")
				missing := api.do("GET", "/v1/projects/nope", tc.key, "X-Request-Id", "same")
				is.Equal(hidden.Code, 404)
				is.Equal(hidden.Body.String(), missing.Body.String()) // nothing tells it from an unknown id
			}
		})
	}
	is := is.New(t)
	is.Equal(api.do("GET", "/v1/deliverables/d3/download", "p1 only").Code, 404) // d3 is p2's: no link
	is.Equal(api.do("GET", "/v1/deliverables/d1/download", "p2 only").Code, 404) // d1 is p1's
	is.Equal(api.do("GET", "/v1/deliverables/d1/download", "p1 only").Code, 200)
}

// TestRestrictedDeletions reads the deletion records with restricted
// keys: a key restricted to a project reads only its project's, and one
// restricted to scopes only the kinds they cover.
func TestRestrictedDeletions(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	api := newTestAPIWith(t, unlimited)
	since := api.clock.Now()
	for _, del := range []func() error{
		func() error { return api.store.DeleteInvoice(ctx, "org_a", "i05") },    // a retainer invoice
		func() error { return api.store.DeleteInvoice(ctx, "org_a", "i01") },    // of p1
		func() error { return api.store.DeleteDeliverable(ctx, "org_a", "d3") }, // of p2
		func() error { return api.store.DeleteMilestone(ctx, "org_a", "m3") },   // of p1
		func() error { return api.store.DeleteProject(ctx, "org_a", "p2") },     // of p2
		func() error { return api.store.DeleteDeliverable(ctx, "org_a", "d2") }, // of p1
	} {
		api.clock.Advance(time.Second)
		is.NoErr(del())
	}
	records := func(key, query string) []string {
		l := listOf(t, api.do("GET", "/v1/deletions?limit=100&since="+at(since)+query, key))
		is.Equal(l.Meta.Total, len(l.Data))
		var out []string
		for _, r := range l.Data {
			out = append(out, r["type"].(string)+" "+r["id"].(string))
		}
		return out
	}
	is.Equal(records("a", ""), []string{"invoice i05", "invoice i01", "deliverable d3", "milestone m3", "project p2", "thread t4", "deliverable d2"}) // p2 took its thread t4
	is.Equal(records("p1 only", ""), []string{"invoice i01", "milestone m3", "deliverable d2"})                                                       // p1's only
	is.Equal(records("p2 only", ""), []string{"deliverable d3", "project p2", "thread t4"})                                                           // p2's only
	is.Equal(records("invoices:read", ""), []string{"invoice i05", "invoice i01"})                                                                    // the kinds of its scopes
	is.Equal(records("projects:read", ""), []string{"milestone m3", "project p2"})
	is.Equal(records("projects:read", "&type=invoice"), []string(nil)) // a kind it may not read: nothing
	is.Equal(records("threads:read", ""), []string{"thread t4"})

	// A key restricted to a project deleted since sees nothing, rather
	// than everything.
	is.Equal(listOf(t, api.do("GET", "/v1/projects", "p2 only")).Meta.Total, 0)
	is.Equal(listOf(t, api.do("GET", "/v1/deliverables", "p2 only")).Meta.Total, 0)
	is.Equal(listOf(t, api.do("GET", "/v1/invoices", "p2 only")).Meta.Total, 0) // p2's invoices stay, without it
	is.Equal(api.do("GET", "/v1/projects/p2", "p2 only").Code, 404)
}
