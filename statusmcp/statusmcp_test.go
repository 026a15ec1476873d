package statusmcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/internal/test/apitest"
	"github.com/clientstatus/clientstatus/openapi"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/statusmcp"
	"github.com/clientstatus/clientstatus/store"
)

// rig is a handler serving /v1/mcp on seeded data, and its keys by name.
type rig struct {
	h    http.Handler
	keys map[string]string
}

func (r rig) key(name string) string { return r.keys[name] }

// newMemoryRig serves the seed from memstore.Store, with keys "a" (org_a,
// unrestricted), "b" (org_b), "off" (an account without a retainer),
// "starter" (org_s, 60 requests a minute), "invoices" (invoices:read only), "p1" (project p1 only) and "sandbox"
// (org_a's sandbox).
func newMemoryRig(t testing.TB, opts ...statusapi.Option) (rig, *apitest.API) {
	opts = append([]statusapi.Option{statusapi.WithMCP(statusmcp.Handler(statusmcp.WithClock(func() time.Time { return now })))}, opts...)
	a := apitest.New(t, apitest.WithHandlerOptions(opts...))
	seed(t, a.Store)
	a.Files.Put("mockups.pdf", []byte("hello"))
	a.Files.Put("a-1.pdf", []byte("%PDF-"))
	return rig{h: a.Handler, keys: mintKeys(t, a.Keys)}, a
}

func mintKeys(t testing.TB, keys *auth.Keys) map[string]string {
	t.Helper()
	ctx := context.Background()
	out := map[string]string{}
	mint := func(name, org string, r *auth.Restriction, sandbox bool) {
		var key string
		var err error
		switch {
		case sandbox:
			key, _, err = keys.MintSandbox(ctx, org, name, nil)
		case r != nil:
			key, _, err = keys.MintRestricted(ctx, org, name, nil, *r)
		default:
			key, _, err = keys.Mint(ctx, org, name, nil)
		}
		if err != nil {
			t.Fatalf("mint %s: %v", name, err)
		}
		out[name] = key
	}
	mint("a", "org_a", nil, false)
	mint("b", "org_b", nil, false)
	mint("starter", "org_s", nil, false)
	mint("off", "org_off", nil, false)
	mint("invoices", "org_a", &auth.Restriction{Scopes: []auth.Scope{auth.ScopeInvoices}}, false)
	mint("p1", "org_a", &auth.Restriction{ProjectIDs: []string{"p1"}}, false)
	mint("sandbox", "org_a", nil, true)
	return out
}

// toolCase is a tool call and the route whose answer it must equal.
type toolCase struct {
	tool  string
	args  map[string]any
	route string
}

// toolCases call every tool but status_summary, with and without
// arguments.
var toolCases = []toolCase{
	{"list_projects", map[string]any{}, "/v1/projects"},
	{"list_projects", map[string]any{"limit": 1, "page": 2}, "/v1/projects?limit=1&page=2"},
	{"list_projects", map[string]any{"status": "planned"}, "/v1/projects?status=planned"},
	{"get_project", map[string]any{"id": "p1"}, "/v1/projects/p1"},
	{"list_milestones", map[string]any{}, "/v1/milestones"},
	{"list_milestones", map[string]any{"projectId": "p1"}, "/v1/milestones?projectId=p1"},
	{"list_milestones", map[string]any{"projectId": "p1", "status": "pending", "expand": "project"}, "/v1/milestones?projectId=p1&status=pending&expand=project"},
	{"list_deliverables", map[string]any{}, "/v1/deliverables"},
	{"list_deliverables", map[string]any{"projectId": "p1", "status": "in_review", "expand": "project"}, "/v1/deliverables?projectId=p1&status=in_review&expand=project"},
	{"get_deliverable_download", map[string]any{"id": "d1"}, "/v1/deliverables/d1/download"},
	{"list_invoices", map[string]any{}, "/v1/invoices"},
	{"list_invoices", map[string]any{"status": "open", "limit": 2}, "/v1/invoices?status=open&limit=2"},
	{"get_invoice", map[string]any{"id": "i1", "expand": "project"}, "/v1/invoices/i1?expand=project"},
	{"get_invoice_document", map[string]any{"id": "i1"}, "/v1/invoices/i1/document"},
	{"list_threads", map[string]any{}, "/v1/threads"},
	{"list_threads", map[string]any{"status": "open", "updatedSince": "2026-01-01T00:00:00Z"}, "/v1/threads?status=open&updatedSince=2026-01-01T00:00:00Z"},
	{"list_messages", map[string]any{}, "/v1/messages"},
	{"list_messages", map[string]any{"threadId": "t1"}, "/v1/messages?threadId=t1"},
	{"list_messages", map[string]any{"projectId": "p1", "limit": 1}, "/v1/messages?projectId=p1&limit=1"},
	{"list_events", map[string]any{}, "/v1/events"},
	{"list_events", map[string]any{"limit": 3, "type": "invoice.created,project.created"}, "/v1/events?limit=3&type=invoice.created,project.created"},
}

