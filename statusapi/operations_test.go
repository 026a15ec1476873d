package statusapi_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/statusapi"
)

// TestOperations: Operations lists the routes of Routes, each with its
// id and words, an MCP tool at most once, and what is deprecated.
func TestOperations(t *testing.T) {
	is := is.New(t)
	ops := statusapi.Operations(allOptIns()...)
	routes := statusapi.Routes(allOptIns()...)
	is.Equal(len(ops), len(routes))
	tools := map[string]bool{}
	for i, op := range ops {
		is.Equal(op.Path, routes[i])             // in the order of Routes
		is.True(op.ID != "" && op.Summary != "") // its id and words
		is.True(!op.Deprecated)                  // nothing of v1 is deprecated
		if op.Tool != "" {
			is.True(!tools[op.Tool]) // a tool answers with one route
			tools[op.Tool] = true
		}
	}
	is.True(tools["list_projects"] && tools["get_invoice"])

	for _, op := range statusapi.Operations(statusapi.WithDeprecation("/v1/rate_limit", "", "", deprecatedSince, sunset, notice)) {
		is.Equal(op.Deprecated, op.Path == "/v1/rate_limit") // a test's deprecation, on its route only
	}
}

// TestOperationParamsAreParsed: the query parameters Operations lists
// for a route are the ones its handler accepts, no more and no fewer: an
// unknown parameter is refused with the route's accepted names.
func TestOperationParamsAreParsed(t *testing.T) {
	api := newTestAPI(t)
	examples := map[string]string{}
	for _, rt := range statusapi.RouteTable() {
		examples[rt.Pattern] = rt.Example
	}
	for _, op := range statusapi.Operations() {
		example := examples[op.Path]
		if example == "" {
			continue // a public route: its parameters are a signed link's
		}
		t.Run(op.Path, func(t *testing.T) {
			is := is.New(t)
			var want []string
			for _, p := range op.Params {
				if p.In == "query" {
					want = append(want, p.Name)
				}
			}
			sep := "?"
			if strings.Contains(example, "?") {
				sep = "&"
			}
			res := api.do("GET", example+sep+"zz=1", "a")
			is.Equal(res.Code, 400)
			e := errorOf(t, res)
			is.Equal(e.Error.Param, "zz")
			var got []string
			if _, accepts, ok := strings.Cut(e.Error.Message, "this route accepts "); ok {
				got = strings.Split(accepts, ", ")
			}
			slices.Sort(want)
			slices.Sort(got)
			is.Equal(got, want) // the names the handler accepts
		})
	}
}
