package statusapi

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	pathpkg "path"
	"strings"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/envelope"
	"github.com/clientstatus/clientstatus/ratelimit"
)

// MCPPath is the route of the Model Context Protocol (see WithMCP).
const MCPPath = "/v1/mcp"

// MaxMCPBodyBytes bounds the body of a request to MCPPath.
const MaxMCPBodyBytes = 1 << 20

// WithMCP serves h at POST /v1/mcp (MCPPath) for AI assistants, behind
// the handler's own authentication (401, 403 before h sees a byte), rate
// limit (each JSON-RPC request of the body counts one, a notification
// none; 429 as elsewhere), timeout and request log. h reads its caller
// with MCPCallerFrom. Package statusmcp makes h. Without it /v1/mcp is
// not served (404 like an unknown path); nil keeps that default.
func WithMCP(h http.Handler) Option {
	return func(c *config) { c.mcp = h }
}

// MCPCaller is the authenticated caller of a request to /v1/mcp: its
// principal, as the routes see it (a sandbox key's organization is its
// sandbox's), and Get, which runs the API's routes for it.
type MCPCaller struct {
	Principal auth.Principal

	h         *handler
	ctx       context.Context // the /v1/mcp request's: Get ends with it
	requestID string
	base      string // the /v1/mcp request's public URL, for the links routes make
}

type mcpCallerKey struct{}

// MCPCallerFrom returns the caller of a request to /v1/mcp that the
// handler passes to WithMCP's handler, or false for any other context.
func MCPCallerFrom(ctx context.Context) (*MCPCaller, bool) {
	c, ok := ctx.Value(mcpCallerKey{}).(*MCPCaller)
	return c, ok
}

// internalKey marks a request that Get makes: its principal is already
// authenticated and its rate limit already taken.
type internalKey struct{}

// Get answers GET path?query for the caller (path as sent on the wire:
// an id in it escaped with url.PathEscape) through the handler's route
// table, exactly as the route answers it (scope, project restrictions,
// parameters, body), without authenticating again, without taking from
// the rate limit and without a request log entry of its own: the request
// to /v1/mcp paid and is logged. It returns the HTTP status and the JSON
// body (an error envelope for a status other than 200). It is safe for
// concurrent use; it ends when ctx or the /v1/mcp request does.
func (c *MCPCaller) Get(ctx context.Context, path string, query url.Values) (status int, body []byte) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(c.ctx, cancel)
	defer stop()
	ctx = context.WithValue(ctx, internalKey{}, c.Principal)
	ctx = context.WithValue(ctx, publicBaseKey{}, c.base)
	buf := &bodyBuffer{header: http.Header{envelope.RequestIDHeader: {c.requestID}}}
	target := path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	r, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		r, _ = http.NewRequestWithContext(ctx, http.MethodGet, "/", nil)
	}
	// Only a clean path of a route, as ServeHTTP lets through.
	if err != nil || r.URL.EscapedPath() != path || r.URL.Path != pathpkg.Clean(r.URL.Path) ||
		!strings.HasPrefix(r.URL.Path, "/v1/") || r.URL.Path == MCPPath {
		c.h.notFound(buf, r)
		return buf.status, buf.body
	}
	r.RequestURI = r.URL.RequestURI()
	func() {
		defer func() {
			if v := recover(); v != nil {
				c.h.cfg.logger.ErrorContext(ctx, "statusapi: panic serving an MCP tool's route",
					"request_id", c.requestID, "path", path, "panic", fmt.Sprint(v))
				buf = &bodyBuffer{header: buf.header}
				envelope.WriteError(buf, r, envelope.New(envelope.Internal, "internal error"))
			}
		}()
		c.h.mux.ServeHTTP(buf, r)
	}()
	return cmp.Or(buf.status, http.StatusOK), buf.body
}

// internalPrincipal returns the principal of a request made by
// MCPCaller.Get.
func internalPrincipal(r *http.Request) (auth.Principal, bool) {
	p, ok := r.Context().Value(internalKey{}).(auth.Principal)
	return p, ok
}

// serveMCP authenticates a request to /v1/mcp, takes one request of the
// rate limit per JSON-RPC request in its body, and hands it to WithMCP's
// handler with its MCPCaller.
func (h *handler) serveMCP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		h.fail(w, r, envelope.Errorf(envelope.MethodNotAllowed, "method %s is not allowed; use POST", r.Method))
		return
	}
	ctx, cancel := withRequestTimeout(r.Context(), h.cfg.timeout)
	defer cancel()
	r = r.WithContext(ctx)
	c, err := h.callerOf(w, r, nil)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxMCPBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			h.fail(w, r, envelope.Errorf(envelope.InvalidParameter, "the body is over %d bytes", MaxMCPBodyBytes))
			return
		}
		return // the client went
	}
	var d ratelimit.Decision
	for range jsonRPCRequests(body) {
		if d, err = h.rateLimit(w, r, c.Principal); err != nil {
			break
		}
	}
	if info := infoOf(w); info != nil {
		info.RateLimit = d
	}
	if err != nil {
		h.fail(w, r, withRetryAfter(w, err))
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	mc := &MCPCaller{Principal: c.Principal, h: h, requestID: w.Header().Get(envelope.RequestIDHeader), base: h.publicURL(r)}
	ctx = context.WithValue(ctx, mcpCallerKey{}, mc)
	mc.ctx = ctx
	h.cfg.mcp.ServeHTTP(w, r.WithContext(ctx))
}

// withRetryAfter adds the seconds of the Retry-After header w holds to
// the message of a RATE_LIMITED err: an MCP client hands the assistant
// the body of a 429, not its headers.
func withRetryAfter(w http.ResponseWriter, err error) error {
	var e *envelope.Error
	if s := w.Header().Get("Retry-After"); s != "" && errors.As(err, &e) && e.Code == envelope.RateLimited {
		out := *e
		out.Message += ": " + s
		return &out
	}
	return err
}

// jsonRPCRequests counts the JSON-RPC requests of a body (a message or a
// batch): messages with a method and an id. A notification or a response
// counts none; a body that is not JSON-RPC counts one, so that nothing
// the protocol refuses is free.
func jsonRPCRequests(body []byte) int {
	type message struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	var batch []message
	if err := json.Unmarshal(body, &batch); err != nil {
		var one message
		if err := json.Unmarshal(body, &one); err != nil {
			return 1
		}
		batch = []message{one}
	}
	n := 0
	for _, m := range batch {
		if m.Method == "" && m.ID == nil {
			return max(n, 1) // neither a request nor a notification
		}
		if m.Method != "" && m.ID != nil {
			n++
		}
	}
	return n
}
