// Command gen writes openapi/openapi.json, the OpenAPI document of
// package statusapi's routes, in the module it is run in (go generate
// ./statusapi).
package main
