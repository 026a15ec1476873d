// Package apidoc declares what the API's OpenAPI document is generated
// from: its operations, wire types and kinds of item. Package statusapi
// fills it from its route table (Describe); internal/build/openapigen
// writes the document from it.
package apidoc
