package statusapi

import (
	"net/http"
	"reflect"
	"slices"
	"strings"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/envelope"
	"github.com/clientstatus/clientstatus/internal/apidoc"
)

// route is one path of the API: what serves it, what a key needs for it,
// and how the package's tests reach it. Make one with cachedRoute,
// keyedRoute or publicRoute, so that the scope the handler enforces and
// the one the route declares are the same value.
type route struct {
	path    string
	handler http.HandlerFunc
	// keyed says the route takes an API key; scope is the one a
	// restricted key needs for it ("" for none: every key may), which
	// the OpenAPI document's x-scope repeats.
	keyed bool
	scope auth.Scope
	// example is a request of the route that succeeds with the tests'
	// key "a" on their fixture data (seed, in api_test.go), naming only
	// items of project p1. Only the package's tests read it: each keyed
	// route is walked through it for the conventions, the scopes and the
	// project restrictions every route shares. "" when exempt says why
	// the route has none and which test covers it instead.
	example string
	exempt  string
	// list is the parameters of a resource's list (see listRoute); nil
	// for any other route.
	list *listSpec
	// cached says the response cache keeps the route's answers
	// (cachedRoute); resource names the resource whose items it serves
	// (listRoute, itemRoute), whose item takes expand=project when
	// expand says so.
	cached   bool
	resource string
	expand   bool
	// doc is what the route says of its operations beyond what the table
	// knows (describe); takes its parameters that its handler parses
	// itself (see params). The document is generated from the table (see
	// describe.go).
	doc   operation
	takes []*param
	// deprecations are what of the route is deprecated (deprecate):
	// answers that use them carry the deprecation headers, and the
	// document marks them.
	deprecations []deprecation
	// answer is the Go type of the route's 200 body when it is the API's
	// envelope (Operation.Answer), set by the constructor that knows it
	// (listRoute, itemRoute, answers); nil otherwise.
	answer reflect.Type
}

// operation is a route's words, as the OpenAPI document says them: its
// id, tag, summary and description, its responses beside or instead of
// its kind's, and the MCP tool that answers with it.
type operation = apidoc.Operation

// describe is rt with the words of its operation and the parameters its
// handler parses itself.
func (rt route) describe(op operation, takes ...*param) route {
	rt.doc, rt.takes = op, takes
	return rt
}

// cachedRoute is a keyed route whose answer is a function of the
// organization's data: the response cache keeps it until the data
// version moves (see cache.go).
func (h *handler) cachedRoute(path string, scope auth.Scope, fn apiFunc, example string) route {
	return route{path: path, handler: h.cached(scope, fn), keyed: true, scope: scope, example: example, cached: true}
}

// keyedRoute is a keyed route whose answer also depends on the time (a
// signed link, the deletion feed) or on more than the data: never cached.
func (h *handler) keyedRoute(path string, scope auth.Scope, fn apiFunc, example string) route {
	return route{path: path, handler: h.api(scope, fn), keyed: true, scope: scope, example: example}
}

// publicRoute is a route that takes no key (a signed link, the API's
// description); exempt names the test that covers it, as the routes'
// shared tests send keys.
func publicRoute(path string, fn http.HandlerFunc, exempt string) route {
	return route{path: path, handler: fn, exempt: exempt}
}

// metaRoute is a public route of the API's own description at path (the
// document, its reference page and script): tagged Meta, answering 200
// with the response body names, 304 to a matching If-None-Match, and
// 400 to any other parameter.
func metaRoute(path string, fn http.HandlerFunc, exempt, body string, op operation) route {
	op.Tag, op.Responses = "Meta", map[int]string{200: body, 304: "NotModified", 400: "BadRequest"}
	return publicRoute(path, fn, exempt).describe(op, params.IfNoneMatch)
}

// exemptBecause is rt without an example: the shared tests leave it to
// the test that why names.
func (rt route) exemptBecause(why string) route {
	rt.example, rt.exempt = "", why
	return rt
}

