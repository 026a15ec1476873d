package statusapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/envelope"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/store"
)

// ReadinessTimeout bounds one check of the Readiness handler: longer than
// bunstore's query timeout, so that a slow database is reported as such.
const ReadinessTimeout = 5 * time.Second

// Readiness returns the handler of a readiness probe (a portal's
// /readyz) over the parts a handler made by New reads from, checked as
// Ready checks them (a nil lim keeps a replica whose limiter fails open
// in service while Redis is down). It answers GET and HEAD:
//
//	200 {"status":"ready"}
//	503 {"status":"unavailable"}
//
// and any other method 405 METHOD_NOT_ALLOWED. The body never says which
// part failed nor why (a probe may be public; errors hold host names and
// driver messages): each failing check is logged to logger (nil:
// slog.Default()) at Warn, with the failed parts ("store", "key store",
// "limiter"), Ready's error and the request id. Every answer carries
// Cache-Control: no-store and an X-Request-Id, kept from the request as
// the API keeps it. Each check is bounded by ReadinessTimeout, counted
// as failed past it. The handler is safe for concurrent use.
func Readiness(st store.Store, keys auth.KeyResolver, lim ratelimit.Limiter, logger *slog.Logger) http.Handler {
	if logger == nil {
		logger = slog.Default()
	}
	return &readiness{st: st, keys: keys, lim: lim, log: logger}
}

type readiness struct {
	st   store.Store
	keys auth.KeyResolver
	lim  ratelimit.Limiter
	log  *slog.Logger
}

func (rd *readiness) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	id := requestID(r)
	hd.Set(envelope.RequestIDHeader, id)
	hd.Set("Cache-Control", "no-store")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hd.Set("Allow", "GET, HEAD")
		envelope.WriteError(w, r, envelope.New(envelope.MethodNotAllowed, "use GET or HEAD"))
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), ReadinessTimeout)
	defer cancel()
	err := Ready(ctx, rd.st, rd.keys, rd.lim)
	if err == nil {
		envelope.Write(w, r, http.StatusOK, readyStatus{"ready"})
		return
	}
	rd.log.WarnContext(r.Context(), "statusapi: not ready", "failed", failedParts(err), "err", err.Error(), "request_id", id)
	envelope.Write(w, r, http.StatusServiceUnavailable, readyStatus{"unavailable"})
}

// readyStatus is the body of a readiness answer.
type readyStatus struct {
	Status string `json:"status"`
}

// failedParts returns the names of the parts that Ready's error says
// failed, or "readiness check" when it names none.
func failedParts(err error) []string {
	var parts []string
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, e := range errs {
		var pe *PartError
		if errors.As(e, &pe) {
			parts = append(parts, pe.Part)
		}
	}
	if len(parts) == 0 {
		parts = []string{"readiness check"}
	}
	return parts
}
