// Package clientstatus is a read-only JSON API over an agency's projects,
// milestones, deliverables and invoices, for its retainer clients, built to
// be mounted inside the agency's existing client portal.
//
//	h := statusapi.New(st, keys, lim, statusapi.WithPublicURL("https://portal.example.com/api"))
//	mux.Handle("/api/", http.StripPrefix("/api", h))
//	// GET https://portal.example.com/api/v1/projects, Authorization: Bearer <key>
//
// The packages, from the wire inwards:
//
//   - statusapi: the http.Handler for every /v1 route; otelstatus: its
//     OpenTelemetry spans and metrics, apart so that the others do not
//     depend on OpenTelemetry.
//   - envelope: the JSON envelope and the error catalogue.
//   - auth: API keys, key stores, the resolver cache (standard library
//     only); auth/jwtauth: JWTs a portal signs; auth/redisinvalidate:
//     invalidations between replicas over Redis.
//   - ratelimit: per-plan budgets in memory; ratelimit/redislimit: in Redis,
//     shared by replicas.
//   - store: the domain types, the Store interface and its parts
//     (standard library only); memstore: the in-memory Store; bunstore:
//     on PostgreSQL; storetest: the conformance suite, its read part
//     (RunRead) for a store of your own.
//   - webhook: the portal's API to webhook endpoints, and the dispatcher
//     that delivers events to them.
//   - devsettings: the HTML pages a portal mounts behind its sign-in,
//     where clients manage their keys and webhooks and see their
//     requests and usage.
//   - statusmcp: POST /v1/mcp for AI assistants (statusapi.WithMCP).
//   - sandbox, files: sandbox data; where files' bytes come from.
//   - option: the one policy every package's options follow.
//   - openapi: the OpenAPI 3.1 document of /v1, embedded.
//   - statusclient: a typed Go client for /v1, standard library only.
//   - examples/server, examples/client, examples/keys: a standalone
//     server, a client and a key-management command; tools: measuring
//     tools and the wire-compatibility check.
//
// README.md shows how to run, call and mount it; docs/ holds the rest.
// This package holds no code.
package clientstatus

//go:generate go run ./internal/build/apirecord/gen
