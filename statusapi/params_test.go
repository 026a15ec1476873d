package statusapi_test

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/store"
)

// listRoutes are the resources' lists that take a status, by example
// request, and the status values each accepts, as the handler's table
// declares them (see listRoute).
var listRoutes = func() map[string][]string {
	out := make(map[string][]string)
	for _, rt := range table {
		if rt.List && len(rt.Statuses) > 0 {
			out[rt.Example] = rt.Statuses
		}
	}
	return out
}()

// TestListRouteStatuses holds the statuses the table declares to the
// contract's, for the first lists.
func TestListRouteStatuses(t *testing.T) {
	is := is.New(t)
	is.Equal(listRoutes["/v1/projects"], []string{"planned", "in_progress", "on_hold", "completed", "cancelled"})
	is.Equal(listRoutes["/v1/projects/p1/milestones"], []string{"pending", "in_progress", "completed"})
	is.Equal(listRoutes["/v1/deliverables"], []string{"pending", "in_review", "approved", "rejected"})
	is.Equal(listRoutes["/v1/invoices"], []string{"draft", "open", "paid", "void"})
	is.Equal(listRoutes["/v1/threads"], []string{"open", "resolved"})
}

func TestInvalidParameters(t *testing.T) {
	api := newTestAPI(t)
	for path := range listRoutes {
		for _, tc := range []struct {
			query, param string
		}{
			{"page=0", "page"},
			{"page=-1", "page"},
			{"page=abc", "page"},
			{"page=", "page"},
			{"page", "page"},
			{"page=1&page=2", "page"},
			{"page=1.0", "page"},
			{"page=+1", "page"},
			{"page=01", "page"},
			{"page=1e3", "page"},
			{"page=%201", "page"},
			{"page=99999999999999999999", "page"},
			{"page=461168601842738791", "page"}, // page*limit would overflow an int64
			{"limit=0", "limit"},
			{"limit=101", "limit"},
			{"limit=-5", "limit"},
			{"limit=", "limit"},
			{"limit=ten", "limit"},
			{"limit=20&limit=20", "limit"},
			{"status=nope", "status"},
			{"status=", "status"},
			{"status=" + strings.ToUpper(listRoutes[path][0]), "status"},
			{"status=" + listRoutes[path][0] + "&status=" + listRoutes[path][0], "status"},
			{"Page=1", "Page"},
			{"per_page=10", "per_page"},
			{"offset=10", "offset"},
			{"sort=id", "sort"},
			{"page=1&foo=bar", "foo"},
			{"page=1;limit=2", "page"},
			{"%zz=1", "%zz"},
		} {
			t.Run(path+"?"+tc.query, func(t *testing.T) {
				is := is.New(t)
				res := api.do("GET", path+"?"+tc.query, "e")
				is.Equal(res.Code, 400)
				e := errorOf(t, res)
				is.Equal(e.Error.Code, "INVALID_PARAMETER")
				is.Equal(e.Error.Param, tc.param) // the parameter is named
			})
		}
	}
	for _, rt := range table {
		if !rt.List || rt.ProjectID {
			continue
		}
		path := rt.Example
		t.Run(path+" takes no projectId", func(t *testing.T) {
			is := is.New(t)
			e := errorOf(t, api.do("GET", path+"?projectId=p1", "e"))
			is.Equal(e.Error.Param, "projectId")
		})
	}
	for _, rt := range table {
		if !rt.List {
			continue
		}
		path := rt.Example
		if !rt.DueBefore {
			t.Run(path+" takes no dueBefore", func(t *testing.T) {
				is := is.New(t)
				e := errorOf(t, api.do("GET", path+"?dueBefore=2026-03-01T09:00:00Z", "e"))
				is.Equal(e.Error.Param, "dueBefore")
			})
			continue
		}
		for _, q := range []string{"dueBefore=", "dueBefore=2026-03-01", "dueBefore=2026-03-01T09:00:00", "dueBefore=2026-03-01T09:00:00.5Z",
			"dueBefore=2026-03-01T10:00:00%2B01:00", "dueBefore=2026-03-01t09:00:00z", "dueBefore=2026-02-30T09:00:00Z", "dueBefore=1772355600",
			"dueBefore=2026-03-01T09:00:00Z&dueBefore=2026-03-01T09:00:00Z", "duebefore=2026-03-01T09:00:00Z"} {
			t.Run(path+"?"+q, func(t *testing.T) {
				is := is.New(t)
				res := api.do("GET", path+"?"+q, "e")
				is.Equal(res.Code, 400)
				e := errorOf(t, res)
				is.Equal(e.Error.Code, "INVALID_PARAMETER")
				is.Equal(e.Error.Param, strings.Split(q, "=")[0]) // the parameter is named
			})
		}
	}
	for _, path := range []string{"/v1/projects/p1", "/v1/deliverables/d1/download"} {
		t.Run(path+" takes no parameters", func(t *testing.T) {
			is := is.New(t)
			for _, q := range []string{"page=1", "limit=1", "x=1"} {
				res := api.do("GET", path+"?"+q, "e")
				is.Equal(res.Code, 400)
				is.Equal(errorOf(t, res).Error.Param, strings.Split(q, "=")[0])
			}
		})
	}
}

