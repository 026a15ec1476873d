package statusclient

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ErrorCode is the machine-readable code of an API error, error.code on the
// wire: callers branch on it, with ErrorCodeOf or Error.Code. A response
// without the contract's error body (from a proxy, say) gets "HTTP_" and its
// status, as in "HTTP_502".
type ErrorCode string

// The error codes of the /v1 contract.
const (
	CodeInvalidParameter  ErrorCode = "INVALID_PARAMETER"  // 400: a query parameter is unknown, repeated, empty or out of range
	CodeUnauthorized      ErrorCode = "UNAUTHORIZED"       // 401: no key, or an unknown, revoked or expired one
	CodeForbidden         ErrorCode = "FORBIDDEN"          // 403: no active retainer, or API access is off
	CodeInsufficientScope ErrorCode = "INSUFFICIENT_SCOPE" // 403: a restricted key without the route's scope
	CodeLinkExpired       ErrorCode = "LINK_EXPIRED"       // 403: a signed download link past its expiry
	CodeInvalidSignature  ErrorCode = "INVALID_SIGNATURE"  // 403: a signed download link that was changed
	CodeNotFound          ErrorCode = "NOT_FOUND"          // 404: no such item for this organization
	CodeMethodNotAllowed  ErrorCode = "METHOD_NOT_ALLOWED" // 405
	CodeFileNotAvailable  ErrorCode = "FILE_NOT_AVAILABLE" // 409: a deliverable with no file attached
	CodeRateLimited       ErrorCode = "RATE_LIMITED"       // 429: the organization's budget is spent; see Error.RetryAfter
	CodeInternal          ErrorCode = "INTERNAL"           // 500
	CodeUnavailable       ErrorCode = "UNAVAILABLE"        // 503: the service cannot answer now
)

// ErrorCodeOf returns the code of the API error in err's chain (found with
// errors.As), or "" when err is nil or holds no *Error: a transport failure,
// a cancelled context, a bad base URL.
//
//	if statusclient.ErrorCodeOf(err) == statusclient.CodeNotFound {
//		...
//	}
func ErrorCodeOf(err error) ErrorCode {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// Error is an answer of the API other than a success: every non-2xx
// response becomes an *Error. Branch on its code with ErrorCodeOf, and
// reach the rest with errors.As:
//
//	var apiErr *statusclient.Error
//	if errors.As(err, &apiErr) && apiErr.Code == statusclient.CodeRateLimited {
//		log.Printf("retry in %v", apiErr.RetryAfter)
//	}
//
// Transport failures (connection refused, timeouts, a cancelled context) are
// not *Error values: they wrap the underlying error, so errors.Is(err,
// context.Canceled) works on them.
type Error struct {
	// StatusCode is the HTTP status of the response.
	StatusCode int
	// Code is error.code, one of the Code constants, or "HTTP_" and the
	// status for a response without the contract's error body.
	Code ErrorCode
	// Message is error.message, human-readable; the status text when the
	// body had none.
	Message string
	// Param names the offending query parameter, for INVALID_PARAMETER.
	Param string
	// RequestID is error.request_id, or the X-Request-Id header when the
	// body had none: quote it to the operator.
	RequestID string
	// RetryAfter is the wait the server asked for in Retry-After (429, 503),
	// 0 when it asked for none.
	RetryAfter time.Duration
	// Response is the answer's Response, the one the method returned with
	// the error: its Rate holds the budget's figures (a 429's Reset says
	// when the budget is whole again).
	Response *Response

	hasRetryAfter bool
}

// Error implements the error interface. The text never holds the API key.
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "statusclient: %d %s", e.StatusCode, e.Code)
	if e.Param != "" {
		fmt.Fprintf(&b, " (%s)", e.Param)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if e.RequestID != "" {
		b.WriteString(" [request " + e.RequestID + "]")
	}
	return b.String()
}

// readError turns a non-2xx response, whose Response is resp, into an
// *Error, whatever its body.
func readError(res *http.Response, resp *Response) *Error {
	e := &Error{StatusCode: res.StatusCode, Response: resp}
	var body struct {
		Error *struct {
			Code      string `json:"code"`
			Message   string `json:"message"`
			Param     string `json:"param"`
			RequestID string `json:"request_id"`
		} `json:"error"`
	}
	raw, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	if json.Unmarshal(raw, &body) == nil && body.Error != nil && body.Error.Code != "" {
		e.Code = ErrorCode(body.Error.Code)
		e.Message = body.Error.Message
		e.Param = body.Error.Param
		e.RequestID = body.Error.RequestID
	} else {
		e.Code = ErrorCode("HTTP_" + strconv.Itoa(res.StatusCode))
		e.Message = http.StatusText(res.StatusCode)
	}
	if e.RequestID == "" {
		e.RequestID = resp.RequestID
	}
	e.RetryAfter, e.hasRetryAfter = parseRetryAfter(res.Header.Get("Retry-After"), time.Now())
	return e
}
