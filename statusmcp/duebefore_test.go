package statusmcp_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/matryer/is"
)

// TestToolsTakeDueBefore calls the tools of the lists that take
// dueBefore with it: each answers as its route, and a bad one is the
// route's INVALID_PARAMETER.
func TestToolsTakeDueBefore(t *testing.T) {
	r, _ := newMemoryRig(t)
	stamp := func(d time.Duration) string { return now.Add(d).UTC().Format("2006-01-02T15:04:05Z") }
	bound, later := stamp(-time.Hour), stamp(40*24*time.Hour) // i3 is due at bound: exclusive
	for _, tc := range []toolCase{
		{"list_projects", map[string]any{"dueBefore": later}, "/v1/projects?dueBefore=" + later},
		{"list_milestones", map[string]any{"projectId": "p1", "dueBefore": bound}, "/v1/milestones?projectId=p1&dueBefore=" + bound},
		{"list_invoices", map[string]any{"status": "open", "dueBefore": bound}, "/v1/invoices?status=open&dueBefore=" + bound},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			is := is.New(t)
			want := get(r.h, r.key("a"), tc.route)
			is.Equal(want.Code, http.StatusOK)
			got := call(t, r.h, r.key("a"), tc.tool, tc.args)
			is.True(!got.IsError)
			is.Equal(jsonValue(t, got.StructuredContent), jsonValue(t, want.Body.Bytes()))     // the route's body
			is.True(len(jsonValue(t, want.Body.Bytes()).(map[string]any)["data"].([]any)) > 0) // something matched

			bad := call(t, r.h, r.key("a"), tc.tool, map[string]any{"dueBefore": "yesterday"})
			is.Equal(errorCode(t, bad), "INVALID_PARAMETER")
		})
	}
}
