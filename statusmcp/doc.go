// Package statusmcp serves the status API to AI assistants over the Model
// Context Protocol (Streamable HTTP, stateless), on the official Go SDK.
//
// Mount it with one option of the API's handler:
//
//	h := statusapi.New(st, keys, lim, statusapi.WithMCP(statusmcp.Handler()))
//
// The API's handler authenticates each POST /v1/mcp, takes its rate limit
// and logs it; this package builds, per request, a server holding the
// tools the caller's key may use. Each tool but status_summary runs its
// route through the API's own route table (statusapi.MCPCaller.Get), so
// a tool's structuredContent is the route's JSON body; the tool is made
// from the route's statusapi.Operation (words, parameters, answer type).
// docs/mcp.md describes the tools and how an assistant connects.
package statusmcp
