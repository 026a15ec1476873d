package openapi_test

import (
	"context"
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/envelope"
	"github.com/clientstatus/clientstatus/openapi"
	"github.com/clientstatus/clientstatus/store"
)

func load(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(openapi.JSON())
	if err != nil {
		t.Fatalf("the document does not load: %v", err)
	}
	return doc
}

func TestJSONIsACopy(t *testing.T) {
	is := is.New(t)
	a := openapi.JSON()
	a[0] = 'x'
	is.Equal(openapi.JSON()[0], byte('{')) // changing one copy leaves the document alone
	is.True(json.Valid(openapi.JSON()))
}

// TestValidates runs kin-openapi's structural validation of the document.
// kin-openapi v0.135 validates schemas by OpenAPI 3.0 rules and refuses
// the 3.1 type "null" (`"type": ["string", "null"]`), though it loads it
// and validates values against it correctly. So the check runs on a copy
// in which each such type is rewritten to its 3.0 equivalent (the other
// type plus nullable: true); everything else is validated as written.
// .ci/lint-openapi validates the document as 3.1, unchanged.
func TestValidates(t *testing.T) {
	doc := load(t)
	nulls := 0
	seen := make(map[*openapi3.Schema]bool)
	for _, s := range doc.Components.Schemas {
		nulls += nullableAs30(s, seen)
	}
	if nulls == 0 {
		t.Fatal("no nullable field found: the walk is broken or the document changed")
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// nullableAs30 rewrites type [T, "null"] as type T, nullable in s and the
// schemas under it, and returns how many it rewrote.
func nullableAs30(ref *openapi3.SchemaRef, seen map[*openapi3.Schema]bool) int {
	if ref == nil || ref.Value == nil || seen[ref.Value] {
		return 0
	}
	s := ref.Value
	seen[s] = true
	n := 0
	if s.Type != nil && s.Type.Includes(openapi3.TypeNull) {
		var rest openapi3.Types
		for _, typ := range s.Type.Slice() {
			if typ != openapi3.TypeNull {
				rest = append(rest, typ)
			}
		}
		s.Type, s.Nullable = &rest, true
		n++
	}
	for _, p := range s.Properties {
		n += nullableAs30(p, seen)
	}
	n += nullableAs30(s.Items, seen)
	for _, list := range []openapi3.SchemaRefs{s.AllOf, s.AnyOf, s.OneOf} {
		for _, sub := range list {
			n += nullableAs30(sub, seen)
		}
	}
	return n
}

// routes are the contract's routes, as registered in statusapi/routes.go
// (which exports no list of them) plus the document's own route.
var routes = []string{
	"/v1/projects",
	"/v1/projects/{id}",
	"/v1/projects/{id}/milestones",
	"/v1/deliverables",
	"/v1/deliverables/{id}/download",
	"/v1/deliverables/{id}/file",
	"/v1/invoices",
	"/v1/openapi.json",
}

func TestEveryRouteIsDocumented(t *testing.T) {
	is := is.New(t)
	doc := load(t)
	var paths []string
	for p, item := range doc.Paths.Map() {
		paths = append(paths, p)
		ops := item.Operations()
		is.Equal(len(ops), 1) // every route is one GET operation (HEAD is implied)
		is.True(ops["GET"] != nil)
	}
	sort.Strings(paths)
	want := slices.Clone(routes)
	sort.Strings(want)
	is.Equal(paths, want) // the document lists exactly the handler's routes
}

func TestSecurity(t *testing.T) {
	is := is.New(t)
	doc := load(t)
	is.Equal(doc.Components.SecuritySchemes["bearerAuth"].Value.Scheme, "bearer")
	is.Equal(len(doc.Security), 1) // bearer auth by default
	for _, p := range []string{"/v1/deliverables/{id}/file", "/v1/openapi.json"} {
		sec := doc.Paths.Value(p).Get.Security
		is.True(sec != nil && len(*sec) == 0) // no key needed
	}
}

// TestErrorCodes checks the document against envelope's catalogue: every
// code is in the ErrorCode enum, and its status is documented.
func TestErrorCodes(t *testing.T) {
	is := is.New(t)
	doc := load(t)
	codes := []envelope.Code{
		envelope.InvalidParameter, envelope.Unauthorized, envelope.Forbidden,
		envelope.LinkExpired, envelope.InvalidSignature, envelope.NotFound,
		envelope.MethodNotAllowed, envelope.FileNotAvailable, envelope.RateLimited,
		envelope.Internal, envelope.Unavailable,
	}
	var want []any
	statuses := make(map[string]bool)
	for _, item := range doc.Paths.Map() {
		for code := range item.Get.Responses.Map() {
			statuses[code] = true
		}
	}
	statuses["405"] = doc.Components.Responses["MethodNotAllowed"] != nil
	for _, c := range codes {
		want = append(want, string(c))
		is.True(statuses[strconv.Itoa(c.Status())]) // the code's status is documented
	}
	is.Equal(doc.Components.Schemas["ErrorCode"].Value.Enum, want)
}

// TestStatusEnums checks the status enums against the store's.
func TestStatusEnums(t *testing.T) {
	is := is.New(t)
	doc := load(t)
	enum := func(name string) []any { return doc.Components.Schemas[name].Value.Enum }
	is.Equal(enum("ProjectStatus"), anys(store.ProjectStatuses))
	is.Equal(enum("MilestoneStatus"), anys(store.MilestoneStatuses))
	is.Equal(enum("DeliverableStatus"), anys(store.DeliverableStatuses))
	is.Equal(enum("InvoiceStatus"), anys(store.InvoiceStatuses))
}

func anys[S ~string](in []S) []any {
	out := make([]any, len(in))
	for i, s := range in {
		out[i] = string(s)
	}
	return out
}

// TestListBounds checks the documented bounds of the paging parameters
// against the store's.
func TestListBounds(t *testing.T) {
	is := is.New(t)
	doc := load(t)
	limit := doc.Components.Parameters["Limit"].Value.Schema.Value
	is.Equal(*limit.Min, 1.0)
	is.Equal(*limit.Max, float64(store.MaxLimit))
	is.Equal(limit.Default, float64(store.DefaultLimit))
	page := doc.Components.Parameters["Page"].Value.Schema.Value
	is.Equal(*page.Min, 1.0)
	is.Equal(page.Default, 1.0)
}
