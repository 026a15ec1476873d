package openapi_test

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/envelope"
	"github.com/clientstatus/clientstatus/internal/test/gosource"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/openapi"
	"github.com/clientstatus/clientstatus/statusapi"
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

// TestValidates runs kin-openapi's structural validation of the document,
// as written: kin-openapi reads it as OpenAPI 3.1.
func TestValidates(t *testing.T) {
	if err := load(t).Validate(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestNullableForm pins how the document says "or null": as
// {"oneOf": [schema, {"type": "null"}]}, never as a type array
// ("type": ["string", "null"]). Both are OpenAPI 3.1; older ogen releases
// (v1.18, for one) cannot read type arrays, and every generator
// .ci/generators checks reads the oneOf form (see docs/openapi.md, "Generated
// clients").
func TestNullableForm(t *testing.T) {
	var doc any
	if err := json.Unmarshal(openapi.JSON(), &doc); err != nil {
		t.Fatal(err)
	}
	nullable := 0
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if _, ok := v["type"].([]any); ok {
				t.Errorf("%s: a type array; write {\"oneOf\": [schema, {\"type\": \"null\"}]}", path)
			}
			if branches, ok := v["oneOf"].([]any); ok {
				for _, b := range branches {
					if m, ok := b.(map[string]any); ok && m["type"] == "null" {
						nullable++
						if len(branches) != 2 || len(m) != 1 {
							t.Errorf("%s: a nullable oneOf is [schema, {\"type\": \"null\"}]", path)
						}
					}
				}
			}
			for k, sub := range v {
				walk(path+"/"+k, sub)
			}
		case []any:
			for i, sub := range v {
				walk(path+"/"+strconv.Itoa(i), sub)
			}
		}
	}
	walk("#", doc)
	if nullable == 0 {
		t.Fatal("no nullable field found: the walk is broken or the document changed")
	}
}

// TestExamples checks the examples: the main schemas (what a response
// carries, found as carriedSchemas says, not listed, and Meta and Error)
// have some, every
// JSON response has one, and each fits its schema. (kin-openapi's Validate
// checks the responses' examples but not the schemas' 3.1 "examples";
// .ci/lint-openapi checks both.)
// carriedSchemas returns the names of the schemas of what the responses
// carry: the data of every schema with a data property (the lists' items,
// the envelopes' item), and of a data that is one of several schemas
// (Event), each of them.
func carriedSchemas(doc *openapi3.T) []string {
	const prefix = "#/components/schemas/"
	var out []string
	var add func(ref *openapi3.SchemaRef)
	add = func(ref *openapi3.SchemaRef) {
		if ref == nil {
			return
		}
		if name, ok := strings.CutPrefix(ref.Ref, prefix); ok {
			if branches := doc.Components.Schemas[name].Value.OneOf; len(branches) > 0 {
				for _, b := range branches {
					add(b)
				}
				return
			}
			if !slices.Contains(out, name) {
				out = append(out, name)
			}
			return
		}
		if ref.Value != nil {
			add(ref.Value.Items)
		}
	}
	for _, ref := range doc.Components.Schemas {
		add(ref.Value.Properties["data"])
	}
	slices.Sort(out)
	return out
}

func TestExamples(t *testing.T) {
	is := is.New(t)
	doc := load(t)
	carried := carriedSchemas(doc)
	is.True(len(carried) >= 10) // the schemas were found
	for _, name := range append(carried, "Meta", "Error") {
		if len(doc.Components.Schemas[name].Value.Examples) == 0 {
			t.Errorf("schema %s has no example", name) // the main schemas have examples
		}
	}
	for name, ref := range doc.Components.Schemas {
		for i, ex := range ref.Value.Examples {
			if err := ref.Value.VisitJSON(ex); err != nil {
				t.Errorf("schema %s, example %d: %v", name, i, err)
			}
		}
	}
	for name, ref := range doc.Components.Responses {
		for mt, content := range ref.Value.Content {
			if mt != "application/json" || name == "OpenAPIDocument" {
				continue
			}
			if content.Example == nil {
				t.Errorf("response %s has no example", name)
				continue
			}
			if err := content.Schema.Value.VisitJSON(content.Example); err != nil {
				t.Errorf("response %s: example: %v", name, err)
			}
		}
	}
}

// routes are the handler's routes on the in-memory store, which has every
// optional resource: statusapi's one table of them. eventtest adds
// store.Events for a build whose memstore.Store does not keep events yet
// (it changes nothing once it does).
// routes are the handler's routes with every opt-in option (Routes only
// asks whether a recorder is given, so an idle one stands for it).
var routes = statusapi.Routes(statusapi.WithWebhookEndpoints(memstore.New()),
	statusapi.WithRequestLog(new(statusapi.RequestRecorder)))

