package statusclient

import (
	"context"
	"iter"
	"time"
)

// RequestLog is one request the organization made with one of its keys,
// as the server's request log keeps it (7 days): never a key, a token, a
// query value or a body.
type RequestLog struct {
	ID     string `json:"id"` // the request id: the X-Request-Id of its response
	Method string `json:"method"`
	Path   string `json:"path"`  // as sent, without the query
	Route  string `json:"route"` // the pattern: "/v1/invoices/{id}"
	// Query holds the names of the query parameters sent, sorted, each
	// once; never their values.
	Query     []string   `json:"query"`
	Status    int        `json:"status"`
	ErrorCode *ErrorCode `json:"errorCode"` // nil on success
	// KeyID is the public id of the key used; nil for a credential that
	// is no stored key (a portal's token).
	KeyID      *string   `json:"keyId"`
	DurationMs int64     `json:"durationMs"`
	CreatedAt  time.Time `json:"createdAt"`
}

// RequestLogListOptions selects requests of the log. Zero values leave the
// server's defaults: page 1, 20 a page, any status.
type RequestLogListOptions struct {
	ListOptions
	// Status, when not "", keeps the requests answered with this status
	// ("404") or with a status of this class ("4xx", "5xx").
	Status string `url:"status"`
}

var requestLogs = collection[RequestLog, RequestLogListOptions]{path: "/request_logs"}

// RequestLogs returns one page of the organization's requests of the last
// 7 days, newest first (GET /v1/request_logs; the key needs the scope
// logs:read). A restricted key sees only its own requests. Requests to the
// log itself are not in it. A server whose store keeps no log answers an
// *Error with Code CodeNotFound.
func (c *Client) RequestLogs(ctx context.Context, opts RequestLogListOptions) ([]RequestLog, *Response, error) {
	return requestLogs.list(ctx, c, opts)
}

// AllRequestLogs walks every page of RequestLogs (see ListOptions). The log
// grows while it is walked (not by the walk's own requests): a request made
// meanwhile shifts the pages, so an item may come twice.
func (c *Client) AllRequestLogs(ctx context.Context, opts RequestLogListOptions) iter.Seq2[RequestLog, error] {
	return requestLogs.all(ctx, c, opts)
}
