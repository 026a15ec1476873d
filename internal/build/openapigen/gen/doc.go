// Command gen writes the OpenAPI document of package statusapi's routes
// to the file its argument names (go generate ./openapi).
package main
