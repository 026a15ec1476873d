// Package openapi holds the OpenAPI 3.1 document of the whole /v1 API,
// embedded in the module so that the handler can serve it at
// GET /v1/openapi.json and tests can check every response against it.
//
// The document is the published form of the contract: every route,
// parameter with its bounds and allowed values, schema, error code,
// header, the bearer security scheme and the webhooks. openapi.json is
// generated (go generate ./...) from statusapi's route table and wire
// types by internal/build/openapigen, and statusapi's TestOpenAPIDocument fails
// when it differs from what they generate. internal/test/openapitest validates
// every response of the handler's test suite against it and reports
// documented (route, status) pairs the suite never produced;
// .ci/lint-openapi lints it.
//
// Paths carry the /v1 prefix; the single server URL is the address at which
// the handler is mounted, without /v1 (a server variable, baseUrl).
package openapi