// checkToolsEqualRoutes calls every tool case with key and checks that
// structuredContent, and the text, are the route's body.
func checkToolsEqualRoutes(t *testing.T, r rig, key string) {
	for _, tc := range toolCases {
		t.Run(tc.tool+" "+tc.route, func(t *testing.T) {
			is := is.New(t)
			want := get(r.h, r.key(key), tc.route)
			got := call(t, r.h, r.key(key), tc.tool, tc.args)
			if want.Code != http.StatusOK {
				is.True(got.IsError)                                                                 // the route failed, so must the tool
				is.Equal(jsonValue(t, []byte(got.Content[0].Text)), jsonValue(t, want.Body.Bytes())) // the route's error
				return
			}
			is.True(!got.IsError)                                                                // the route answered 200
			is.Equal(jsonValue(t, got.StructuredContent), jsonValue(t, want.Body.Bytes()))       // structuredContent is the route's body
			is.Equal(len(got.Content), 1)                                                        // one text
			is.Equal(jsonValue(t, []byte(got.Content[0].Text)), jsonValue(t, want.Body.Bytes())) // the text is the same JSON
		})
	}
}

func TestToolsEqualRoutesOnMemory(t *testing.T) {
	r, _ := newMemoryRig(t)
	for _, key := range []string{"a", "p1", "invoices", "sandbox"} {
		t.Run(key, func(t *testing.T) { checkToolsEqualRoutes(t, r, key) })
	}
}

// TestEveryToolIsCovered holds toolCases to the tools a key sees.
func TestEveryToolIsCovered(t *testing.T) {
	is := is.New(t)
	r, _ := newMemoryRig(t)
	want := []string{"get_deliverable_download", "get_invoice", "get_invoice_document", "get_project",
		"list_deliverables", "list_events", "list_invoices", "list_messages", "list_milestones",
		"list_projects", "list_threads", "status_summary"}
	got := listTools(t, r.h, r.key("a"))
	slices.Sort(got)
	is.Equal(got, want) // the contract's twelve tools
	for _, name := range want {
		is.True(name == "status_summary" || slices.ContainsFunc(toolCases, func(tc toolCase) bool { return tc.tool == name })) // every tool has a case
	}
}

