package statusmcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/envelope"
	"github.com/clientstatus/clientstatus/statusapi"
)

// tool is a tool ready to add to a server: its description for
// tools/list, the scope a key needs to see it ("" for none) and what
// answers it.
type tool struct {
	def   *mcp.Tool
	scope auth.Scope
	call  func(ctx context.Context, c *statusapi.MCPCaller, args json.RawMessage) *mcp.CallToolResult
}

// routeTool is the tool of op, which answers with op's route: its
// arguments are the route's query parameters and, for a route with an
// item in its path, id; its output the route's 200 body (op.Answer).
func routeTool(op statusapi.Operation) (tool, error) {
	pathArg := ""
	props := map[string]any{}
	input := map[string]any{"type": "object", "properties": props}
	if strings.Contains(op.Path, "{id}") {
		pathArg = "id"
		props[pathArg] = map[string]any{"type": "string", "minLength": 1}
		input["required"] = []string{pathArg}
	}
	integers := map[string]bool{} // the query parameters, by name: whether the argument is a JSON number
	for _, p := range op.Params {
		if p.In != "query" {
			continue
		}
		if p.Name == pathArg {
			return tool{}, fmt.Errorf("statusmcp: %s: query parameter %s is also the path's argument", op.Tool, p.Name)
		}
		integers[p.Name] = p.Type == "integer"
		props[p.Name] = inputSchema(p)
	}
	if op.Answer == nil {
		return tool{}, fmt.Errorf("statusmcp: %s: GET %s answers no JSON of the API", op.Tool, op.Path)
	}
	def := &mcp.Tool{
		Name:         op.Tool,
		Title:        op.Summary,
		Description:  firstClause(op.Description),
		InputSchema:  mustJSON(input),
		OutputSchema: mustJSON(outputSchema(op.Answer)),
		Annotations:  readOnly(),
	}
	return tool{def: def, scope: op.Scope, call: func(ctx context.Context, c *statusapi.MCPCaller, args json.RawMessage) *mcp.CallToolResult {
		if op.Scope != "" && !c.Principal.Allows(op.Scope) {
			// The route's own refusal, whatever the arguments: it
			// authorizes before it reads a parameter or an id.
			_, body := c.Get(ctx, strings.ReplaceAll(op.Path, "{id}", url.PathEscape("{id}")), nil)
			return errorBodyResult(body)
		}
		path, query, bad := request(op.Path, pathArg, args, integers)
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
func request(path, pathArg string, raw json.RawMessage, integers map[string]bool) (string, url.Values, *envelope.Error) {
	args := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(raw)) > 0 && string(bytes.TrimSpace(raw)) != "null" {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&args); err != nil {
			return "", nil, envelope.New(envelope.InvalidParameter, "the arguments must be a JSON object")
		}
	}
	query := url.Values{}
	for _, name := range slices.Sorted(maps.Keys(args)) { // the first bad argument, the same each time
		v := bytes.TrimSpace(args[name])
		if string(v) == "null" {
			continue
		}
		integer, known := integers[name]
		if !known && name != pathArg {
			query.Set(name, string(v)) // the route refuses it, by name
			continue
		}
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
		if name == pathArg {
			if s == "" {
				return "", nil, badParam(name, "%s must not be empty", name)
			}
			path = strings.Replace(path, "{id}", url.PathEscape(s), 1)
			continue
		}
		query.Set(name, s)
	}
	if pathArg != "" && strings.Contains(path, "{id}") {
		return "", nil, badParam(pathArg, "%s is required", pathArg)
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
