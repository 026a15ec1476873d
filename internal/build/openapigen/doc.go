// Package openapigen writes the OpenAPI document of the /v1 API from its
// route table and wire types: each route's path, scope, kind (cached,
// keyed or public) and parameters make its GET operation and the HEAD
// twin derived from it; each resource's wire type makes its schemas; the
// event kinds make the event schemas and the webhooks. The shared words
// (headers, standard responses) are declared here once; the parameters
// are apidoc.Param values that statusapi declares.
//
// Its input is an apidoc.API, which package statusapi declares; the
// command gen (go generate ./openapi) writes openapi/openapi.json, and
// statusapi's test TestOpenAPIDocument compares it with what is generated.
package openapigen