// routes serves table, the handler's routes. Each path is
// registered for GET (which in ServeMux also matches HEAD) and, without a
// method, for everything else, which is 405; any other path is 404. Both
// are JSON, where ServeMux's defaults are plain text.
func (h *handler) routes(table []route) *http.ServeMux {
	mux := http.NewServeMux()
	for _, rt := range table {
		mux.HandleFunc("GET "+rt.path, deprecated(rt.deprecations, rt.handler))
		mux.HandleFunc(rt.path, h.methodNotAllowed)
	}
	if h.cfg.mcp != nil {
		mux.HandleFunc(MCPPath, h.serveMCP) // POST, with WithMCP (mcp.go)
	}
	mux.HandleFunc("/", h.notFound)
	return mux
}

// Routes returns the path patterns that New registers with opts, such
// as "/v1/projects/{id}": every route of v1, which every store.Store
// serves, and the opt-in routes of the options given:
// /v1/webhook_endpoints and its deliveries with WithWebhookEndpoints,
// /v1/request_logs with WithRequestLog. Each answers GET and HEAD.
// Options are not validated (see Validate). For documentation and tests:
// package openapi's tests check the document against it.
func Routes(opts ...Option) []string {
	cfg, _ := newConfig(opts) // unvalidated
	var out []string
	for _, rt := range operations(cfg) {
		out = append(out, rt.path)
	}
	return out
}

// Operation is one operation of the API as New declares it: what a
// tool built on the API (statusmcp) reads instead of restating it.
type Operation struct {
	Path  string     // the route's pattern, answering GET and HEAD
	ID    string     // the GET operation's id in the OpenAPI document
	Scope auth.Scope // the scope a restricted key needs; "" for none
	// Summary and Description are the operation's words in the document.
	Summary, Description string
	// Tool is the name of the MCP tool that answers with the route, ""
	// for none.
	Tool string
	// Deprecated says a part of the route (itself, a parameter or a
	// field) is deprecated.
	Deprecated bool
	// Params are the parameters of the operation, in the document's
	// order; the path's id is among them only where the document puts it
	// on the operation.
	Params []Param
	// Answer is the Go type whose encoding/json form is the body of the
	// operation's 200 answer, nil when that is not the API's envelope
	// (a file, a page, the document). Its fields' json and oa tags are
	// those the document's schemas are reflected from (oa's "null": a
	// field that is no pointer is nullable).
	Answer reflect.Type
}

// Param is a parameter of an operation, as the handler parses it and the
// document says it.
type Param struct {
	Name, In    string // In is "query", "header" or "path"
	Required    bool
	Description string
	// Type is the value's JSON type ("string", "integer", or "array"
	// for a comma-separated list), Format its format ("date-time"), Enum
	// the values it takes (none: any).
	Type, Format string
	Enum         []string
	// Minimum, Maximum and Default are an integer's bounds and default,
	// zero for none.
	Minimum, Maximum, Default int
}

// Operations returns the operations New serves with opts, in the order
// of Routes. Options are not validated (see Validate).
func Operations(opts ...Option) []Operation {
	cfg, _ := newConfig(opts) // unvalidated
	var out []Operation
	for _, rt := range operations(cfg) {
		out = append(out, Operation{Path: rt.path, ID: rt.doc.ID, Scope: rt.scope, Summary: rt.doc.Summary, Description: rt.doc.Description,
			Tool: rt.doc.Tool, Deprecated: len(rt.deprecations) > 0, Params: exported(rt.params()), Answer: rt.answer})
	}
	return out
}

// itemAnswer is the Go type of an answer of one W: {"data": W}.
func itemAnswer[W any]() reflect.Type {
	return reflect.StructOf([]reflect.StructField{{Name: "Data", Type: reflect.TypeFor[W](), Tag: `json:"data"`}})
}

