package statusapi_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/files"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/openapi"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/store"
)

// itemOf decodes a single-item answer: data only, an object.
func itemOf(t *testing.T, res *httptest.ResponseRecorder) map[string]any {
	t.Helper()
	is := is.New(t)
	is.Equal(res.Code, 200)
	var body map[string]map[string]any
	is.NoErr(json.Unmarshal(res.Body.Bytes(), &body))
	is.Equal(len(body), 1) // data only
	return body["data"]
}

// listed finds the item with id in a list answer.
func listed(t *testing.T, res *httptest.ResponseRecorder, id string) map[string]any {
	t.Helper()
	for _, it := range listOf(t, res).Data {
		if it["id"] == id {
			return it
		}
	}
	t.Fatalf("no item %q in the list", id)
	return nil
}

// TestSingleItems checks that each single-item route answers the item
// exactly as its list does, and 404 for what the caller may not see.
func TestSingleItems(t *testing.T) {
	api := newTestAPIWith(t, unlimited)
	for _, tc := range []struct{ get, list, id string }{
		{"/v1/milestones/m1", "/v1/projects/p1/milestones", "m1"},
		{"/v1/deliverables/d1", "/v1/deliverables", "d1"},
		{"/v1/deliverables/d2", "/v1/deliverables", "d2"}, // no file: null fields
		{"/v1/invoices/i24", "/v1/invoices?limit=100", "i24"},
		{"/v1/invoices/i20", "/v1/invoices?limit=100", "i20"}, // a retainer invoice
		{"/v1/invoices/i22", "/v1/invoices?limit=100", "i22"}, // no document
		{"/v1/messages/msg2", "/v1/messages", "msg2"},         // with an attachment
		{"/v1/messages/msg4", "/v1/messages", "msg4"},         // edited, of an organization-wide thread
	} {
		t.Run(tc.get, func(t *testing.T) {
			is := is.New(t)
			got := itemOf(t, api.do("GET", tc.get, "a"))
			is.Equal(got, listed(t, api.do("GET", tc.list, "a"), tc.id)) // the item as its list has it
		})
	}
	t.Run("documentAvailable", func(t *testing.T) {
		is := is.New(t)
		is.Equal(itemOf(t, api.do("GET", "/v1/invoices/i24", "a"))["documentAvailable"], true)
		is.Equal(itemOf(t, api.do("GET", "/v1/invoices/i23", "a"))["documentAvailable"], true) // a key is set, whatever the source holds
		is.Equal(itemOf(t, api.do("GET", "/v1/invoices/i22", "a"))["documentAvailable"], false)
	})
	t.Run("not found", func(t *testing.T) {
		for _, tc := range []struct{ target, key, why string }{
			{"/v1/milestones/nope", "a", "unknown"},
			{"/v1/milestones/p1", "a", "a project's id"},
			{"/v1/milestones/m1", "b", "another organization's"},
			{"/v1/milestones/m1", "p2 only", "outside the key's projects"},
			{"/v1/deliverables/db", "a", "another organization's"},
			{"/v1/deliverables/d3", "p1 only", "outside the key's projects"},
			{"/v1/deliverables/nope", "a", "unknown"},
			{"/v1/invoices/nope", "a", "unknown"},
			{"/v1/invoices/i24", "p2 only", "outside the key's projects"},
			{"/v1/invoices/i20", "p1 only", "a retainer invoice, to a key restricted to projects"},
			{"/v1/invoices/i20/document", "p1 only", "a retainer invoice's document, to a key restricted to projects"},
			{"/v1/invoices/nope/document", "a", "unknown"},
			{"/v1/messages/nope", "a", "unknown"},
			{"/v1/messages/msg3", "a", "an internal message"},
			{"/v1/messages/msg5", "a", "a message of an internal thread"},
			{"/v1/messages/msg1", "p2 only", "outside the key's projects"},
			{"/v1/messages/msg4", "p1 only", "of an organization-wide thread, to a key restricted to projects"},
			{"/v1/messages/t1", "a", "a thread's id"},
		} {
			t.Run(tc.why+" "+tc.target+" "+tc.key, func(t *testing.T) {
				is := is.New(t)
				res := api.do("GET", tc.target, tc.key)
				is.Equal(res.Code, 404) // answers as an id that does not exist
				is.Equal(errorOf(t, res).Error.Code, "NOT_FOUND")
			})
		}
		// Org b's i01 is its own, not org_a's i01.
		is := is.New(t)
		is.Equal(itemOf(t, api.do("GET", "/v1/invoices/i01", "b"))["number"], "B-1")
	})
	t.Run("deleted", func(t *testing.T) {
		is := is.New(t)
		ctx := context.Background()
		is.NoErr(api.store.DeleteMilestone(ctx, "org_a", "m3"))
		is.Equal(api.do("GET", "/v1/milestones/m3", "a").Code, 404)
		is.NoErr(api.store.DeleteInvoice(ctx, "org_a", "i21"))
		is.Equal(api.do("GET", "/v1/invoices/i21", "a").Code, 404)
		is.NoErr(api.store.DeleteMessage(ctx, "org_a", "msg1"))
		is.Equal(api.do("GET", "/v1/messages/msg1", "a").Code, 404)
	})
	t.Run("a change shows at once", func(t *testing.T) {
		is := is.New(t)
		first := api.do("GET", "/v1/milestones/m2", "a")
		is.Equal(first.Code, 200)
		m, err := api.store.GetMilestone(context.Background(), "org_a", "m2")
		is.NoErr(err)
		m.Name = "Kick-off (moved)"
		is.NoErr(api.store.PutMilestone(context.Background(), m))
		second := api.do("GET", "/v1/milestones/m2", "a", "If-None-Match", first.Header().Get("ETag"))
		is.Equal(second.Code, 200) // a changed item is not 304
		is.Equal(itemOf(t, second)["name"], "Kick-off (moved)")
	})
}

