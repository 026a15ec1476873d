package statusapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync/atomic"
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
//	503 {"status":"unavailable","reason":"the database schema was never migrated: ..."}
//
// and any other method 405 METHOD_NOT_ALLOWED. The body never says which
// part failed nor why (a probe may be public; errors hold host names and
// driver messages), except a store's *store.SchemaError, whose reason is
// made to be shown and says what to do: it is logged once at Error until
// it changes. Any other failing check is logged to logger (nil:
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
	// schemaReason is the last store.SchemaError reason logged.
	schemaReason atomic.Pointer[string]
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
		rd.schemaReason.Store(nil)
		envelope.Write(w, r, http.StatusOK, readyStatus{Status: "ready"})
		return
	}
	var se *store.SchemaError
	if errors.As(err, &se) {
		// A schema to migrate does not mend itself: said once (until the
		// reason changes), not at every probe.
		if prev := rd.schemaReason.Swap(&se.Reason); prev == nil || *prev != se.Reason {
			rd.log.ErrorContext(r.Context(), "statusapi: not ready: "+se.Reason, "failed", failedParts(err), "request_id", id)
		}
		envelope.Write(w, r, http.StatusServiceUnavailable, readyStatus{"unavailable", se.Reason})
		return
	}
	rd.log.WarnContext(r.Context(), "statusapi: not ready", "failed", failedParts(err), "err", err.Error(), "request_id", id)
	envelope.Write(w, r, http.StatusServiceUnavailable, readyStatus{Status: "unavailable"})
}

// readyStatus is the body of a readiness answer.
type readyStatus struct {
	Status string `json:"status"`
	// Reason says what an operator must do, when no retry mends it (a
	// store whose schema is not this version's).
	Reason string `json:"reason,omitempty"`
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

// The parts Ready checks, as PartError names them.
const (
	PartStore    = "store"
	PartKeyStore = "key store"
	PartLimiter  = "limiter"
)

// PartError is the failure of one part in Ready's error.
type PartError struct {
	Part string // PartStore, PartKeyStore or PartLimiter
	Err  error
}

// Error returns the part's name and its error: "store: ...".
func (e *PartError) Error() string { return e.Part + ": " + e.Err.Error() }

// Unwrap returns the part's error.
func (e *PartError) Unwrap() error { return e.Err }

// Ready reports whether the parts a handler made by New reads from can
// serve, for a portal's readiness check (/readyz). Each of st, keys and
// lim declares Ping (store.Store, auth.KeyResolver, ratelimit.Limiter),
// and each is pinged, all at once: bunstore.Store runs a SELECT 1,
// auth.Keys, auth.Cache and auth.Chain ping what is behind them, a Redis
// ratelimit.PlanLimiter sends a PING; the in-memory parts answer nil. A
// nil part is left out, as ready: pass a nil lim to keep a replica whose
// limiter fails open (and so still serves) in service while Redis is
// down.
//
// Ready returns nil when every part answers, else the errors.Join of one
// *PartError per failing part, in the order store, key store, limiter
// ("store: bunstore: ping: ..."). It returns by the time ctx is done,
// counting a part that has not answered by then as failed with ctx's
// error; each part also applies its own timeout. The error may hold
// internals (host names, driver messages): log it, never send it to a
// client.
func Ready(ctx context.Context, st store.Store, keys auth.KeyResolver, lim ratelimit.Limiter) error {
	type pinger interface{ Ping(context.Context) error }
	parts := []struct {
		name string
		part pinger // nil (a nil argument): left out
	}{{PartStore, st}, {PartKeyStore, keys}, {PartLimiter, lim}}
	results := make([]chan error, len(parts))
	for i, p := range parts {
		results[i] = make(chan error, 1) // a Ping that outlives ctx finishes unread
		if p.part == nil {
			results[i] <- nil
			continue
		}
		go func() { results[i] <- p.part.Ping(ctx) }()
	}
	var errs []error
	for i, res := range results {
		var err error
		select {
		case err = <-res:
		case <-ctx.Done():
			select {
			case err = <-res:
			default:
				err = ctx.Err()
			}
		}
		if err != nil {
			errs = append(errs, &PartError{Part: parts[i].name, Err: err})
		}
	}
	return errors.Join(errs...)
}
