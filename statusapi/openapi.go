package statusapi

import (
	"net/http"
	"strconv"

	"github.com/clientstatus/clientstatus/envelope"
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
	respond(w, r, func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", envelope.ContentType)
		w.Header().Set("Content-Length", strconv.Itoa(len(openAPIDocument)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(openAPIDocument)
	}, nil, nil)
}

// openAPIDocument is read once: openapi.JSON copies on each call.
var openAPIDocument = openapi.JSON()
