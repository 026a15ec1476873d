// Package clientstatus is a read-only JSON API over an agency's projects,
// milestones, deliverables and invoices, for its retainer clients, built to
// be mounted inside the agency's existing client portal.
//
// Quick start:
//
//	h := statusapi.New(st, keys, lim, statusapi.WithPublicURL("https://portal.example.com/api"))
//	mux.Handle("/api/", http.StripPrefix("/api", h))
//	// GET https://portal.example.com/api/v1/projects, Authorization: Bearer <key>
//
// The packages, from the wire inwards:
//
//   - statusapi: the http.Handler for every /v1 route: routing, request ids,
//     authentication, rate limits, parameters, signed download links.
//   - otelstatus: OpenTelemetry for the handler: a span per request,
//     request durations by route, rate-limit refusals. A package apart,
//     so that the others do not depend on OpenTelemetry.
//   - envelope: the JSON envelope and the contract's error catalogue.
//   - auth: who is calling. API keys (minting, hashing, a key store,
//     caching) and the Principal they resolve to; standard library only.
//     Caches forget a revoked key or a changed account at once in one
//     process, and within about a second on replicas sharing PostgreSQL
//     (store/bunstore LISTENs) or Redis (auth/redisinvalidate, on
//     go-redis). auth/jwtauth resolves JWTs a portal signs, on golang-jwt.
//   - ratelimit: per-plan budgets per organization, counted in memory
//     (standard library only); ratelimit/redislimit counts them in Redis,
//     on ulule/limiter, shared by replicas; ratelimit/ratelimittest is the
//     conformance suite every counter passes.
//   - store: the domain types and the Store interface, with an in-memory
//     Store; store/storetest is the conformance suite every Store passes;
//     store/bunstore is the PostgreSQL Store on Bun.
//   - webhook: webhooks: the portal's API to an organization's endpoints,
//     and the dispatcher that delivers events to them, signed as Standard
//     Webhooks specifies, retried, shared by replicas, to public addresses
//     only (standard library and this module).
//   - statusmcp: POST /v1/mcp for AI assistants (the Model Context
//     Protocol, on the official Go SDK), opted in by statusapi.WithMCP:
//     tools that answer through the routes themselves.
//   - files: where deliverables' bytes come from (memory, an fs.FS).
//   - option: the one policy every package's options follow (nil and
//     zero values keep the default, a value no default stands for is an
//     *option.Error naming the option, reported by the constructor and
//     the package's Validate), and how to give every part one logger.
//   - openapi: the OpenAPI 3.1 document of /v1, embedded.
//   - statusclient: a typed Go client for /v1, standard library only.
//   - examples/server: a standalone server wiring it all, on demo data, a
//     data file or PostgreSQL and Redis; examples/client and
//     examples/keys: a client and a command to manage API keys.
//   - tools: measuring tools (load, bench, streams, webhookload) and the
//     wire-compatibility check (oasdiff).
//
// README.md shows how to run, call and mount it.
//
// This package holds no code.
package clientstatus

//go:generate go run ./internal/apirecord/gen
