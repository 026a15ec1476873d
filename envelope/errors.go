package envelope

import (
	"fmt"
	"net/http"
)

// Code is a machine-readable error code, sent as error.code. Clients branch
// on it; the HTTP status follows from it (see Code.Status).
type Code string

// The whole error catalogue of the /v1 contract.
const (
	InvalidParameter  Code = "INVALID_PARAMETER"  // 400: a query parameter is unknown, repeated, empty or out of range
	Unauthorized      Code = "UNAUTHORIZED"       // 401: no key, a malformed header, an unknown, revoked or expired key
	Forbidden         Code = "FORBIDDEN"          // 403: the account has no active retainer or API access is off
	InsufficientScope Code = "INSUFFICIENT_SCOPE" // 403: a restricted key without the scope the route needs
	LinkExpired       Code = "LINK_EXPIRED"       // 403: a signed download link past its expiry
	InvalidSignature  Code = "INVALID_SIGNATURE"  // 403: a signed download link that was changed
	NotFound          Code = "NOT_FOUND"          // 404: no such item for this organization, or no such route
	MethodNotAllowed  Code = "METHOD_NOT_ALLOWED" // 405: anything but GET or HEAD
	FileNotAvailable  Code = "FILE_NOT_AVAILABLE" // 409: a deliverable with no file attached, or whose file is not available
	RateLimited       Code = "RATE_LIMITED"       // 429: the organization's plan budget is spent for this window
	Internal          Code = "INTERNAL"           // 500: a bug; the message never carries internals
	Unavailable       Code = "UNAVAILABLE"        // 503: the store or the limiter is unreachable or timed out
)

// Codes lists the whole catalogue, in the contract's order (by status), so
// that a document or a client can be checked against it without a second
// hand-written list.
var Codes = []Code{
	InvalidParameter, Unauthorized, Forbidden, InsufficientScope, LinkExpired, InvalidSignature,
	NotFound, MethodNotAllowed, FileNotAvailable, RateLimited, Internal, Unavailable,
}

// Status is the HTTP status that the contract pairs with c. An unknown code
// is a programming error and maps to 500.
func (c Code) Status() int {
	switch c {
	case InvalidParameter:
		return http.StatusBadRequest
	case Unauthorized:
		return http.StatusUnauthorized
	case Forbidden, InsufficientScope, LinkExpired, InvalidSignature:
		return http.StatusForbidden
	case NotFound:
		return http.StatusNotFound
	case MethodNotAllowed:
		return http.StatusMethodNotAllowed
	case FileNotAvailable:
		return http.StatusConflict
	case RateLimited:
		return http.StatusTooManyRequests
	case Unavailable:
		return http.StatusServiceUnavailable
	default:
		return http.StatusInternalServerError
	}
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
