package statusmcp_test

import (
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/matryer/is"
)

// TestStructuredContentFitsTheOutputSchema validates each tool's
// structuredContent against the output schema tools/list gives it, as a
// client that checks them does (the CI's TypeScript client): nullable
// fields, expand=project (an object or null), a cursor's meta.next and
// syncedThrough, an event's data, for an unrestricted key and one
// restricted to a project.
func TestStructuredContentFitsTheOutputSchema(t *testing.T) {
	r, _ := newMemoryRig(t)
	cases := append([]toolCase{
		{"list_projects", map[string]any{"updatedSince": "2026-01-01T00:00:00Z", "limit": 1}, ""},
		{"list_invoices", map[string]any{"expand": "project"}, ""},
		{"get_invoice", map[string]any{"id": "i3", "expand": "project"}, ""},
		{"list_threads", map[string]any{"expand": "project"}, ""},
		{"list_deliverables", map[string]any{"updatedSince": "2026-01-01T00:00:00Z"}, ""},
		{"status_summary", map[string]any{}, ""},
	}, toolCases...)
	for _, key := range []string{"a", "p1"} {
		schemas := map[string]*jsonschema.Resolved{}
		for _, tl := range toolsList(t, r.h, r.key(key)) {
			raw, err := json.Marshal(tl.OutputSchema)
			is.New(t).NoErr(err)
			var s jsonschema.Schema
			is.New(t).NoErr(json.Unmarshal(raw, &s))
			schemas[tl.Name], err = s.Resolve(nil)
			is.New(t).NoErr(err) // a valid schema
		}
		for _, tc := range cases {
			args, _ := json.Marshal(tc.args)
			t.Run(key+" "+tc.tool+" "+string(args), func(t *testing.T) {
				is := is.New(t)
				res := call(t, r.h, r.key(key), tc.tool, tc.args)
				if res.IsError {
					return // the route's error: no structuredContent
				}
				var v any
				is.NoErr(json.Unmarshal(res.StructuredContent, &v))
				is.NoErr(schemas[tc.tool].Validate(v)) // the answer fits the schema
			})
		}
	}
}
