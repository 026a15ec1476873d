package oasdiff_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// doc is an OpenAPI document as plain JSON values, for editing in a test.
type doc = map[string]any

// obj walks keys down from m, each step an object.
func obj(t *testing.T, m doc, keys ...string) doc {
	t.Helper()
	for _, k := range keys {
		next, ok := m[k].(map[string]any)
		if !ok {
			t.Fatalf("no object at %q in %v", k, keys)
		}
		m = next
	}
	return m
}

// baseline reads the published v1 document afresh.
func baseline(t *testing.T) doc {
	t.Helper()
	b, err := os.ReadFile("../../openapi/baseline/v1.json")
	if err != nil {
		t.Fatal(err)
	}
	var d doc
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// write saves d in a temporary file and answers its path.
func write(t *testing.T, d doc) string {
	t.Helper()
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.CreateTemp(t.TempDir(), "openapi-*.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
	return f.Name()
}

// check runs .ci/breaking on the baseline and a revision of it, and answers
// its output and whether it passed.
func check(t *testing.T, revision doc) (string, bool) {
	t.Helper()
	return checkFrom(t, "../../openapi/baseline/v1.json", write(t, revision))
}

// checkFrom runs .ci/breaking on two documents.
func checkFrom(t *testing.T, base, revision string) (string, bool) {
	t.Helper()
	cmd := exec.Command("bash", "../../.ci/breaking", base, revision)
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("running .ci/breaking: %v\n%s", err, out)
		}
		return string(out), false
	}
	return string(out), true
}

func TestBreakingChangesFail(t *testing.T) {
	cases := []struct {
		name string
		edit func(t *testing.T, d doc)
		rule string // the oasdiff finding expected in the output
	}{
		{
			name: "a response field removed",
			edit: func(t *testing.T, d doc) {
				project := obj(t, d, "components", "schemas", "Project")
				delete(obj(t, project, "properties"), "name")
				var required []any
				for _, r := range project["required"].([]any) {
					if r != "name" {
						required = append(required, r)
					}
				}
				project["required"] = required
			},
			rule: "response-required-property-removed",
		},
		{
			name: "a status value removed",
			edit: func(t *testing.T, d doc) {
				status := obj(t, d, "components", "schemas", "ProjectStatus")
				status["enum"] = []any{"planned", "in_progress", "on_hold", "completed"}
			},
			rule: "request-parameter-enum-value-removed",
		},
		{
			name: "a status value added",
			edit: func(t *testing.T, d doc) {
				status := obj(t, d, "components", "schemas", "ProjectStatus")
				status["enum"] = append(status["enum"].([]any), "archived")
			},
			rule: "response-property-enum-value-added",
		},
		{
			name: "a new required parameter",
			edit: func(t *testing.T, d doc) {
				get := obj(t, d, "paths", "/v1/projects", "get")
				get["parameters"] = append(get["parameters"].([]any), map[string]any{
					"name": "workspace", "in": "query", "required": true,
					"schema": map[string]any{"type": "string"},
				})
			},
			rule: "new-required-request-parameter",
		},
		{
			name: "a parameter removed",
			edit: func(t *testing.T, d doc) {
				get := obj(t, d, "paths", "/v1/projects", "get")
				get["parameters"] = get["parameters"].([]any)[1:]
			},
			rule: "request-parameter-removed",
		},
		{
			name: "a route removed",
			edit: func(t *testing.T, d doc) {
				delete(obj(t, d, "paths"), "/v1/rate_limit")
			},
			rule: "api-path-removed-without-deprecation",
		},
		{
			name: "a field made nullable",
			edit: func(t *testing.T, d doc) {
				obj(t, d, "components", "schemas", "Project", "properties")["name"] = map[string]any{
					"oneOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "null"}},
				}
			},
			rule: "response-property",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			d := baseline(t)
			c.edit(t, d)
			out, ok := check(t, d)
			is.True(!ok) // a breaking change fails the check
			is.True(strings.Contains(out, c.rule))
		})
	}
}

func TestAdditiveChangesPass(t *testing.T) {
	is := is.New(t)
	d := baseline(t)

	// A new optional query parameter.
	after := map[string]any{
		"name": "after", "in": "query", "description": "Cursor.",
		"schema": map[string]any{"type": "string"},
	}
	for _, method := range []string{"get", "head"} {
		op := obj(t, d, "paths", "/v1/projects", method)
		op["parameters"] = append(op["parameters"].([]any), after)
	}
	// A new nullable field, not required.
	obj(t, d, "components", "schemas", "Meta", "properties")["next"] = map[string]any{
		"oneOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "null"}},
	}
	// A new route.
	listMilestones, err := json.Marshal(obj(t, d, "paths", "/v1/projects"))
	is.NoErr(err)
	var route doc
	is.NoErr(json.Unmarshal(listMilestones, &route))
	obj(t, route, "get")["operationId"] = "listAllMilestones"
	obj(t, route, "head")["operationId"] = "listAllMilestonesHead"
	obj(t, d, "paths")["/v1/milestones"] = route
	// A route marked deprecated, with its sunset.
	rateLimit := obj(t, d, "paths", "/v1/rate_limit", "get")
	rateLimit["deprecated"] = true
	rateLimit["x-sunset"] = "2099-01-01"

	out, ok := check(t, d)
	is.True(ok) // additive changes pass
	is.True(strings.Contains(out, "endpoint-added"))
	is.True(strings.Contains(out, "new-optional-request-parameter"))
	is.True(strings.Contains(out, "response-optional-property-added"))
	is.True(strings.Contains(out, "endpoint-deprecated-with-sunset"))
}

// Within /v1 a deprecated route stays until /v2: oasdiff sanctions removing
// it after its sunset, the check does not.
func TestRemovalAfterDeprecationFails(t *testing.T) {
	is := is.New(t)
	d := baseline(t)
	for _, method := range []string{"get", "head"} {
		op, ok := obj(t, d, "paths", "/v1/rate_limit")[method].(map[string]any)
		if !ok {
			continue
		}
		op["deprecated"] = true
		op["x-sunset"] = "2020-01-01"
	}
	base := write(t, d)
	delete(obj(t, d, "paths"), "/v1/rate_limit")
	out, ok := checkFrom(t, base, write(t, d))
	is.True(!ok) // removed after its sunset, still breaking within /v1
	is.True(strings.Contains(out, "[endpoint-removed] get /v1/rate_limit"))
}

func TestTodaysDocumentPasses(t *testing.T) {
	is := is.New(t)
	out, err := exec.Command("bash", "../../.ci/breaking").CombinedOutput()
	is.NoErr(err) // openapi/openapi.json keeps every promise of the baseline
	t.Logf("%s", out)
}
