package statusapi

import (
	"net/http"
	"strconv"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/envelope"
	"github.com/clientstatus/clientstatus/internal/apidoc"
	"github.com/clientstatus/clientstatus/store"
)

// requestLogRoute is the path of the request log, whose own requests are
// not recorded.
const requestLogRoute = "/v1/request_logs"

// WithRequestLog makes the handler record the requests of authenticated
// callers with rec (see RequestRecorder) and serve GET /v1/request_logs
// from rec's sink (the store.RequestLog given to NewRequestRecorder,
// normally the handler's own store), which is also what the portal reads
// the usage per key from. Replicas whose recorders share one sink (one
// database) all list what any of them recorded. nil keeps the default:
// nothing is recorded and GET /v1/request_logs is not served (404, like
// an unknown path, and not in Routes).
func WithRequestLog(rec *RequestRecorder) Option {
	return func(c *config) { c.recorder = rec }
}

// recordRequest hands the request w answered to the recorder, when there
// is one and a caller was authenticated, unless it was a request for the
// request log itself.
func (h *handler) recordRequest(w *trackingWriter, r *http.Request, info *RequestInfo) {
	if h.cfg.recorder == nil || !w.keyed || info.Route == requestLogRoute {
		return
	}
	h.cfg.recorder.record(pendingRequest{
		rec: store.RequestRecord{
			ID: info.RequestID, OrgID: info.OrgID, KeyID: info.KeyID,
			Method: r.Method, Path: r.URL.EscapedPath(), Route: info.Route,
			Status: info.Status, ErrorCode: info.ErrorCode,
			Duration: info.Duration, CreatedAt: w.arrived,
		},
		rawQuery: r.URL.RawQuery,
	})
}

// requestLogItem is a RequestRecord on the wire.
type requestLogItem struct {
	ID         string   `json:"id" oa:"minLength=1"`
	Method     string   `json:"method"`
	Path       string   `json:"path"`
	Route      string   `json:"route"`
	Query      []string `json:"query"`
	Status     int      `json:"status" oa:"minimum=100,maximum=599"`
	ErrorCode  *string  `json:"errorCode" oa:"ref=ErrorCode"`
	KeyID      *string  `json:"keyId" oa:"minLength=1"`
	DurationMs int64    `json:"durationMs" oa:"minimum=0"`
	CreatedAt  string   `json:"createdAt" oa:"time"`
}

var requestLogItemWire = describeWire[requestLogItem](apidoc.Wire{
	Name:        "RequestLog",
	Description: "One request the organization made with a key, as the request log keeps it: never a query value, a key, a token or a body.",
	Examples:    `[{"id": "3f9c2a7e1b5d4c6f8a0e2d4b6c8a0f1e", "method": "GET", "path": "/v1/invoices", "route": "/v1/invoices", "query": ["limit", "stauts"], "status": 400, "errorCode": "INVALID_PARAMETER", "keyId": "key_7Hq2", "durationMs": 3, "createdAt": "2026-03-01T09:00:00Z"}]`,
	Fields: map[string]string{
		"id":         "The request id: the `X-Request-Id` of its response (a client's own, when it sent one; so not necessarily unique).",
		"method":     "`GET` or `HEAD`.",
		"path":       "The path as sent, relative to where the API is mounted, without the query.",
		"route":      "The route's pattern, such as `/v1/invoices/{id}`.",
		"query":      "The names of the query parameters sent, sorted, each once; never their values.",
		"status":     "The HTTP status of the answer.",
		"errorCode":  "The answer's `error.code`; null on success.",
		"keyId":      "The public id of the API key used (never the key); null for a credential that is no stored key (a token of the portal's).",
		"durationMs": "How long the server took to answer, in milliseconds.",
		"createdAt":  "When the request arrived.",
	},
})

func requestLogOut(rec store.RequestRecord) requestLogItem {
	out := requestLogItem{
		ID: rec.ID, Method: rec.Method, Path: rec.Path, Route: rec.Route, Query: rec.Query,
		Status: rec.Status, DurationMs: rec.Duration.Milliseconds(), CreatedAt: timestamp(rec.CreatedAt),
	}
	if out.Query == nil {
		out.Query = []string{}
	}
	if rec.ErrorCode != "" {
		out.ErrorCode = &rec.ErrorCode
	}
	if rec.KeyID != "" {
		out.KeyID = &rec.KeyID
	}
	return out
}

// requestLogRoutes is GET /v1/request_logs, with WithRequestLog; none
// without. It is not cached:
// its answer changes with every request of the organization.
func (h *handler) requestLogRoutes() []route {
	if h.cfg.recorder == nil {
		return nil
	}
	return []route{h.keyedRoute(requestLogRoute, auth.ScopeLogs, h.listRequestLogs, requestLogRoute).answers(listAnswer[requestLogItem]()).describe(operation{
		ID: "listRequestLogs", Tag: "Logs",
		Summary:     "List requests",
		Description: "The organization's requests of the last 7 days, made with its keys, newest first: to debug a 400 or a 403 without asking support. Each records the route, the names of the query parameters (never their values), the status and error code, the key's public id and the time taken; never a key, a token or a body. Requests to this route itself are not logged, nor are requests refused before a key was accepted (401, 403 `FORBIDDEN`) and those of the public routes. A restricted key (scopes or projects) sees only its own requests. Not response-cached: it changes with every request. Served when the deployment keeps a request log (statusapi.WithRequestLog); otherwise the path answers 404 like any unknown path.",
		Responses:   map[int]string{200: "RequestLogListResponse", 304: "NotModified"},
	}, requestLogParams...)}
}

// requestLogParams are the parameters of the request log, as parsed and
// documented.
var requestLogParams = []*param{params.Page, params.Limit, params.RequestLogStatus, params.IfNoneMatch}

// listRequestLogs serves GET /v1/request_logs?page&limit&status: the
// organization's requests of the last 7 days, newest first. status is an
// HTTP status (three digits) or a class, 4xx or 5xx. A restricted key
// (scopes or projects) sees only its own requests; a restricted
// credential that is no stored key (a JWT) has none.
func (h *handler) listRequestLogs(r *http.Request, c caller) (response, error) {
	q, err := listParamsOf(r, listSpec{filters: requestLogParams})
	if err != nil {
		return response{}, err
	}
	sq := store.RequestLogQuery{PageRequest: q.PageRequest}
	if v, ok := q.given[params.RequestLogStatus.Name]; ok {
		if sq.Status, sq.Class, err = statusFilter(v); err != nil {
			return response{}, err
		}
	}
	if c.Restricted() {
		if c.KeyID == "" {
			return page(q, store.Page[store.RequestRecord]{Items: []store.RequestRecord{}}, requestLogOut), nil
		}
		sq.KeyID = c.KeyID
	}
	p, err := h.cfg.recorder.sink.ListRequestLogs(r.Context(), c.Org.ID, sq)
	if err != nil {
		return response{}, err
	}
	return page(q, p, requestLogOut), nil
}

// statusFilter parses the status filter of the request log: "4xx" or
// "5xx" (a class), or an HTTP status from 100 to 599 in three digits.
func statusFilter(v string) (status, class int, err error) {
	switch v {
	case "4xx":
		return 0, 4, nil
	case "5xx":
		return 0, 5, nil
	}
	n, convErr := strconv.Atoi(v)
	if convErr != nil || len(v) != 3 || v[0] < '1' || v[0] > '5' || n < 100 || n > 599 {
		return 0, 0, envelope.InvalidParam(paramStatus, "status must be an HTTP status such as 404, or 4xx or 5xx")
	}
	return n, 0, nil
}
