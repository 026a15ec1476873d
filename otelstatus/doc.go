// Package otelstatus reports the status API's requests to OpenTelemetry: a
// server span per request and the HTTP semantic conventions' request
// duration histogram, labelled with the route the handler matched
// ("/v1/projects/{id}", never the path), plus rate-limit metrics of its
// own. It is a package apart: only a portal that imports it depends on
// OpenTelemetry.
//
//	h := statusapi.New(st, keys, lim, statusapi.WithPublicURL("https://portal.example.com/api"))
//	mux.Handle("/api/", otelstatus.Middleware(http.StripPrefix("/api", h),
//		otelstatus.WithTracerProvider(tp), otelstatus.WithMeterProvider(mp)))
//
// Middleware learns the route, the caller and the outcome from the handler
// through statusapi.Track, wherever the handler is mounted inside it. Track
// nests, so a portal's own middleware using Track, around Middleware or
// inside it, reads the same RequestInfo.
//
// # Spans
//
// Each request gets a server span, a child of the trace context the
// propagator reads from the request's headers (see WithPropagator), named
// "{method} {route}" ("GET /v1/projects/{id}"), or the method alone for a
// path that is no route, as the HTTP semantic conventions say. It carries
// the conventions' http.request.method, url.path (the path the middleware
// sees, never the query, where a download link's signature is),
// url.scheme, network.protocol.version, user_agent.original, http.route,
// http.response.status_code and, for an error, error.type: the envelope's
// error code. Then this package's own (see OrgIDKey and the keys beside
// it): the organization, the API key's id or the JWT's subject, the error
// code, the request id and the rate limit. Its status is Error for a 5xx,
// unset otherwise (a 4xx is the client's error, not the server's).
//
// A span never holds a key, a token, the Authorization header, the query
// string, nor the handler's RequestInfo.Reason: that goes to the handler's
// log, which the span's clientstatus.request.id finds.
//
// # Metrics
//
//   - http.server.request.duration (histogram, seconds, the conventions'
//     buckets), by http.request.method, url.scheme, http.route,
//     http.response.status_code and error.type. Its labels are route
//     patterns, never paths, and a method the conventions do not name is
//     "_OTHER": a client cannot grow the number of series.
//   - clientstatus.ratelimit.refused (counter, {request}): requests
//     refused 429 RATE_LIMITED, by clientstatus.plan and
//     clientstatus.ratelimit.limit (the plan's requests per window), and
//     with WithOrgAttribute by clientstatus.org.id.
//   - clientstatus.ratelimit.remaining (gauge, {request}), only with
//     WithOrgAttribute: per organization, the requests left in its window
//     after its latest rate-limited request, with
//     clientstatus.ratelimit.limit.
//
// With the Prometheus exporter they read http_server_request_duration_seconds,
// clientstatus_ratelimit_refused_total and clientstatus_ratelimit_remaining.
package otelstatus