func TestToolsListDescribesReadOnlyToolsWithSchemas(t *testing.T) {
	is := is.New(t)
	r, _ := newMemoryRig(t)
	res := post(r.h, r.key("a"), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	var out struct {
		Result struct {
			Tools []struct {
				Name         string
				InputSchema  map[string]any `json:"inputSchema"`
				OutputSchema map[string]any `json:"outputSchema"`
				Annotations  struct {
					ReadOnlyHint bool `json:"readOnlyHint"`
				} `json:"annotations"`
			} `json:"tools"`
			CacheScope string `json:"cacheScope"`
		} `json:"result"`
	}
	is.NoErr(json.Unmarshal(res.Body.Bytes(), &out))
	is.Equal(len(out.Result.Tools), 12)
	is.Equal(out.Result.CacheScope, "private") // the list follows the key's scopes: no shared cache
	for _, tl := range out.Result.Tools {
		is.True(tl.Annotations.ReadOnlyHint)        // every tool is read-only
		is.Equal(tl.InputSchema["type"], "object")  // an input schema
		is.Equal(tl.OutputSchema["type"], "object") // an output schema
		out, _ := json.Marshal(tl.OutputSchema)
		is.True(!strings.Contains(string(out), `"#/components`)) // standalone: a shared shape is in its own $defs
	}
}

func TestScopesFilterTheTools(t *testing.T) {
	is := is.New(t)
	r, _ := newMemoryRig(t)
	got := listTools(t, r.h, r.key("invoices"))
	slices.Sort(got)
	is.Equal(got, []string{"get_invoice", "get_invoice_document", "list_events", "list_invoices", "status_summary"}) // only what invoices:read reads, and the two that need no scope

	res := call(t, r.h, r.key("invoices"), "list_projects", map[string]any{})
	is.Equal(errorCode(t, res), "INSUFFICIENT_SCOPE") // a tool the key does not see answers the route's refusal

	sum := call(t, r.h, r.key("invoices"), "status_summary", map[string]any{})
	var s map[string]any
	is.NoErr(json.Unmarshal(sum.StructuredContent, &s))
	is.Equal(s["projects"], []any{})             // no projects:read, no projects
	is.Equal(s["deliverablesInReview"], []any{}) // nor deliverables
	is.Equal(s["activeThreads"], []any{})        // nor threads
	is.Equal(s["invoices"].(map[string]any)["open"], 3.0)
}

func TestRestrictedProjects(t *testing.T) {
	is := is.New(t)
	r, _ := newMemoryRig(t)
	res := call(t, r.h, r.key("p1"), "get_project", map[string]any{"id": "p2"})
	is.Equal(errorCode(t, res), "NOT_FOUND") // another project is not found
	sum := call(t, r.h, r.key("p1"), "status_summary", map[string]any{})
	is.True(!bytes.Contains(sum.StructuredContent, []byte(`"p2"`)))  // nothing of p2
	is.True(!bytes.Contains(sum.StructuredContent, []byte(`"t2"`)))  // nor an organization-wide thread
	is.True(!bytes.Contains(sum.StructuredContent, []byte(`"USD"`))) // nor a retainer invoice
}

func TestOtherOrganizationAndInternalContent(t *testing.T) {
	is := is.New(t)
	r, _ := newMemoryRig(t)
	is.Equal(errorCode(t, call(t, r.h, r.key("a"), "get_project", map[string]any{"id": "pb"})), "NOT_FOUND") // another org's id
	internal := call(t, r.h, r.key("a"), "list_messages", map[string]any{"threadId": "t3"})
	is.True(!internal.IsError)                                     // an internal thread is an unknown id: an empty page
	is.True(!strings.Contains(internal.Content[0].Text, "secret")) // and none of its messages
	all := call(t, r.h, r.key("a"), "list_messages", map[string]any{"threadId": "t1"})
	is.True(!strings.Contains(all.Content[0].Text, "internal: they are late")) // an internal message never appears
	sum := call(t, r.h, r.key("a"), "status_summary", map[string]any{})
	is.True(!strings.Contains(sum.Content[0].Text, "Agency note")) // nor an internal thread in the summary
	is.True(!strings.Contains(sum.Content[0].Text, `"pb"`))        // nor another org's project
}

func TestStatusSummary(t *testing.T) {
	is := is.New(t)
	r, _ := newMemoryRig(t)
	res := call(t, r.h, r.key("a"), "status_summary", map[string]any{})
	is.True(!res.IsError)
	want := `{
	  "asOf": "2026-03-01T09:00:00Z",
	  "projects": [
	    {"id": "p1", "name": "Website", "status": "in_progress", "dueAt": "2026-03-31T09:00:00Z",
	     "nextMilestone": {"id": "m3", "name": "Launch", "dueAt": "2026-03-11T09:00:00Z"},
	     "overdueMilestones": [{"id": "m2", "name": "Build", "dueAt": "2026-02-27T09:00:00Z"}]},
	    {"id": "p2", "name": "App", "status": "planned", "dueAt": null,
	     "nextMilestone": {"id": "m5", "name": "Kickoff", "dueAt": "2026-03-06T09:00:00Z"},
	     "overdueMilestones": []}
	  ],
	  "deliverablesInReview": [
	    {"id": "d3", "projectId": "p2", "name": "Wireframes", "updatedAt": "2026-03-01T09:00:00Z"},
	    {"id": "d1", "projectId": "p1", "name": "Mockups", "updatedAt": "2026-03-01T09:00:00Z"}
	  ],
	  "invoices": {"open": 3, "overdue": 2, "amountDue": [{"currency": "EUR", "amount": 12500}, {"currency": "USD", "amount": 700}]},
	  "activeThreads": [{"id": "t1", "projectId": "p1", "subject": "Launch date", "lastMessageAt": "2026-02-28T09:00:00Z"}]
	}`
	is.Equal(jsonValue(t, res.StructuredContent), jsonValue(t, []byte(want)))                // the contract's shape and values
	is.Equal(jsonValue(t, []byte(res.Content[0].Text)), jsonValue(t, res.StructuredContent)) // the same JSON as text
}

func TestAuthenticationComesFirst(t *testing.T) {
	is := is.New(t)
	r, _ := newMemoryRig(t)
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	res := post(r.h, "", list)
	is.Equal(res.Code, http.StatusUnauthorized)                             // no key
	is.True(strings.Contains(res.Body.String(), `"UNAUTHORIZED"`))          // the API's envelope
	is.Equal(res.Header().Get("WWW-Authenticate"), "Bearer")                // as every route
	is.Equal(post(r.h, "csk_nonsense", list).Code, http.StatusUnauthorized) // an unknown key
	res = post(r.h, r.key("off"), list)
	is.Equal(res.Code, http.StatusForbidden)                    // an account without a retainer
	is.True(strings.Contains(res.Body.String(), `"FORBIDDEN"`)) // the API's envelope
	res = get(r.h, r.key("a"), "/v1/mcp")
	is.Equal(res.Code, http.StatusMethodNotAllowed) // GET is not the transport's
	is.Equal(res.Header().Get("Allow"), "POST")
}

func TestSandboxKey(t *testing.T) {
	is := is.New(t)
	r, _ := newMemoryRig(t)
	res := post(r.h, r.key("sandbox"), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_projects","arguments":{}}}`)
	is.Equal(res.Code, http.StatusOK)
	is.Equal(res.Header().Get("X-Sandbox"), "true")                // a sandbox answer says so
	is.True(!strings.Contains(res.Body.String(), `\"id\":\"p1\"`)) // and holds no live data
}

func TestRateLimitCountsJSONRPCRequests(t *testing.T) {
	is := is.New(t)
	r, _ := newMemoryRig(t)
	key := r.key("starter") // 60 a minute
	remaining := func(res interface{ Header() http.Header }) string { return res.Header().Get("X-RateLimit-Remaining") }
	res := post(r.h, key, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"status_summary","arguments":{}}}`)
	is.Equal(remaining(res), "59") // a call costs one, however many routes it reads
	res = post(r.h, key, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	is.Equal(res.Code, http.StatusAccepted)
	is.Equal(remaining(res), "") // a notification costs nothing
	res = get(r.h, key, "/v1/rate_limit")
	is.True(strings.Contains(res.Body.String(), `"remaining":59`)) // still 59: the notification took nothing
	for i := 0; i < 59; i++ {
		post(r.h, key, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	}
	res = post(r.h, key, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	is.Equal(res.Code, http.StatusTooManyRequests)                 // the 61st request
	is.True(strings.Contains(res.Body.String(), `"RATE_LIMITED"`)) // the API's envelope
	is.True(res.Header().Get("Retry-After") != "")                 // as elsewhere
	var e struct{ Error struct{ Message string } }
	is.NoErr(json.Unmarshal(res.Body.Bytes(), &e))
	is.True(strings.HasSuffix(e.Error.Message, "Retry-After: "+res.Header().Get("Retry-After"))) // the seconds in the body, which an MCP client shows
}

func TestRequestLogHoldsTheMCPRequestOnce(t *testing.T) {
	is := is.New(t)
	r, a := newMemoryRig(t)
	call(t, r.h, r.key("a"), "list_projects", map[string]any{})
	call(t, r.h, r.key("a"), "status_summary", map[string]any{})
	a.FlushRequestLog()
	page, err := a.Store.ListRequestLogs(context.Background(), "org_a", store.RequestLogQuery{PageRequest: store.PageRequest{Page: 1, Limit: 100}})
	is.NoErr(err)
	is.Equal(page.Total, 2) // one record per request to /v1/mcp, none for the routes the tools ran
	for _, rr := range page.Items {
		is.Equal(rr.Route, "/v1/mcp")
		is.Equal(rr.Method, http.MethodPost)
	}
}

// invalidArgs are arguments each tool refuses, with the code it answers.
var invalidArgs = []struct {
	args string
	code string
}{
	{`{"limit": 0}`, "INVALID_PARAMETER"},
	{`{"limit": 101}`, "INVALID_PARAMETER"},
	{`{"limit": "5"}`, "INVALID_PARAMETER"},
	{`{"limit": 1.5}`, "INVALID_PARAMETER"},
	{`{"limit": true}`, "INVALID_PARAMETER"},
	{`{"page": -1}`, "INVALID_PARAMETER"},
	{`{"status": "PAID"}`, "INVALID_PARAMETER"},
	{`{"status": 3}`, "INVALID_PARAMETER"},
	{`{"bogus": 1}`, "INVALID_PARAMETER"},
	{`{"updatedSince": "yesterday"}`, "INVALID_PARAMETER"},
	{`[1, 2]`, "INVALID_PARAMETER"},
	{`"p1"`, "INVALID_PARAMETER"},
}

func TestInvalidArgumentsPerTool(t *testing.T) {
	r, _ := newMemoryRig(t)
	tools := []string{"list_projects", "get_project", "list_milestones", "list_deliverables", "get_deliverable_download",
		"list_invoices", "get_invoice", "get_invoice_document", "list_threads", "list_messages", "list_events", "status_summary"}
	pathArg := map[string]string{"get_project": "id", "get_deliverable_download": "id", "get_invoice": "id",
		"get_invoice_document": "id"}
	valid := map[string]string{"id": "p1"}
	for _, tool := range tools {
		t.Run(tool, func(t *testing.T) {
			cases := slices.Clone(invalidArgs)
			if arg := pathArg[tool]; arg != "" {
				cases = append(cases,
					struct{ args, code string }{`{}`, "INVALID_PARAMETER"},                  // missing
					struct{ args, code string }{`{"` + arg + `": ""}`, "INVALID_PARAMETER"}, // empty
					struct{ args, code string }{`{"` + arg + `": 5}`, "INVALID_PARAMETER"},  // not a string
					struct{ args, code string }{`{"` + arg + `": "nope"}`, "NOT_FOUND"},     // unknown
					struct{ args, code string }{`{"` + arg + `": "pb"}`, "NOT_FOUND"},       // another org's
					struct{ args, code string }{`{"` + arg + `": "../../x"}`, "NOT_FOUND"},  // no path tricks
				)
			}
			for _, tc := range cases {
				args := tc.args
				if arg := pathArg[tool]; arg != "" && strings.HasPrefix(args, "{") && !strings.Contains(args, `"`+arg+`"`) && args != `{}` {
					// the item is valid, so the other argument is judged
					args = `{"` + arg + `": "` + valid[arg] + `", ` + args[1:]
				}
				t.Run(args, func(t *testing.T) {
					is := is.New(t)
					res := call(t, r.h, r.key("a"), tool, json.RawMessage(args))
					is.Equal(errorCode(t, res), tc.code) // the route's code, as a tool result

				})
			}
		})
	}
}

// FuzzToolArguments sends arbitrary arguments to every tool: each answer
// is a tool result (never a protocol error, a dropped connection or a
// 500), and a failure names a client's error code.
func FuzzToolArguments(f *testing.F) {
	for _, s := range []string{`{}`, `{"limit":5}`, `{"id":"p1"}`, `{"projectId":"p1","status":"pending"}`,
		`{"page":99999999999999999999}`, `{"id":"\u0000"}`, `{"type":"invoice.paid,"}`, `{"after":"evt_x"}`,
		`{"limit":1e2}`, `{"id":{"a":1}}`, `null`, `[]`, `{"updatedSince":"2026-03-01T09:00:00Z"}`, `{"id":"p1/../p2"}`} {
		f.Add(s, uint8(0))
		f.Add(s, uint8(3))
	}
	r, _ := newMemoryRig(f)
	tools := []string{"list_projects", "get_project", "list_milestones", "list_deliverables", "get_deliverable_download",
		"list_invoices", "get_invoice", "get_invoice_document", "list_threads", "list_messages", "list_events", "status_summary"}
	f.Fuzz(func(t *testing.T, args string, n uint8) {
		if !json.Valid([]byte(args)) {
			t.Skip()
		}
		tool := tools[int(n)%len(tools)]
		res := call(t, r.h, r.key("a"), tool, json.RawMessage(args))
		if !res.IsError {
			return
		}
		switch code := errorCode(t, res); code {
		case "INVALID_PARAMETER", "NOT_FOUND", "FILE_NOT_AVAILABLE":
		default:
			t.Fatalf("%s %s: %s", tool, args, res.Content[0].Text)
		}
	})
}

// TestScopeComesBeforeArguments: a tool outside the key's scopes answers
// its route's INSUFFICIENT_SCOPE whatever its arguments.
func TestScopeComesBeforeArguments(t *testing.T) {
	r, _ := newMemoryRig(t)
	key := r.key("invoices")
	cases := []struct{ tool, args, route string }{
		{"list_projects", `{"limit": "x"}`, "/v1/projects"},
		{"get_project", `{}`, "/v1/projects/p1"},
		{"get_project", `{"id": 5}`, "/v1/projects/p1"},
		{"list_milestones", `[1, 2]`, "/v1/milestones"},
		{"list_deliverables", `{"bogus": 1}`, "/v1/deliverables"},
		{"get_deliverable_download", `{"id": ""}`, "/v1/deliverables/d1/download"},
		{"list_threads", `"x"`, "/v1/threads"},
		{"list_messages", `{"threadId": true}`, "/v1/messages"},
	}
	for _, tc := range cases {
		t.Run(tc.tool+" "+tc.args, func(t *testing.T) {
			is := is.New(t)
			want := get(r.h, key, tc.route)
			is.Equal(want.Code, http.StatusForbidden)
			res := call(t, r.h, key, tc.tool, json.RawMessage(tc.args))
			is.Equal(errorCode(t, res), "INSUFFICIENT_SCOPE")                                    // the scope, not the arguments
			is.Equal(jsonValue(t, []byte(res.Content[0].Text)), jsonValue(t, want.Body.Bytes())) // the route's error, message and all
		})
	}
}

// TestWrongJSONTypeNamesTheArgument sends each argument of each tool, as
// tools/list describes them, with a value of another JSON type.
func TestWrongJSONTypeNamesTheArgument(t *testing.T) {
	r, _ := newMemoryRig(t)
	n := 0
	for _, tl := range toolsList(t, r.h, r.key("a")) {
		for name, p := range tl.InputSchema.Properties {
			wrong := map[string][]string{"string": {`5`, `true`, `{}`}, "integer": {`"5"`, `true`, `[]`}}[fmt.Sprint(p["type"])]
			if len(wrong) == 0 {
				t.Fatalf("%s: %s is of type %v", tl.Name, name, p["type"])
			}
			for _, v := range wrong {
				args := fmt.Sprintf(`{%q: %s}`, name, v)
				t.Run(tl.Name+" "+args, func(t *testing.T) {
					is := is.New(t)
					res := call(t, r.h, r.key("a"), tl.Name, json.RawMessage(args))
					is.Equal(errorCode(t, res), "INVALID_PARAMETER")
					var e struct {
						Error struct{ Message, Param string }
					}
					is.NoErr(json.Unmarshal([]byte(res.Content[0].Text), &e))
					is.Equal(e.Error.Param, name)                        // error.param names it
					is.True(strings.Contains(e.Error.Message, name+" ")) // and so does the message
				})
				n++
			}
		}
	}
	is.New(t).True(n > 30) // every list tool's arguments were tried
}

// toolsListBudget is the most tools/list may weigh for a key with every
// scope: 16 KiB, about 4,000 tokens.
const toolsListBudget = 16 << 10

// TestToolsListFitsTheBudget measures the whole JSON-RPC answer of
// tools/list for an unrestricted key, and logs each tool's share (go
// test -v -run ToolsListFits ./statusmcp/ prints docs/mcp.md's table).
func TestToolsListFitsTheBudget(t *testing.T) {
	is := is.New(t)
	r, _ := newMemoryRig(t)
	res := post(r.h, r.key("a"), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	var out struct {
		Result struct{ Tools []json.RawMessage } `json:"result"`
	}
	is.NoErr(json.Unmarshal(res.Body.Bytes(), &out))
	is.Equal(len(out.Result.Tools), 12)
	t.Logf("tools/list: %d bytes, about %d tokens (bytes/4)", res.Body.Len(), res.Body.Len()/4)
	for _, raw := range out.Result.Tools {
		var tl struct {
			Name                      string
			InputSchema, OutputSchema json.RawMessage
		}
		is.NoErr(json.Unmarshal(raw, &tl))
		t.Logf("| `%s` | %d | %d | %d | %d |", tl.Name, len(raw), len(tl.InputSchema), len(tl.OutputSchema), len(raw)/4)
	}
	is.True(res.Body.Len() <= toolsListBudget) // tools/list fits in 16 KiB

	other, _ := newMemoryRig(t) // another handler, built anew
	again := post(other.h, other.key("a"), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	is.Equal(again.Body.String(), res.Body.String()) // byte for byte: a deterministic order
	names := listTools(t, r.h, r.key("a"))
	is.True(slices.IsSorted(names)) // by name
}

// TestJSONRPCBatch: a batch counts one request of the rate limit per
// request in it (a notification none); 2025-03-26 (the revision assumed
// without MCP-Protocol-Version) serves it, later revisions have no
// batches and answer a JSON-RPC error.
func TestJSONRPCBatch(t *testing.T) {
	r, _ := newMemoryRig(t)
	key := r.key("starter") // 60 a minute
	batch := `[{"jsonrpc":"2.0","id":1,"method":"tools/list"},` +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_projects","arguments":{"limit":1}}},` +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}]`
	remaining := 60
	for _, version := range []string{"", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			is := is.New(t)
			req := httptest.NewRequest(http.MethodPost, "/v1/mcp", strings.NewReader(batch))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Authorization", "Bearer "+key)
			if version != "" {
				req.Header.Set("MCP-Protocol-Version", version)
			}
			res := httptest.NewRecorder()
			r.h.ServeHTTP(res, req)
			remaining -= 2
			is.Equal(res.Header().Get("X-RateLimit-Remaining"), strconv.Itoa(remaining)) // two requests, the notification free
			is.Equal(res.Header().Get("Content-Type"), "application/json")
			if version == "" || version == "2025-03-26" {
				is.Equal(res.Code, http.StatusOK)
				var answers []struct {
					ID     int             `json:"id"`
					Result json.RawMessage `json:"result"`
				}
				is.NoErr(json.Unmarshal(res.Body.Bytes(), &answers))
				is.Equal(len(answers), 2) // one answer per request, none for the notification
				is.Equal(answers[0].ID+answers[1].ID, 3)
				is.True(answers[0].Result != nil && answers[1].Result != nil)
				return
			}
			is.Equal(res.Code, http.StatusBadRequest)
			var answer rpc
			is.NoErr(json.Unmarshal(res.Body.Bytes(), &answer))
			is.True(answer.Error != nil)
			is.Equal(answer.Error.Code, -32600)                                                     // invalid request, as JSON-RPC says
			is.True(strings.Contains(answer.Error.Message, "batches are not part of MCP "+version)) // says why
		})
	}
}

// bearerTransport adds a key to each request of the SDK's client.
type bearerTransport struct{ key string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return http.DefaultTransport.RoundTrip(r)
}

// TestProtocolRevisions connects the Go SDK's client at each revision it
// supports (the newest, 2026-07-28, by server/discover; the others by
// initialize) over loopback: each is served, statelessly, and lists and
// calls the tools.
func TestProtocolRevisions(t *testing.T) {
	r, _ := newMemoryRig(t)
	srv := httptest.NewServer(r.h)
	t.Cleanup(srv.Close)
	for _, version := range mcp.SupportedProtocolVersions() {
		t.Run(version, func(t *testing.T) {
			is := is.New(t)
			ctx := t.Context()
			client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
			cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{
				Endpoint:   srv.URL + statusapi.MCPPath,
				HTTPClient: &http.Client{Transport: bearerTransport{r.key("a")}},
			}, &mcp.ClientSessionOptions{ProtocolVersion: version})
			is.NoErr(err)
			defer cs.Close()
			is.Equal(cs.InitializeResult().ProtocolVersion, version) // the revision asked for
			is.Equal(cs.ID(), "")                                    // stateless: no session
			tools, err := cs.ListTools(ctx, nil)
			is.NoErr(err)
			is.Equal(len(tools.Tools), 12)
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_milestones", Arguments: map[string]any{"limit": 2}})
			is.NoErr(err)
			is.True(!res.IsError)
			got, _ := json.Marshal(res.StructuredContent)
			is.Equal(jsonValue(t, got), jsonValue(t, get(r.h, r.key("a"), "/v1/milestones?limit=2").Body.Bytes())) // the route's body
		})
	}
}

// TestToolArgumentsAreTheRoutesParameters holds each route tool's
// arguments to its route's query parameters in the OpenAPI document (a
// parameter added there appears in the tool), plus id for a path's item.
func TestToolArgumentsAreTheRoutesParameters(t *testing.T) {
	var doc struct {
		Paths map[string]struct {
			Get struct{ Parameters []map[string]any }
		}
		Components struct{ Parameters map[string]map[string]any }
	}
	is.New(t).NoErr(json.Unmarshal(openapi.JSON(), &doc))
	routes := map[string]string{"list_projects": "/v1/projects", "get_project": "/v1/projects/{id}",
		"list_milestones": "/v1/milestones", "list_deliverables": "/v1/deliverables",
		"get_deliverable_download": "/v1/deliverables/{id}/download", "list_invoices": "/v1/invoices",
		"get_invoice": "/v1/invoices/{id}", "get_invoice_document": "/v1/invoices/{id}/document",
		"list_threads": "/v1/threads", "list_messages": "/v1/messages", "list_events": "/v1/events"}
	r, _ := newMemoryRig(t)
	for _, tl := range toolsList(t, r.h, r.key("a")) {
		path, ok := routes[tl.Name]
		if !ok {
			continue // status_summary
		}
		t.Run(tl.Name, func(t *testing.T) {
			is := is.New(t)
			var want []string
			if strings.Contains(path, "{id}") {
				want = append(want, "id")
			}
			for _, p := range doc.Paths[path].Get.Parameters {
				if ref, ok := p["$ref"].(string); ok {
					p = doc.Components.Parameters[strings.TrimPrefix(ref, "#/components/parameters/")]
				}
				if p["in"] == "query" {
					want = append(want, p["name"].(string))
				}
			}
			slices.Sort(want)
			got := slices.Sorted(maps.Keys(tl.InputSchema.Properties))
			is.Equal(got, want) // the route's query parameters, and id for a path's item
		})
	}
}