func TestInvalidParameterMessages(t *testing.T) {
	api := newTestAPI(t)
	for _, tc := range []struct{ target, message string }{
		{"/v1/projects?status=x", "status must be one of planned, in_progress, on_hold, completed, cancelled"},
		{"/v1/invoices?status=PAID", "status must be one of draft, open, paid, void"},
		{"/v1/invoices?limit=101", "limit must be a whole number from 1 to 100"},
		{"/v1/invoices?sort=id", `unknown parameter "sort": this route accepts page, limit, status, projectId, dueBefore, updatedSince, after, expand`},
		{"/v1/projects/p1?x=1", `unknown parameter "x": this route takes no query parameters`},
	} {
		t.Run(tc.target, func(t *testing.T) {
			is := is.New(t)
			is.Equal(errorOf(t, api.do("GET", tc.target, "e")).Error.Message, tc.message) // says what is allowed
		})
	}
}

func TestPagingAndFilters(t *testing.T) {
	api := newTestAPIWith(t, unlimited)
	for _, tc := range []struct {
		target               string
		page, perPage, total int
		ids                  []string
	}{
		{"/v1/invoices", 1, 20, 25, invoiceIDs(25, 6)},
		{"/v1/invoices?page=2", 2, 20, 25, invoiceIDs(5, 1)},
		{"/v1/invoices?page=3", 3, 20, 25, []string{}}, // past the end: empty, true total
		{"/v1/invoices?page=1000000", 1000000, 20, 25, []string{}},
		{"/v1/invoices?limit=100", 1, 100, 25, invoiceIDs(25, 1)},
		{"/v1/invoices?limit=1", 1, 1, 25, []string{"i25"}},
		{"/v1/invoices?limit=10&page=3", 3, 10, 25, invoiceIDs(5, 1)},
		{"/v1/invoices?page=2&limit=10", 2, 10, 25, invoiceIDs(15, 6)},
		{"/v1/invoices?status=paid&limit=100", 1, 100, invoicesWithStatus(store.InvoicePaid), nil},
		{"/v1/invoices?projectId=p1&limit=100", 1, 100, 20, nil},
		{"/v1/invoices?projectId=nope", 1, 20, 0, []string{}}, // unknown project: empty page
		{"/v1/invoices?projectId=pb", 1, 20, 0, []string{}},   // another org's project: empty page
		{"/v1/invoices?status=void&projectId=p1&limit=100", 1, 100, invoicesWithStatus(store.InvoiceVoid) - 1, nil},
		{"/v1/invoices?&page=1&&", 1, 20, 25, invoiceIDs(25, 6)}, // empty pairs name nothing
		{"/v1/projects", 1, 20, 5, []string{"p2", "p4", "p1", "p3", "p5"}},
		{"/v1/projects?status=in_progress", 1, 20, 1, []string{"p1"}},
		{"/v1/projects?status=on_hold", 1, 20, 1, []string{"p3"}},
		{"/v1/projects?limit=2&page=2", 2, 2, 5, []string{"p1", "p3"}},
		{"/v1/projects/p1/milestones", 1, 20, 3, []string{"m2", "m1", "m3"}},
		{"/v1/projects/p1/milestones?status=completed", 1, 20, 2, []string{"m2", "m1"}},
		{"/v1/projects/p2/milestones", 1, 20, 0, []string{}}, // a project with none
		{"/v1/deliverables", 1, 20, 3, []string{"d3", "d1", "d2"}},
		{"/v1/deliverables?status=approved", 1, 20, 1, []string{"d1"}},
		{"/v1/deliverables?projectId=p2", 1, 20, 1, []string{"d3"}},
		{"/v1/deliverables?projectId=nope", 1, 20, 0, []string{}},
		{"/v1/deliverables?projectId=p1&status=rejected", 1, 20, 0, []string{}},
	} {
		t.Run(tc.target, func(t *testing.T) {
			is := is.New(t)
			l := listOf(t, api.do("GET", tc.target, "a"))
			is.Equal(l.Meta.Page, tc.page)       // meta.page is the page served
			is.Equal(l.Meta.PerPage, tc.perPage) // meta.per_page is the effective limit
			is.Equal(l.Meta.Total, tc.total)     // meta.total counts every match
			if tc.ids != nil {
				is.Equal(l.ids(), tc.ids) // items and order
			} else {
				is.Equal(len(l.Data), tc.total) // one page holds them all
			}
			u, _ := url.Parse(tc.target)
			if s := u.Query().Get("status"); s != "" {
				for _, it := range l.Data {
					is.Equal(it["status"], s) // the filter holds
				}
			}
		})
	}
}

// invoiceIDs returns the ids of invoices from..to, newest (highest) first.
func invoiceIDs(from, to int) []string {
	var out []string
	for n := from; n >= to; n-- {
		out = append(out, invoiceID(n))
	}
	return out
}

func TestWalkingPagesReturnsEveryItemOnce(t *testing.T) {
	api := newTestAPIWith(t, unlimited)
	for path, want := range map[string]int{"/v1/invoices": 25, "/v1/projects": 5, "/v1/deliverables": 3, "/v1/projects/p1/milestones": 3} {
		for _, limit := range []int{1, 2, 7, 100} {
			t.Run(fmt.Sprint(path, limit), func(t *testing.T) {
				is := is.New(t)
				var seen []string
				for page := 1; ; page++ {
					l := listOf(t, api.do("GET", fmt.Sprintf("%s?limit=%d&page=%d", path, limit, page), "a2"))
					is.Equal(l.Meta.Total, want)
					if len(l.Data) == 0 {
						break
					}
					is.True(len(l.Data) <= limit)
					seen = append(seen, l.ids()...)
				}
				is.Equal(len(seen), want) // every item
				sorted := slices.Clone(seen)
				slices.Sort(sorted)
				is.Equal(len(slices.Compact(sorted)), want) // exactly once
			})
		}
	}
}
