// Package statusapi is the http.Handler of the status API: every /v1 route
// of the API (described by the OpenAPI document in package openapi), with
// request ids, panic recovery, authentication, per-plan rate limits,
// strict query parameters, a response cache and signed download links.
//
// Mount it anywhere:
//
//	h := statusapi.New(st, keys, lim,
//		statusapi.WithPublicURL("https://portal.example.com/api"),
//		statusapi.WithSigningKey(secret),
//		statusapi.WithFiles(files.FromFS(os.DirFS("/srv/deliverables"))))
//	mux.Handle("/api/", http.StripPrefix("/api", h))
//
// Each request takes these steps, and the first that fails answers: its
// request id, panic recovery, the route (404 and 405 as JSON), the key
// and its scopes (401, 403), the rate limit (429), the query parameters
// (400 INVALID_PARAMETER), then the store. Every error is the JSON of
// package envelope; a slow or unreachable dependency is 503 UNAVAILABLE.
//
// Answers that are a function of the organization's data carry a weak
// ETag and are kept in a response cache until a write moves the data
// version (store.Versions). /v1/openapi.json, /v1/docs and the signed
// file links need no key.
//
// docs/handler.md says what the handler does to each request, the
// format of a signed link, and how a resource is added.
package statusapi