// listAnswer is the Go type of an answer of a list of W: {"data": [W],
// "meta": envelope.Meta}.
func listAnswer[W any]() reflect.Type {
	return reflect.StructOf([]reflect.StructField{
		{Name: "Data", Type: reflect.TypeFor[[]W](), Tag: `json:"data"`},
		{Name: "Meta", Type: reflect.TypeFor[envelope.Meta](), Tag: `json:"meta"`},
	})
}

// answers is rt answering 200 with the Go type t (itemAnswer,
// listAnswer), which the route's 200 response names in the document.
func (rt route) answers(t reflect.Type) route {
	rt.answer = t
	return rt
}

// operations is the route table under cfg, each route an operation as
// declared: its path, scope, parameters and words (doc), readable
// without a store, keys or a limiter, which a route reads only when it
// serves. The table is built on a handler holding cfg alone, never
// served.
func operations(cfg config) []route {
	return (&handler{cfg: cfg}).table()
}

// table is the one list of the handler's routes, sorted by path: each
// resource's, from its own file, then the API's public description. The
// opt-ins (webhookRoutes, requestLogRoutes) return none without their
// option, so their paths answer 404 like any unknown path.
func (h *handler) table() []route {
	all := slices.Concat(
		h.projectRoutes(),
		h.milestoneRoutes(),
		h.deliverableRoutes(),
		h.invoiceRoutes(),
		h.threadRoutes(),
		h.deletionRoutes(),
		h.eventRoutes(),
		h.usageRoutes(),
		h.webhookRoutes(),
		h.requestLogRoutes(),
	)
	all = append(all,
		metaRoute("/v1/openapi.json", h.serveOpenAPI, "public: openapi_test.go", "OpenAPIDocument", operation{
			ID:          "getOpenAPIDocument",
			Summary:     "Get this document",
			Description: "This OpenAPI document. No `Authorization` header is needed and no rate limit applies.",
		}),
		// The reference page and its script (docs.go): public too.
		metaRoute("/v1/docs", h.serveDocs, "public, HTML: docs_test.go", "DocsPage", operation{
			ID:          "getDocs",
			Summary:     "Read the API reference",
			Description: "This reference, as a web page for people: every operation, parameter, field and error of this document, with examples, rendered in the browser by Redoc from `/v1/openapi.json`. Open it in a browser, at the address where the handler is mounted (`http://localhost:8080/v1/docs` on the example server). Every asset comes from the handler itself, at URLs relative to the page, so it works under any mount prefix; its `Content-Security-Policy` forbids loading anything from another origin. No `Authorization` header is needed and no rate limit applies.",
		}),
		metaRoute("/v1/docs/redoc.standalone.js", h.serveDocsScript, "public, JavaScript: docs_test.go", "DocsScript", operation{
			ID:          "getDocsScript",
			Summary:     "Get the reference page's renderer",
			Description: "Redoc's standalone bundle (the npm package `redoc`, pinned to one version and embedded in the handler), which renders `/v1/docs`. Browsers may keep it for a day (`Cache-Control: public, max-age=86400`) and then revalidate it with its `ETag`. No `Authorization` header is needed and no rate limit applies.",
		}),
	)
	slices.SortFunc(all, func(a, b route) int { return strings.Compare(a.path, b.path) })
	for i, rt := range all { // the package's tests' (export_test.go)
		for _, d := range h.cfg.deprecations {
			if d.path == rt.path {
				all[i] = all[i].deprecate(d)
			}
		}
	}
	return all
}

// exported is ps as Operation says them.
func exported(ps []*param) []Param {
	out := make([]Param, len(ps))
	for i, p := range ps {
		s := p.Schema
		out[i] = Param{Name: p.Name, In: p.In, Required: p.Required, Description: p.Description,
			Type: s.Type, Format: s.Format, Enum: p.values, Minimum: s.Minimum, Maximum: s.Maximum, Default: s.Default}
		if out[i].Enum == nil {
			out[i].Enum = s.Enum
		}
		if s.Ref != "" {
			out[i].Type = "string"
		}
	}
	return out
}
