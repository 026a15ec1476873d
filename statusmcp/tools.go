package statusmcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/envelope"
	"github.com/clientstatus/clientstatus/statusapi"
)

// routeTool is a tool that answers with one route of the API: name, the
// route's path pattern and, for a route with an item in its path, the
// argument that names it ("id"); params the route's parameters.
type routeTool struct {
	name, path, pathArg string
	params              []statusapi.Param
}

// pathOf is each route's pattern by its operation's id
// (statusapi.Operations), for the tools that read several routes.
var pathOf = func() map[string]string {
	out := map[string]string{}
	for _, op := range statusapi.Operations() {
		out[op.ID] = op.Path
	}
	return out
}()

// routeTools are the tools that mirror a route: each operation of the
// API that declares one (statusapi.Operations), in the order of its routes.
func routeTools() []routeTool {
	var out []routeTool
	for _, op := range statusapi.Operations() {
		if op.Tool == "" {
			continue
		}
		t := routeTool{name: op.Tool, path: op.Path, params: op.Params}
		if strings.Contains(op.Path, "{id}") {
			t.pathArg = "id"
		}
		out = append(out, t)
	}
	return out
}

// tool is a tool ready to add to a server: its description for
// tools/list, the scope a key needs to see it ("" for none) and what
// answers it.
type tool struct {
	def   *mcp.Tool
	scope auth.Scope
	call  func(ctx context.Context, c *statusapi.MCPCaller, args json.RawMessage) *mcp.CallToolResult
}

// buildRouteTool makes t's tool from its route's parameters and its
// operation in the OpenAPI document.
func buildRouteTool(d document, t routeTool) (tool, error) {
	op, err := d.operation(t.path)
	if err != nil {
		return tool{}, err
	}
	props := map[string]any{}
	var required []string
	if t.pathArg != "" {
		props[t.pathArg] = map[string]any{"type": "string", "minLength": 1}
		required = append(required, t.pathArg)
	}
	q := map[string]param{}
	for _, p := range t.params {
		if p.In != "query" {
			continue
		}
		if p.Name == t.pathArg {
			return tool{}, fmt.Errorf("statusmcp: %s: query parameter %s is also the path's argument", t.name, p.Name)
		}
		q[p.Name] = param{schema: inputSchema(p), integer: p.Type == "integer"}
		props[p.Name] = q[p.Name].schema
	}
	input := map[string]any{"type": "object", "properties": props}
	if required != nil {
		input["required"] = required
	}
	def := &mcp.Tool{
		Name:         t.name,
		Title:        op.summary,
		Description:  firstClause(op.description),
		InputSchema:  mustJSON(input),
		OutputSchema: mustJSON(op.output),
		Annotations:  readOnly(),
	}
	scope := auth.Scope(op.scope)
	return tool{def: def, scope: scope, call: func(ctx context.Context, c *statusapi.MCPCaller, args json.RawMessage) *mcp.CallToolResult {
		if scope != "" && !c.Principal.Allows(scope) {
			// The route's own refusal, whatever the arguments: it
			// authorizes before it reads a parameter or an id.
			_, body := c.Get(ctx, strings.ReplaceAll(t.path, "{id}", url.PathEscape("{id}")), nil)
			return errorBodyResult(body)
		}
		path, query, bad := t.request(args, q)
		if bad != nil {
			return errorResult(bad)
		}
		status, body := c.Get(ctx, path, query)
		if status != http.StatusOK {
			return errorBodyResult(body)
		}
		return jsonResult(body)
	}}, nil
}

// request turns a tool's arguments into its route's path and query: the
// path argument into the path, every other argument into the query
// parameter of its name, a string as it is and a number as written
// (JSON numbers for the integer parameters), so that the route applies
// its own rules to them (an unknown name, a limit over 100...). null is
// an absent argument.
func (t routeTool) request(raw json.RawMessage, params map[string]param) (string, url.Values, *envelope.Error) {
	args := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(raw)) > 0 && string(bytes.TrimSpace(raw)) != "null" {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&args); err != nil {
			return "", nil, envelope.New(envelope.InvalidParameter, "the arguments must be a JSON object")
		}
	}
	names := make([]string, 0, len(args))
	for name := range args {
		names = append(names, name)
	}
	sort.Strings(names) // report the first bad argument the same way each time
	path := t.path
	query := url.Values{}
	for _, name := range names {
		v := bytes.TrimSpace(args[name])
		if string(v) == "null" {
			continue
		}
		_, known := params[name]
		if !known && name != t.pathArg {
			query.Set(name, string(v)) // the route refuses it, by name
			continue
		}
		integer := params[name].integer
		var s string
		switch {
		case len(v) > 0 && v[0] == '"':
			if integer {
				return "", nil, badParam(name, "%s must be an integer (a JSON number)", name)
			}
			if err := json.Unmarshal(v, &s); err != nil {
				return "", nil, badParam(name, "%s must be a string", name)
			}
		case len(v) > 0 && (v[0] == '-' || v[0] >= '0' && v[0] <= '9') && integer:
			s = string(v) // the route judges it ("1.5", "-1", "1e2" are refused there)
		default:
			if integer {
				return "", nil, badParam(name, "%s must be an integer (a JSON number)", name)
			}
			return "", nil, badParam(name, "%s must be a string", name)
		}
		if name == t.pathArg {
			if s == "" {
				return "", nil, badParam(name, "%s must not be empty", name)
			}
			path = strings.Replace(path, "{id}", url.PathEscape(s), 1)
			continue
		}
		query.Set(name, s)
	}
	if t.pathArg != "" && strings.Contains(path, "{id}") {
		return "", nil, badParam(t.pathArg, "%s is required", t.pathArg)
	}
	return path, query, nil
}

func badParam(name, format string, args ...any) *envelope.Error {
	e := envelope.Errorf(envelope.InvalidParameter, format, args...)
	e.Param = name
	return e
}

// jsonResult is a tool's answer: the route's body as structuredContent
// and the same JSON as text.
func jsonResult(body []byte) *mcp.CallToolResult {
	body = bytes.TrimSpace(body)
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(body)}},
		StructuredContent: json.RawMessage(body),
	}
}

// errorBodyResult is a tool's failure: the route's error envelope
// ({"error": {"code", "message", ...}}) as text, with isError.
func errorBodyResult(body []byte) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Content: []mcp.Content{&mcp.TextContent{Text: string(bytes.TrimSpace(body))}},
		IsError: true,
	}
}

// errorResult is errorBodyResult for an error found before the route ran.
func errorResult(e *envelope.Error) *mcp.CallToolResult {
	body, _ := json.Marshal(struct {
		Error *envelope.Error `json:"error"`
	}{e})
	return errorBodyResult(body)
}

// readOnly is every tool's annotations: it reads, and only the API.
func readOnly() *mcp.ToolAnnotations {
	no := false
	return &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &no}
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