// TestSingleItemParameters: single items take expand (milestones,
// deliverables, invoices, threads) and nothing else.
func TestSingleItemParameters(t *testing.T) {
	api := newTestAPIWith(t, unlimited)
	for _, tc := range []struct{ target, param string }{
		{"/v1/milestones/m1?x=1", "x"},
		{"/v1/deliverables/d1?page=1", "page"},
		{"/v1/invoices/i24?status=paid", "status"},
		{"/v1/messages/msg1?expand=project", "expand"}, // messages have no project to expand
		{"/v1/invoices/i24/document?expand=project", "expand"},
		{"/v1/milestones/m1?expand=projects", "expand"},
		{"/v1/invoices/i24?expand=Project", "expand"},
		{"/v1/deliverables/d1?expand=project,thread", "expand"},
		{"/v1/threads/t1?expand=", "expand"},
		{"/v1/invoices?expand=project&expand=project", "expand"},
		{"/v1/deliverables?expand=owner", "expand"},
		{"/v1/projects/p1?expand=project", "expand"}, // a project is not expanded
		{"/v1/messages?expand=project", "expand"},
	} {
		t.Run(tc.target, func(t *testing.T) {
			is := is.New(t)
			res := api.do("GET", tc.target, "a")
			is.Equal(res.Code, 400)
			e := errorOf(t, res)
			is.Equal(e.Error.Code, "INVALID_PARAMETER")
			is.Equal(e.Error.Param, tc.param) // names the parameter
		})
	}
}

// TestEveryExpandRefusesAnUnknownOne walks every route whose OpenAPI
// operation documents expand: an unknown value is 400 INVALID_PARAMETER
// naming it, as the document says, on each route's example request, so
// that a new resource's routes are held to it without a case of their own.
func TestEveryExpandRefusesAnUnknownOne(t *testing.T) {
	type param struct {
		Ref string `json:"$ref"`
	}
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	is.New(t).NoErr(json.Unmarshal(openapi.JSON(), &doc))
	api := newTestAPIWith(t, unlimited)
	walked := 0
	for _, rt := range routeTable() {
		var get struct{ Parameters []param }
		if op := doc.Paths[rt.Pattern]["get"]; op != nil {
			is.New(t).NoErr(json.Unmarshal(op, &get))
		}
		takes := slices.Contains(get.Parameters, param{"#/components/parameters/" + statusapi.ExpandComponent})
		if !takes || rt.Example == "" {
			continue
		}
		walked++
		t.Run(rt.Pattern, func(t *testing.T) {
			is := is.New(t)
			sep := "?"
			if strings.Contains(rt.Example, "?") {
				sep = "&"
			}
			res := api.do("GET", rt.Example+sep+"expand=nothing", "a")
			is.Equal(res.Code, 400)
			e := errorOf(t, res)
			is.Equal(e.Error.Code, "INVALID_PARAMETER")
			is.Equal(e.Error.Param, "expand")
		})
	}
	is.New(t).True(walked >= 8) // the lists and items of milestones, deliverables, invoices and threads
}