func TestEveryRouteIsDocumented(t *testing.T) {
	is := is.New(t)
	doc := load(t)
	var paths []string
	for p, item := range doc.Paths.Map() {
		paths = append(paths, p)
		ops := item.Operations()
		is.Equal(len(ops), 2) // every route is a GET and a HEAD operation
		is.True(ops["GET"] != nil)
		is.True(ops["HEAD"] != nil)
	}
	sort.Strings(paths)
	want := slices.Clone(routes)
	sort.Strings(want)
	is.Equal(paths, want) // the document lists exactly the handler's routes
}

// TestHeadMirrorsGet holds each HEAD operation to what the handler does:
// the GET operation's parameters, security, statuses and headers, and no
// body. internal/test/openapitest counts only a HEAD's 200 as needing a test
// response; this test stands for the others.
func TestHeadMirrorsGet(t *testing.T) {
	doc := load(t)
	for path, item := range doc.Paths.Map() {
		t.Run(path, func(t *testing.T) {
			is := is.New(t)
			get, head := item.Get, item.Head
			is.True(head != nil)                                  // every route documents HEAD
			is.Equal(head.OperationID, get.OperationID+"Head")    // named after the GET
			is.Equal(head.Tags, get.Tags)                         // listed beside the GET
			is.Equal(refs(head.Parameters), refs(get.Parameters)) // same parameters
			is.Equal(head.Security, get.Security)                 // same credentials
			is.Equal(len(head.Responses.Map()), len(get.Responses.Map()))
			for code, g := range get.Responses.Map() {
				h := head.Responses.Value(code)
				is.True(h != nil)                                                  // same statuses
				is.Equal(len(h.Value.Content), 0)                                  // a HEAD answer has no body
				is.Equal(headerRefs(h.Value.Headers), headerRefs(g.Value.Headers)) // same headers
			}
		})
	}
}

// headerRefs lists a response's headers as "name: $ref", sorted.
func headerRefs(headers openapi3.Headers) []string {
	var out []string
	for name, h := range headers {
		out = append(out, name+": "+h.Ref)
	}
	sort.Strings(out)
	return out
}

func refs(params openapi3.Parameters) []string {
	out := make([]string, len(params))
	for i, p := range params {
		out[i] = p.Ref
	}
	return out
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
	var want []any
	statuses := make(map[string]bool)
	for _, item := range doc.Paths.Map() {
		for code := range item.Get.Responses.Map() {
			statuses[code] = true
		}
	}
	statuses["405"] = doc.Components.Responses["MethodNotAllowed"] != nil
	for _, c := range envelope.Codes {
		want = append(want, string(c))
		is.True(statuses[strconv.Itoa(c.Status())]) // the code's status is documented
	}
	is.Equal(doc.Components.Schemas["ErrorCode"].Value.Enum, want)
}

// TestStatusEnums checks every enum of the document (a schema with an
// enum, found, not listed) against the store's type of the same name
// (ProjectStatus...), read from the store's sources, or, for the few
// named otherwise, what the table below says. A new resource's status
// enum is checked with no edit here.
func TestStatusEnums(t *testing.T) {
	doc := load(t)
	server := gosource.Enums(t, reflect.TypeFor[store.Kind]().PkgPath())
	otherwise := map[string][]string{
		"DeletionType":  strs(store.Kinds),
		"ErrorCode":     nil, // envelope's catalogue: TestErrorCodes
		"EventTypeName": nil, // the events' types, of every kind: not checked here
	}
	enums := make(map[string][]string)
	for name, ref := range doc.Components.Schemas {
		for _, v := range ref.Value.Enum {
			enums[name] = append(enums[name], v.(string))
		}
	}
	is.New(t).True(len(enums) >= 6) // the enums were found
	gosource.Match(t, "the document", enums, server, otherwise)
}

func strs[S ~string](in []S) []string {
	out := make([]string, len(in))
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
	limit := queryParam(t, doc, "limit")
	is.Equal(*limit.Min, 1.0)
	is.Equal(*limit.Max, float64(store.MaxLimit))
	is.Equal(limit.Default, float64(store.DefaultLimit))
	page := queryParam(t, doc, "page")
	is.Equal(*page.Min, 1.0)
	is.Equal(page.Default, 1.0)
}

// queryParam is the schema of doc's query parameter name, found by the
// name a client sends, not by its component's.
func queryParam(t *testing.T, doc *openapi3.T, name string) *openapi3.Schema {
	for _, p := range doc.Components.Parameters {
		if p.Value.In == "query" && p.Value.Name == name {
			return p.Value.Schema.Value
		}
	}
	t.Fatalf("the document has no query parameter %s", name)
	return nil
}
