package statusapi_test

import (
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