// TestExpandProject checks expand=project on every route that takes it.
func TestExpandProject(t *testing.T) {
	api := newTestAPIWith(t, unlimited)
	p1 := map[string]any{"id": "p1", "name": "Website", "status": "in_progress"}
	p2 := map[string]any{"id": "p2", "name": "App", "status": "planned"}
	t.Run("lists and items", func(t *testing.T) {
		for _, tc := range []struct {
			target string
			want   map[string]any // by item id; nil is null
		}{
			{"/v1/projects/p1/milestones?expand=project", map[string]any{"m1": p1, "m2": p1, "m3": p1}},
			{"/v1/deliverables?expand=project", map[string]any{"d1": p1, "d2": p1, "d3": p2}},
			{"/v1/invoices?limit=6&expand=project", map[string]any{"i25": nil, "i24": p1, "i23": p1, "i22": p1, "i21": p1, "i20": nil}},
			{"/v1/threads?expand=project", map[string]any{"t1": p1, "t2": nil, "t4": p2}},
		} {
			t.Run(tc.target, func(t *testing.T) {
				is := is.New(t)
				l := listOf(t, api.do("GET", tc.target, "a"))
				is.Equal(len(l.Data), len(tc.want))
				for _, it := range l.Data {
					want, ok := tc.want[it["id"].(string)]
					is.True(ok)                   // an expected item
					is.Equal(it["project"], want) // its project, or null
					_, has := it["project"]
					is.True(has) // null is sent, never omitted
					plain := listed(t, api.do("GET", strings.Split(tc.target, "?")[0]+"?limit=100", "a"), it["id"].(string))
					_, had := plain["project"]
					is.True(!had) // without expand, no project key
					delete(it, "project")
					is.Equal(it, plain) // the rest as without expand
				}
			})
		}
		for _, tc := range []struct {
			target string
			want   any
		}{
			{"/v1/milestones/m1?expand=project", p1},
			{"/v1/deliverables/d3?expand=project", p2},
			{"/v1/invoices/i24?expand=project", p1},
			{"/v1/invoices/i20?expand=project", nil},
			{"/v1/threads/t1?expand=project", p1},
			{"/v1/threads/t2?expand=project", nil},
		} {
			t.Run(tc.target, func(t *testing.T) {
				is := is.New(t)
				got := itemOf(t, api.do("GET", tc.target, "a"))
				v, has := got["project"]
				is.True(has) // the key is there, null or not
				is.Equal(v, tc.want)
				plain := itemOf(t, api.do("GET", strings.Split(tc.target, "?")[0], "a"))
				_, had := plain["project"]
				is.True(!had) // without expand, no project key
			})
		}
	})
	t.Run("what the key may not see is null", func(t *testing.T) {
		is := is.New(t)
		// invoices:read only: the key may read no project at all.
		for _, it := range listOf(t, api.do("GET", "/v1/invoices?limit=5&expand=project", "invoices:read")).Data {
			is.Equal(it["project"], nil) // a key without projects:read sees no project
		}
		// The same request with a key that may read projects, after it:
		// the cache does not serve the first one's answer.
		l := listOf(t, api.do("GET", "/v1/invoices?limit=5&expand=project", "a"))
		is.Equal(l.Data[1]["project"], p1)
		// A key restricted to p1 expands p1.
		d := itemOf(t, api.do("GET", "/v1/deliverables/d1?expand=project", "p1 only"))
		is.Equal(d["project"], p1)
	})
	t.Run("one store read per page", func(t *testing.T) {
		is := is.New(t)
		var counted *projectReads
		s := unlimited
		s.wrap = func(st store.Store) store.Store {
			counted = &projectReads{Store: st.(*memstore.Store)}
			return counted
		}
		c := newTestAPIWith(t, s)
		listOf(t, c.do("GET", "/v1/invoices?limit=100&expand=project", "a"))
		is.Equal(counted.many.Load(), int64(1)) // one read for 25 invoices
		is.Equal(counted.one.Load(), int64(0))  // never one per item
		listOf(t, c.do("GET", "/v1/invoices?limit=100", "a"))
		is.Equal(counted.many.Load(), int64(1)) // none without expand
	})
	t.Run("a project change shows at once", func(t *testing.T) {
		is := is.New(t)
		ctx := context.Background()
		first := itemOf(t, api.do("GET", "/v1/milestones/m1?expand=project", "a"))
		is.Equal(first["project"], p1)
		p, err := api.store.GetProject(ctx, "org_a", "p1")
		is.NoErr(err)
		p.Name = "Website v2"
		is.NoErr(api.store.PutProject(ctx, p))
		got := itemOf(t, api.do("GET", "/v1/milestones/m1?expand=project", "a"))
		is.Equal(got["project"].(map[string]any)["name"], "Website v2") // not a cached answer
	})
}

// projectReads counts the project reads of expand: a memstore.Store in
// all else.
type projectReads struct {
	*memstore.Store
	many, one atomic.Int64
}

func (s *projectReads) GetProjects(ctx context.Context, org string, ids []string) ([]store.Project, error) {
	s.many.Add(1)
	return s.Store.GetProjects(ctx, org, ids)
}

func (s *projectReads) GetProject(ctx context.Context, org, id string) (store.Project, error) {
	s.one.Add(1)
	return s.Store.GetProject(ctx, org, id)
}

