package envelope

import (
	"fmt"
	"net/http"
)

// Code is a machine-readable error code, sent as error.code. Clients branch
// on it; the HTTP status follows from it (see Code.Status).
type Code string

// The whole error catalogue of the /v1 contract; catalogue says each
// code's status and meaning.
const (
	InvalidParameter  Code = "INVALID_PARAMETER"
	Unauthorized      Code = "UNAUTHORIZED"
	Forbidden         Code = "FORBIDDEN"
	InsufficientScope Code = "INSUFFICIENT_SCOPE"
	LinkExpired       Code = "LINK_EXPIRED"
	InvalidSignature  Code = "INVALID_SIGNATURE"
	NotFound          Code = "NOT_FOUND"
	MethodNotAllowed  Code = "METHOD_NOT_ALLOWED"
	FileNotAvailable  Code = "FILE_NOT_AVAILABLE"
	RateLimited       Code = "RATE_LIMITED"
	Internal          Code = "INTERNAL"
	Unavailable       Code = "UNAVAILABLE"
)

// catalogue is each code with its HTTP status and when it is answered,
// said once: the OpenAPI document's error responses are made from it.
var catalogue = []struct {
	code   Code
	status int
	means  string
}{
	{InvalidParameter, http.StatusBadRequest, "a query parameter is unknown, repeated, empty, malformed or out of range; `error.param` names it."},
	{Unauthorized, http.StatusUnauthorized, "no `Authorization` header, not `Bearer <key>`, or an unknown, revoked or expired key."},
	{Forbidden, http.StatusForbidden, "the key is valid but its account has no active retainer or API access is disabled, or the key is restricted and this server cannot enforce restrictions."},
	{InsufficientScope, http.StatusForbidden, "the key is restricted to scopes that do not include the route's (see the operation's `x-scope`), named in `WWW-Authenticate`."},
	{LinkExpired, http.StatusForbidden, "the signed link is past its expiry."},
	{InvalidSignature, http.StatusForbidden, "the link was changed or is incomplete."},
	{NotFound, http.StatusNotFound, "no such item for this organization (an id of another organization answers the same), or no such route under /v1."},
	{MethodNotAllowed, http.StatusMethodNotAllowed, "any method but GET or HEAD, on any route."},
	{FileNotAvailable, http.StatusConflict, "the deliverable has no file attached, or its file is not available (the message says which)."},
	{RateLimited, http.StatusTooManyRequests, "the organization's plan budget is spent for this window."},
	{Internal, http.StatusInternalServerError, "an unexpected error. The message carries no internals; quote the request id."},
	{Unavailable, http.StatusServiceUnavailable, "the store, the key store or the rate limiter is unreachable or timed out."},
}

// Codes lists the whole catalogue, in the contract's order (by status), so
// that a document or a client can be checked against it without a second
// hand-written list.
var Codes = func() []Code {
	out := make([]Code, len(catalogue))
	for i, c := range catalogue {
		out[i] = c.code
	}
	return out
}()

// Status is the HTTP status that the contract pairs with c. An unknown code
// is a programming error and maps to 500.
func (c Code) Status() int {
	for _, e := range catalogue {
		if e.code == c {
			return e.status
		}
	}
	return http.StatusInternalServerError
}

// Means says when the contract answers c, in the words of the API's
// reference (Markdown); "" for an unknown code.
func (c Code) Means() string {
	for _, e := range catalogue {
		if e.code == c {
			return e.means
		}
	}
	return ""
}

// Error is the body of an error response: {"error": {...}}. It is also a Go
// error, so handlers can return it and have it written as it is.
type Error struct {
	Code    Code   `json:"code"`
	Message string `json:"message"`
	// Param names the offending query parameter, for INVALID_PARAMETER.
	Param string `json:"param,omitempty"`
	// RequestID repeats the response's X-Request-Id, so a client that logs
	// only the body can still quote it to the operator.
	RequestID string `json:"request_id,omitempty"`
}

// Error implements the error interface.
func (e *Error) Error() string {
	if e.Param != "" {
		return fmt.Sprintf("%s (%s): %s", e.Code, e.Param, e.Message)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Status is the HTTP status of the error's code.
func (e *Error) Status() int { return e.Code.Status() }

// New returns an error with the given code and message.
func New(code Code, message string) *Error {
	return &Error{Code: code, Message: message}
}

// Errorf returns an error with the given code and a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// InvalidParam returns an INVALID_PARAMETER error naming the parameter.
func InvalidParam(param, message string) *Error {
	return &Error{Code: InvalidParameter, Message: message, Param: param}
}
