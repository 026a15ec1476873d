// Package otelstatus reports the status API's requests to OpenTelemetry: a
// server span per request and the HTTP semantic conventions' request
// duration histogram, labelled with the route the handler matched
// ("/v1/projects/{id}", never the path), plus rate-limit metrics of its
// own; ObserveRecorder and WebhookObserver count what the request log and
// the webhooks could not do. It is a package apart: only a portal that imports it depends on
// OpenTelemetry.
//
//	h := statusapi.New(st, keys, lim, statusapi.WithPublicURL("https://portal.example.com/api"))
//	mux.Handle("/api/", otelstatus.Middleware(http.StripPrefix("/api", h),
//		otelstatus.WithTracerProvider(tp), otelstatus.WithMeterProvider(mp)))
//
// Middleware learns the route, the caller and the outcome from the handler
// through statusapi.Track, wherever the handler is mounted inside it.
// A span's status is Error for a 5xx only. No span or metric holds a key,
// a token, the query string (where a download link's signature is) or the
// handler's RequestInfo.Reason. The attributes and metrics in detail:
// docs/operations.md.
package otelstatus
