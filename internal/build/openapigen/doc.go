// Package openapigen writes the OpenAPI document of the /v1 API from its
// route table and wire types: each route's path, scope, kind (cached,
// keyed or public) and parameters make its GET operation and the HEAD
// twin derived from it; each resource's wire type makes its schemas; the
// event kinds make the event schemas and the webhooks. The shared words
// (headers, parameters, standard responses) are declared here once.
//
// statusapi's test TestOpenAPIDocument feeds it the table and compares
// the result with openapi/openapi.json; go generate writes it.
package openapigen