// TestInvoiceDocument checks the invoice document's signed link, exactly
// as a deliverable's download.
func TestInvoiceDocument(t *testing.T) {
	api := newTestAPIWith(t, unlimited)
	u, expiresAt := api.downloadLink("/v1/invoices/i24/document")
	t.Run("link", func(t *testing.T) {
		is := is.New(t)
		is.Equal(u.Path, "/v1/invoices/i24/file")
		is.Equal(expiresAt, now.Add(15*time.Minute).Format(time.RFC3339)) // 15 minutes, as a deliverable's
		res := api.do("GET", "/v1/invoices/i24/document", "a")
		is.Equal(res.Header().Get("Cache-Control"), "no-store") // a credential
		is.Equal(res.Header().Get("ETag"), "")
	})
	t.Run("GET", func(t *testing.T) {
		is := is.New(t)
		res := api.fetch("GET", u)
		is.Equal(res.Code, 200)
		is.Equal(res.Body.String(), invoiceDocument)
		is.Equal(res.Header().Get("Content-Type"), "application/pdf")
		is.Equal(res.Header().Get("Content-Disposition"), "attachment; filename=invoice-INV-24.pdf")
		is.Equal(api.fetch("HEAD", u).Code, 200)
		is.Equal(api.fetch("GET", u, "Range", "bytes=0-3").Code, 206)
		is.Equal(api.fetch("GET", u, "Range", "bytes=999-").Code, 416)
		is.Equal(api.fetch("GET", u, "If-Match", `"x"`).Code, 412)
	})
	t.Run("a retainer invoice's", func(t *testing.T) {
		is := is.New(t)
		r, _ := api.downloadLink("/v1/invoices/i20/document")
		is.Equal(api.fetch("GET", r).Body.String(), invoiceDocument)
	})
	t.Run("refused", func(t *testing.T) {
		is := is.New(t)
		d, _ := api.link("d1")
		res := api.do("GET", "/v1/invoices/d1/file?"+d.RawQuery, "")
		is.Equal(res.Code, 403) // a deliverable's link does not open an invoice's document
		is.Equal(errorOf(t, res).Error.Code, "INVALID_SIGNATURE")
		res = api.do("GET", "/v1/invoices/i20/file?"+u.RawQuery, "")
		is.Equal(errorOf(t, res).Error.Code, "INVALID_SIGNATURE") // another invoice's signature
		api.clock.Set(now.Add(16 * time.Minute))
		defer api.clock.Set(now)
		res = api.fetch("GET", u)
		is.Equal(res.Code, 403)
		is.Equal(errorOf(t, res).Error.Code, "LINK_EXPIRED")
	})
	t.Run("no document", func(t *testing.T) {
		is := is.New(t)
		res := api.do("GET", "/v1/invoices/i22/document", "a")
		is.Equal(res.Code, 409)
		e := errorOf(t, res)
		is.Equal(e.Error.Code, "FILE_NOT_AVAILABLE")
		is.Equal(e.Error.Message, "this invoice has no document")
		is.Equal(api.do("GET", "/v1/invoices/i22/document?x=1", "a").Code, 400)
	})
	t.Run("document missing from the source", func(t *testing.T) {
		is := is.New(t)
		m, _ := api.downloadLink("/v1/invoices/i23/document")
		res := api.fetch("GET", m)
		is.Equal(res.Code, 409)
		is.True(strings.Contains(api.logs.String(), "invoice_id=i23")) // logged for the operator
	})
	t.Run("not modified", func(t *testing.T) {
		is := is.New(t)
		modified := time.Date(2026, 2, 1, 12, 0, 0, 0, time.UTC)
		src := files.FromFS(fstest.MapFS{"invoices/i24.pdf": {Data: []byte(invoiceDocument), ModTime: modified}})
		api := newTestAPI(t, statusapi.WithFiles(src))
		u, _ := api.downloadLink("/v1/invoices/i24/document")
		is.Equal(api.fetch("GET", u, "If-Modified-Since", modified.Format(http1123)).Code, 304) // unchanged since
	})
	t.Run("document taken away, then the invoice deleted", func(t *testing.T) {
		is := is.New(t)
		ctx := context.Background()
		inv, err := api.store.GetInvoice(ctx, "org_a", "i24")
		is.NoErr(err)
		inv.DocumentKey = ""
		is.NoErr(api.store.PutInvoice(ctx, inv))
		is.Equal(api.fetch("GET", u).Code, 409) // FILE_NOT_AVAILABLE
		is.NoErr(api.store.DeleteInvoice(ctx, "org_a", "i24"))
		res := api.fetch("GET", u)
		is.Equal(res.Code, 404)
		is.Equal(errorOf(t, res).Error.Code, "NOT_FOUND")
	})
}
