package openapi

import _ "embed"

//go:embed openapi.json
var document []byte

// JSON returns the OpenAPI document, UTF-8 encoded JSON. Each call returns a
// fresh copy, so a caller may keep or change it.
func JSON() []byte {
	return append([]byte(nil), document...)
}
