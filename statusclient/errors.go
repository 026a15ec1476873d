package statusclient

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The error codes of the /v1 contract, as found in Error.Code.
const (
	CodeInvalidParameter = "INVALID_PARAMETER"  // 400: a query parameter is unknown, repeated, empty or out of range
	CodeUnauthorized     = "UNAUTHORIZED"       // 401: no key, or an unknown, revoked or expired one
	CodeForbidden        = "FORBIDDEN"          // 403: no active retainer, or API access is off
	CodeLinkExpired      = "LINK_EXPIRED"       // 403: a signed download link past its expiry
	CodeInvalidSignature = "INVALID_SIGNATURE"  // 403: a signed download link that was changed
	CodeNotFound         = "NOT_FOUND"          // 404: no such item for this organization
	CodeMethodNotAllowed = "METHOD_NOT_ALLOWED" // 405
	CodeFileNotAvailable = "FILE_NOT_AVAILABLE" // 409: a deliverable with no file attached
	CodeRateLimited      = "RATE_LIMITED"       // 429: the organization's budget is spent; see Error.RetryAfter
	CodeInternal         = "INTERNAL"           // 500
	CodeUnavailable      = "UNAVAILABLE"        // 503: the service cannot answer now
)

// Error is an answer of the API other than a success: every non-2xx
// response becomes an *Error, so callers branch on it with errors.As:
//
//	var apiErr *statusclient.Error
//	if errors.As(err, &apiErr) && apiErr.Code == statusclient.CodeNotFound {
//		...
//	}
//
// Transport failures (connection refused, timeouts, a cancelled context) are
// not *Error values: they wrap the underlying error, so errors.Is(err,
// context.Canceled) works on them.
type Error struct {
	// StatusCode is the HTTP status of the response.
	StatusCode int
	// Code is error.code, one of the Code constants. A response without the
	// contract's error body (from a proxy, say) gets "HTTP_" and its status,
	// as in "HTTP_502".
	Code string
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

// readError turns a non-2xx response into an *Error, whatever its body.
func readError(res *http.Response) *Error {
	e := &Error{StatusCode: res.StatusCode}
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
		e.Code = body.Error.Code
		e.Message = body.Error.Message
		e.Param = body.Error.Param
		e.RequestID = body.Error.RequestID
	} else {
		e.Code = "HTTP_" + strconv.Itoa(res.StatusCode)
		e.Message = http.StatusText(res.StatusCode)
	}
	if e.RequestID == "" {
		e.RequestID = res.Header.Get("X-Request-Id")
	}
	e.RetryAfter, e.hasRetryAfter = parseRetryAfter(res.Header.Get("Retry-After"), time.Now())
	return e
}
