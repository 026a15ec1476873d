package main

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"strings"

	"github.com/clientstatus/clientstatus/envelope"
)

// healthz answers /healthz, liveness: the process runs and serves HTTP,
// whatever its services do (restarting it would not bring PostgreSQL
// back). Like the API's, every answer carries X-Request-Id.
func healthz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set(envelope.RequestIDHeader, requestID(r))
	w.Header().Set("Cache-Control", "no-store")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		envelope.WriteError(w, r, envelope.New(envelope.MethodNotAllowed, "use GET or HEAD"))
		return
	}
	envelope.Write(w, r, http.StatusOK, map[string]string{"status": "ok"})
}

// requestIDChars are the characters of a request id the API keeps.
const requestIDChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:-"

// requestID returns the client's X-Request-Id when it is sane, as the API
// keeps it (1 to 128 of requestIDChars), else a new random one, so that
// the server's own routes answer with ids like the API's.
func requestID(r *http.Request) string {
	if ids := r.Header.Values(envelope.RequestIDHeader); len(ids) == 1 && len(ids[0]) <= 128 &&
		ids[0] != "" && strings.Trim(ids[0], requestIDChars) == "" {
		return ids[0]
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
