package statusapi_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/matryer/is"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestGoldenBodies compares whole response bodies with testdata/*.json,
// pretty-printed there for review; go test -run TestGoldenBodies -update
// rewrites them.
func TestGoldenBodies(t *testing.T) {
	api := newTestAPI(t)
	for _, tc := range []struct{ file, target string }{
		{"project.json", "/v1/projects/p1"},
		{"projects.json", "/v1/projects?limit=3"},
		{"milestones.json", "/v1/projects/p1/milestones"},
		{"deliverables.json", "/v1/deliverables"},
		{"invoices.json", "/v1/invoices?limit=5&page=4"},
		{"invoice.json", "/v1/invoices/i24?expand=project"},
		{"invalid_parameter.json", "/v1/invoices?limit=101"},
		{"not_found.json", "/v1/projects/pb"},
		{"unknown_route.json", "/v1/nope"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			is := is.New(t)
			res := api.do("GET", tc.target, "a", "X-Request-Id", "golden")
			var got bytes.Buffer
			is.NoErr(json.Indent(&got, res.Body.Bytes(), "", "  "))
			path := filepath.Join("testdata", tc.file)
			if *update {
				is.NoErr(os.WriteFile(path, got.Bytes(), 0o644))
			}
			want, err := os.ReadFile(path)
			is.NoErr(err)                        // golden file (run with -update to make it)
			is.Equal(got.String(), string(want)) // body as in the golden file
		})
	}
}
