package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/clientstatus/clientstatus/envelope"
	"github.com/clientstatus/clientstatus/statusapi"
)

// readyTimeout bounds one readiness check: longer than the store's query
// timeout, so that a slow database is reported as such.
const readyTimeout = 5 * time.Second

// health answers the server's own routes, /healthz and /readyz, beside
// the API. Like the API's, every answer carries X-Request-Id.
type health struct {
	// ready is statusapi.Ready on the server's parts.
	ready func(context.Context) error
	log   *slog.Logger
}

// serveHTTP answers path, /healthz or /readyz.
func (h health) serveHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set(envelope.RequestIDHeader, requestID(r))
	w.Header().Set("Cache-Control", "no-store")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		envelope.WriteError(w, r, envelope.New(envelope.MethodNotAllowed, "use GET or HEAD"))
		return
	}
	if r.URL.Path == "/healthz" {
		// Liveness: the process runs and serves HTTP, whatever its
		// services do. Restarting it would not bring PostgreSQL back.
		envelope.Write(w, r, http.StatusOK, map[string]string{"status": "ok"})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	err := h.ready(ctx)
	if err == nil {
		envelope.Write(w, r, http.StatusOK, map[string]string{"status": "ready"})
		return
	}
	// The log says why; the body only which part, never an address or a
	// driver's message.
	parts := failedParts(err)
	h.log.WarnContext(r.Context(), "not ready", "failed", parts, "err", err,
		"request_id", w.Header().Get(envelope.RequestIDHeader))
	body := struct {
		Status string   `json:"status"`
		Failed []string `json:"failed"`
	}{"unavailable", parts}
	envelope.Write(w, r, http.StatusServiceUnavailable, body)
}

// failedParts returns the names of the parts that Ready's error says
// failed ("store", "key store", "limiter"), or "readiness check" when it
// names none (the check itself timed out).
func failedParts(err error) []string {
	var parts []string
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, e := range errs {
		var pe *statusapi.PartError
		if errors.As(e, &pe) {
			parts = append(parts, pe.Part)
		}
	}
	if len(parts) == 0 {
		parts = []string{"readiness check"}
	}
	return parts
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
