package statusclient

import (
	"net/http"
	"strconv"
	"time"
)

// Response is what an answer of the API says besides its body, as
// go-github's Response: every method returns one, non-nil whenever the
// server answered, a success or not (an *Error holds the same one in
// Error.Response). It is nil when no answer came: a transport failure, a
// cancelled context before any answer, a bad base URL, an empty id.
//
// After a retry (see WithRetry) it describes the last answer.
type Response struct {
	// StatusCode and Header are the HTTP response's; the body has been
	// read and closed.
	StatusCode int
	Header     http.Header

	// Rate is the organization's budget as of this answer.
	Rate Rate

	// Meta is the paging of a list (zero for an answer that is not a
	// page of a list), and NextPage the page that follows it, 0 when it is
	// the last (or the answer is not a page). To walk a list page by page:
	//
	//	for {
	//		invoices, resp, err := c.ListInvoices(ctx, opts)
	//		...
	//		if resp.NextPage == 0 {
	//			break
	//		}
	//		opts.Page = resp.NextPage
	//	}
	Meta     Meta
	NextPage int

	// ETag identifies the answer's body, "" when the server sent none.
	// Pass a list's ETag as the IfNoneMatch option of the same call to
	// learn cheaply whether the page changed (see ErrNotModified).
	ETag string

	// RequestID is the X-Request-Id header: quote it to the operator.
	RequestID string

	// Deprecation is set when the request used something the API has
	// deprecated (a route, a parameter, a field), nil otherwise. The
	// Client also logs it, once per route (WithLogger).
	Deprecation *Deprecation
}

// Rate is the rate-limit budget of the key's organization, from the
// X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset headers.
// Limited is false when the server sent no such headers, as on an
// unlimited (enterprise) plan: the other fields are then zero and mean
// nothing. A server sending only some of them, or a value that is not a
// number, counts as sending none.
type Rate struct {
	Limit     int       // requests a window
	Remaining int       // requests left in this window
	Reset     time.Time // when the window ends and Remaining is Limit again
	Limited   bool      // whether a rate limit applies at all
}

// newResponse reads what a Response holds from res's status and headers.
func newResponse(res *http.Response) *Response {
	return &Response{
		StatusCode:  res.StatusCode,
		Header:      res.Header,
		Rate:        parseRate(res.Header),
		ETag:        res.Header.Get("ETag"),
		RequestID:   res.Header.Get("X-Request-Id"),
		Deprecation: parseDeprecation(res.Header),
	}
}

func parseRate(h http.Header) Rate {
	limit, err1 := strconv.Atoi(h.Get("X-RateLimit-Limit"))
	remaining, err2 := strconv.Atoi(h.Get("X-RateLimit-Remaining"))
	reset, err3 := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return Rate{}
	}
	return Rate{Limit: limit, Remaining: remaining, Reset: time.Unix(reset, 0).UTC(), Limited: true}
}

// setPage sets the paging of a list answer that held n items.
func (r *Response) setPage(m Meta, n int) {
	r.Meta = m
	if n > 0 && m.PerPage > 0 && n >= m.PerPage && m.Page*m.PerPage < m.Total {
		r.NextPage = m.Page + 1
	}
}
