// Package openapitest checks HTTP responses against the module's OpenAPI
// document (package openapi), so that the document cannot drift from the
// handler: the handler's test suite passes every response it gets through
// a Validator, and asserts at the end that every documented (operation,
// status) pair was seen.
//
// A response fails the check when its route or method is not documented
// (unless it is the documented 404 or 405 answer to them), its status is
// not documented for the operation, its body does not match the schema
// (every schema forbids undocumented fields), a documented header has a
// bad value or a required one is missing, or it carries a header that is
// neither documented for that response nor one of GenericHeaders.
//
// Schemas and bodies are validated with kin-openapi (openapi3filter); the
// routing, header and coverage checks are this package's own.
package openapitest
