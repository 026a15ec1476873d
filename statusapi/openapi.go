package statusapi

import (
	"net/http"

	"github.com/clientstatus/clientstatus/openapi"
)

// serveOpenAPI serves GET /v1/openapi.json: the OpenAPI document of this
// API (package openapi), with no key and no rate limit, and an ETag so
// that tools can revalidate it.
func (h *handler) serveOpenAPI(w http.ResponseWriter, r *http.Request) {
	if err := noParams(r); err != nil {
		h.fail(w, r, err)
		return
	}
	send(w, r, openAPIDocument, nil)
}

// openAPIDocument is encoded once: openapi.JSON copies on each call.
var openAPIDocument = encode(func(w http.ResponseWriter) {
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(openapi.JSON())
}, "", "")
