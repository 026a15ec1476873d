package openapi

import _ "embed"

// openapi.json is written from statusapi's route table by the command
// internal/build/openapigen/gen.
//go:generate go run github.com/clientstatus/clientstatus/internal/build/openapigen/gen openapi.json

//go:embed openapi.json
var document []byte

// JSON returns the OpenAPI document, UTF-8 encoded JSON. Each call returns a
// fresh copy, so a caller may keep or change it.
func JSON() []byte {
	return append([]byte(nil), document...)
}
