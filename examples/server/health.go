package main

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"

	"github.com/clientstatus/clientstatus/envelope"
)

// health answers the server's own routes, /healthz and /readyz, beside
// the API. Like the API's, every answer carries X-Request-Id.
type health struct {
	// ready is statusapi.Readiness on the server's parts: it answers
	// /readyz and logs why a part is not ready.
	ready http.Handler
}

// serveHTTP answers path, /healthz or /readyz.
func (h health) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/readyz" {
		h.ready.ServeHTTP(w, r)
		return
	}
	w.Header().Set(envelope.RequestIDHeader, requestID(r))
	w.Header().Set("Cache-Control", "no-store")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		envelope.WriteError(w, r, envelope.New(envelope.MethodNotAllowed, "use GET or HEAD"))
		return
	}
	// Liveness: the process runs and serves HTTP, whatever its services
	// do. Restarting it would not bring PostgreSQL back.
	envelope.Write(w, r, http.StatusOK, map[string]string{"status": "ok"})
}

// requestID returns the client's X-Request-Id when it is sane, as the API
// keeps it (1 to 128 characters of [A-Za-z0-9._:-]), else a new random
// one, so that the server's own routes answer with ids like the API's.
func requestID(r *http.Request) string {
	if ids := r.Header.Values(envelope.RequestIDHeader); len(ids) == 1 && saneRequestID(ids[0]) {
		return ids[0]
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func saneRequestID(id string) bool {
	if len(id) < 1 || len(id) > 128 {
		return false
	}
	for _, c := range []byte(id) {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == ':' || c == '-'
		if !ok {
			return false
		}
	}
	return true
}
