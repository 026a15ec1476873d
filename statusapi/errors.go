package statusapi

import (
	"context"
	"errors"
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
//   - auth.ErrInvalidKey is 401 UNAUTHORIZED;
//   - store.ErrUnavailable, auth.ErrUnavailable, ratelimit.ErrUnavailable
//     and context.DeadlineExceeded (the request's timeout) are 503
//     UNAVAILABLE with Retry-After: 1, logged as a warning;
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
		e = envelope.New(envelope.Unauthorized, "the API key is invalid, revoked or expired")
	case errors.Is(err, store.ErrUnavailable), errors.Is(err, auth.ErrUnavailable),
		errors.Is(err, ratelimit.ErrUnavailable), errors.Is(err, context.DeadlineExceeded):
		h.log(r, w, "statusapi: backend unavailable", err, false)
		w.Header().Set("Retry-After", "1")
		e = envelope.New(envelope.Unavailable, "the service is temporarily unavailable; retry later")
	case errors.Is(err, context.Canceled) && r.Context().Err() != nil:
		return
	default:
		h.log(r, w, "statusapi: request failed", err, true)
		e = envelope.New(envelope.Internal, "internal error")
	}
	w.Header().Set("Cache-Control", "no-store")
	envelope.WriteError(w, r, e)
}

// log logs err with the request id, method and path. The query string is
// left out: on the file route it holds a signature.
func (h *handler) log(r *http.Request, w http.ResponseWriter, msg string, err error, isError bool) {
	args := []any{
		"request_id", w.Header().Get(envelope.RequestIDHeader),
		"method", r.Method, "path", r.URL.Path, "err", err.Error(),
	}
	if isError {
		h.cfg.logger.ErrorContext(r.Context(), msg, args...)
	} else {
		h.cfg.logger.WarnContext(r.Context(), msg, args...)
	}
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
