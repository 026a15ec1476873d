package statusapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/envelope"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/store"
)

// fail writes err as an error envelope. It is the one place where errors
// become codes:
//
//   - an *envelope.Error is written as it is;
//   - store.ErrNotFound is 404 NOT_FOUND;
//   - auth.ErrInvalidKey is 401 UNAUTHORIZED; a revoked or expired key
//     (auth.KeyError) is logged with its id (see logRefusedKey);
//   - store.ErrUnavailable, auth.ErrUnavailable, ratelimit.ErrUnavailable
//     and context.DeadlineExceeded (the request's timeout) are 503
//     UNAVAILABLE, logged at most once per UnavailableLogInterval with
//     a count (see logUnavailable);
//   - every 503 UNAVAILABLE carries Retry-After: 1, so clients retry
//     soon but not at once;
//   - context.Canceled when the client has gone writes nothing: nobody
//     would read it;
//   - anything else is 500 INTERNAL with a generic message, and the cause
//     is logged with the request id.
func (h *handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	var e *envelope.Error
	switch {
	case errors.As(err, &e):
	case errors.Is(err, store.ErrNotFound):
		e = envelope.New(envelope.NotFound, "no such item")
	case errors.Is(err, auth.ErrInvalidKey):
		h.logRefusedKey(w, r, err)
		e = envelope.New(envelope.Unauthorized, "the API key is invalid, revoked or expired")
	case errors.Is(err, store.ErrUnavailable), errors.Is(err, auth.ErrUnavailable),
		errors.Is(err, ratelimit.ErrUnavailable), errors.Is(err, context.DeadlineExceeded):
		h.logUnavailable(w, r, err)
		e = envelope.New(envelope.Unavailable, "the service is temporarily unavailable; retry later")
	case errors.Is(err, context.Canceled) && r.Context().Err() != nil:
		return
	default:
		h.log(r, w, slog.LevelError, "statusapi: request failed", "err", err.Error())
		e = envelope.New(envelope.Internal, "internal error")
	}
	if info := infoOf(w); info != nil {
		info.ErrorCode = string(e.Code)
		if e.Code == envelope.Unauthorized || e.Code == envelope.Unavailable || e.Code == envelope.Internal {
			info.Reason = err.Error() // the cause, never sent: see RequestInfo.Reason
		}
	}
	w.Header().Set("Cache-Control", "no-store")
	if e.Code == envelope.Unavailable {
		w.Header().Set("Retry-After", "1")
	}
	envelope.WriteError(w, r, e)
}

// log logs msg at level with the request id, method and path, then args
// (slog's key, value pairs). The query string is left out: on the file
// route it holds a signature.
func (h *handler) log(r *http.Request, w http.ResponseWriter, level slog.Level, msg string, args ...any) {
	args = append([]any{
		"request_id", w.Header().Get(envelope.RequestIDHeader),
		"method", r.Method, "path", r.URL.Path,
	}, args...)
	h.cfg.logger.Log(r.Context(), level, msg, args...)
}

// notFound answers a path that is no route.
func (h *handler) notFound(w http.ResponseWriter, r *http.Request) {
	h.fail(w, r, envelope.New(envelope.NotFound, "no such route"))
}

// methodNotAllowed answers a route's path with a method other than GET and
// HEAD.
func (h *handler) methodNotAllowed(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Allow", "GET, HEAD")
	h.fail(w, r, envelope.Errorf(envelope.MethodNotAllowed, "method %s is not allowed; use GET or HEAD", r.Method))
}
