package statusmcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/option"
	"github.com/clientstatus/clientstatus/statusapi"
)

// Option configures the handler returned by Handler.
type Option func(*config)

type config struct {
	now func() time.Time
}

// WithClock sets the clock of status_summary's asOf (default, and given
// nil, time.Now).
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		c.now = now
		if now == nil {
			c.now = time.Now
		}
	}
}

// Implementation is the name and version the server gives in its
// initialize answer.
var Implementation = mcp.Implementation{Name: "clientstatus", Title: "Client status API", Version: "v1"}

// Handler returns the http.Handler of /v1/mcp, to give
// statusapi.WithMCP. It serves only requests that the API's handler
// authenticated (statusapi.MCPCallerFrom); any other is 400. Stateless:
// no session is kept, so any replica answers any request; each request
// is served by the server of the tools its caller's scopes allow. It
// serves every protocol revision of the Go SDK (mcp.SupportedProtocolVersions);
// a JSON-RPC batch under a revision without batches is 400 with a
// JSON-RPC error. It panics if an operation's tool cannot be built (a
// build defect, which the package's tests catch).
func Handler(opts ...Option) http.Handler {
	cfg := config{now: time.Now}
	option.Apply(&cfg, opts)
	tools, err := buildTools(cfg)
	if err != nil {
		panic(err)
	}
	srv := &servers{tools: tools}
	h := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		c, ok := statusapi.MCPCallerFrom(r.Context())
		if !ok {
			return nil
		}
		return srv.of(c.Principal)
	}, &mcp.StreamableHTTPOptions{
		Stateless:    true,
		JSONResponse: true,
		// The route takes a bearer key, which a page rebinding a name
		// to localhost cannot send; portals run behind proxies on
		// localhost whose Host is the portal's.
		DisableLocalhostProtection: true,
		MaxRequestBodyBytes:        statusapi.MaxMCPBodyBytes,
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if refuseBatch(w, r) {
			return
		}
		h.ServeHTTP(w, r)
	})
}

// batchlessRevision is the first protocol revision without JSON-RPC
// batches.
const batchlessRevision = "2025-06-18"

// refuseBatch answers a JSON-RPC batch sent under a revision without
// batches (MCP-Protocol-Version 2025-06-18 or later) with 400 and a
// JSON-RPC error, where the SDK would answer plain text, and reports
// whether it did. Under 2025-03-26 (the version assumed without the
// header) the SDK serves the batch.
func refuseBatch(w http.ResponseWriter, r *http.Request) bool {
	version := r.Header.Get("MCP-Protocol-Version")
	if _, ok := statusapi.MCPCallerFrom(r.Context()); !ok || version < batchlessRevision || r.Method != http.MethodPost {
		return false // the body is statusapi's, read and bounded
	}
	body, err := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil || !bytes.HasPrefix(bytes.TrimLeft(body, " \t\r\n"), []byte("[")) {
		return false
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{
		"code": -32600, // invalid request
		"message": "JSON-RPC batches are not part of MCP " + version + " (nor of any revision since " + batchlessRevision +
			"): send one request per POST",
	}})
	return true
}

// buildTools makes every tool: the tool of each operation that declares
// one (statusapi.Operations), in the order of their routes, and
// status_summary.
func buildTools(cfg config) ([]tool, error) {
	var out []tool
	for _, op := range statusapi.Operations() {
		if op.Tool == "" {
			continue
		}
		t, err := routeTool(op)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return append(out, summaryTool(cfg.now)), nil
}

// servers keeps one server per set of tools a key may see: the tools
// answer for the caller of their request (statusapi.MCPCallerFrom on
// the request's context), so a server holds nothing of a caller and
// serves any request of a key with the same scopes. A key's tools are a
// function of its scopes; there are at most 2^len(auth.AllScopes) sets.
type servers struct {
	tools []tool
	byKey sync.Map // string of '0'/'1', one per tool: *mcp.Server
}

// of returns the server of p's tools.
func (s *servers) of(p auth.Principal) *mcp.Server {
	key := make([]byte, len(s.tools))
	for i, t := range s.tools {
		key[i] = '0'
		if t.scope == "" || p.Allows(t.scope) {
			key[i] = '1'
		}
	}
	if srv, ok := s.byKey.Load(string(key)); ok {
		return srv.(*mcp.Server)
	}
	srv, _ := s.byKey.LoadOrStore(string(key), newServer(s.tools, key))
	return srv.(*mcp.Server)
}

// newServer is a server whose tools/list shows the tools that shown
// marks '1'. Every tool is added: a call of a tool the key does not see
// still runs, and answers its route's INSUFFICIENT_SCOPE.
func newServer(tools []tool, shown []byte) *mcp.Server {
	s := mcp.NewServer(&Implementation, &mcp.ServerOptions{
		// Said once here rather than in each tool's description.
		Instructions: "Read-only access to an agency client's projects, milestones, deliverables, invoices, threads and events, " +
			"with the caller's API key. Each tool answers exactly its API route's JSON body: `data`, and for a list `meta` " +
			"(page, per_page, total); lists page with page and limit (at most 100). " +
			"Start with status_summary for an overview.",
		// What a key may list depends on its scopes: no shared cache.
		SetCacheable: func(_ context.Context, _ mcp.Request, c *mcp.Cacheable) { c.CacheScope = "private" },
	})
	hidden := map[string]bool{}
	for i, t := range tools {
		hidden[t.def.Name] = shown[i] == '0'
		s.AddTool(t.def, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			c, ok := statusapi.MCPCallerFrom(ctx)
			if !ok { // not served behind statusapi.WithMCP
				return errorBodyResult(internalError()), nil
			}
			var args json.RawMessage
			if req.Params != nil {
				args = req.Params.Arguments
			}
			return t.call(ctx, c, args), nil
		})
	}
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if list, ok := res.(*mcp.ListToolsResult); ok && err == nil {
				shown := make([]*mcp.Tool, 0, len(list.Tools))
				for _, t := range list.Tools {
					if !hidden[t.Name] {
						shown = append(shown, t)
					}
				}
				list.Tools = shown
			}
			return res, err
		}
	})
	return s
}
