package statusmcp

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

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
		if now != nil {
			c.now = now
		}
	}
}

// Implementation is the name and version the server gives in its
// initialize answer.
var Implementation = mcp.Implementation{Name: "clientstatus", Title: "Client status API", Version: "v1"}

// Handler returns the http.Handler of /v1/mcp, to give
// statusapi.WithMCP. It serves only requests that the API's handler
// authenticated (statusapi.MCPCallerFrom); any other is 400. Stateless:
// each request gets a server of its own with the tools its caller's
// scopes allow, so any replica answers any request and no session is
// kept. It panics if the embedded OpenAPI document lacks a tool's route
// (a build defect, which the package's tests catch).
func Handler(opts ...Option) http.Handler {
	cfg := config{now: time.Now}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	tools, err := buildTools(cfg)
	if err != nil {
		panic(err)
	}
	return mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		c, ok := statusapi.MCPCallerFrom(r.Context())
		if !ok {
			return nil
		}
		return newServer(tools, c)
	}, &mcp.StreamableHTTPOptions{
		Stateless:    true,
		JSONResponse: true,
		// The route takes a bearer key, which a page rebinding a name
		// to localhost cannot send; portals run behind proxies on
		// localhost whose Host is the portal's.
		DisableLocalhostProtection: true,
		MaxRequestBodyBytes:        statusapi.MaxMCPBodyBytes,
	})
}

// buildTools makes every tool, in the contract's order.
func buildTools(cfg config) ([]tool, error) {
	d, err := loadDocument()
	if err != nil {
		return nil, err
	}
	var out []tool
	for _, rt := range routeTools {
		t, err := buildRouteTool(d, rt)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	s, err := summaryTool(d, cfg.now)
	if err != nil {
		return nil, err
	}
	return append(out, s), nil
}

// newServer is the server of one request: the tools c may use, each
// answering for c.
func newServer(tools []tool, c *statusapi.MCPCaller) *mcp.Server {
	s := mcp.NewServer(&Implementation, &mcp.ServerOptions{
		Instructions: "Read-only access to an agency client's projects, milestones, deliverables, invoices, threads and events, " +
			"with the caller's API key. Each tool answers exactly what its API route answers. " +
			"Start with status_summary for an overview.",
	})
	hidden := map[string]bool{}
	for _, t := range tools {
		if t.scope != "" && !c.Principal.Allows(t.scope) {
			hidden[t.def.Name] = true
		}
		s.AddTool(t.def, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args json.RawMessage
			if req.Params != nil {
				args = req.Params.Arguments
			}
			return t.call(ctx, c, args), nil
		})
	}
	if len(hidden) > 0 {
		// tools/list shows only what the key may use; a call of another
		// tool still runs, and answers its route's INSUFFICIENT_SCOPE.
		s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				res, err := next(ctx, method, req)
				if list, ok := res.(*mcp.ListToolsResult); ok && err == nil {
					shown := list.Tools[:0:0]
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
	}
	return s
}
