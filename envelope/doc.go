// Package envelope writes the JSON envelope of the /v1 contract:
//
//	{"data": {...}}                                          a single item
//	{"data": [...], "meta": {"page", "per_page", "total"}}  a list
//	{"error": {"code", "message", "param", "request_id"}}   an error
//
// and holds the contract's whole error catalogue (Code) with each code's HTTP
// status. It depends on the standard library only.
package envelope
