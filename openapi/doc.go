// Package openapi holds the OpenAPI 3.1 document of the whole /v1 API,
// embedded in the module so that the handler can serve it at
// GET /v1/openapi.json and tests can check every response against it.
//
// The document is written by hand in openapi.json and is the published
// form of the contract: every route, parameter with its bounds and allowed
// values, schema, error code, header and the bearer security scheme. It
// cannot drift from the handler: internal/openapitest validates every
// response of the handler's test suite against it and reports documented
// (route, status) pairs the suite never produced; .ci/lint-openapi lints it.
//
// Paths carry the /v1 prefix; the single server URL is the address at which
// the handler is mounted, without /v1 (a server variable, baseUrl).
package openapi
