package envelope

import (
	"bytes"
	"cmp"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
)

// ContentType is the Content-Type of every response body.
const ContentType = "application/json; charset=utf-8"

// RequestIDHeader is the header that carries the request id. WriteError copies
// its value, if already set on the response, into error.request_id.
const RequestIDHeader = "X-Request-Id"

// Meta is the paging information of a list response.
type Meta struct {
	Page    int `json:"page"`     // the page served, from 1
	PerPage int `json:"per_page"` // the effective limit
	Total   int `json:"total"`    // all items matching the filters
	// SyncedThrough is set on a list answered with updatedSince and on
	// every page of /v1/deletions (a timestamp in the contract's format):
	// every write the answer could not see yet has, or will get, an
	// updatedAt (deletedAt) at or after it. It is left out of every other
	// list: meta is not an item, and a key that cannot mean anything
	// there is better absent than null.
	SyncedThrough string `json:"syncedThrough,omitempty"`
	// Next is set on a list walked by cursor (answered with updatedSince,
	// a page of /v1/deletions): the after of the items that follow, null
	// when none follows. nil leaves the key out of every other list.
	Next *Cursor `json:"next,omitempty"`
}

// Cursor is meta.next: After, the opaque value of the after parameter
// that continues a walk, or null when it is "" (no item follows).
type Cursor struct {
	After string
}

// MarshalJSON writes the cursor as a JSON string, or null.
func (c Cursor) MarshalJSON() ([]byte, error) {
	if c.After == "" {
		return []byte("null"), nil
	}
	return json.Marshal(c.After)
}

type itemBody struct {
	Data any `json:"data"`
}

type listBody struct {
	Data any  `json:"data"`
	Meta Meta `json:"meta"`
}

type errorBody struct {
	Error *Error `json:"error"`
}

// WriteItem writes {"data": v} with status 200.
func WriteItem(w http.ResponseWriter, r *http.Request, v any) {
	Write(w, r, http.StatusOK, itemBody{Data: v})
}

// WriteList writes {"data": items, "meta": meta} with status 200. A nil slice
// is still written as [], so pass a typed slice.
func WriteList[T any](w http.ResponseWriter, r *http.Request, items []T, meta Meta) {
	if items == nil {
		items = []T{}
	}
	Write(w, r, http.StatusOK, listBody{Data: items, Meta: meta})
}

// WriteError writes {"error": e} with the status of e's code. The request id
// is taken from the response's X-Request-Id header when e carries none. A
// 401 also gets WWW-Authenticate: Bearer.
func WriteError(w http.ResponseWriter, r *http.Request, e *Error) {
	out := *e
	out.RequestID = cmp.Or(out.RequestID, w.Header().Get(RequestIDHeader))
	if out.Code == Unauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer`)
	}
	Write(w, r, out.Status(), errorBody{Error: &out})
}

// Write marshals v and writes it with status, the contract's Content-Type and
// a Content-Length. For a HEAD request it writes the same headers and no
// body. A value that cannot be marshalled is a bug: it is answered with a
// generic INTERNAL error instead. HTML characters are not escaped.
func Write(w http.ResponseWriter, r *http.Request, status int, v any) {
	buf := buffers.Get().(*bytes.Buffer)
	defer putBuffer(buf)
	buf.Reset()
	enc := json.NewEncoder(buf)
	// Download URLs hold '&': keep it readable for curl users rather than
	// escaped as \u0026 (the body is JSON, never HTML).
	enc.SetEscapeHTML(false)
	var body []byte
	if err := enc.Encode(v); err != nil {
		status = http.StatusInternalServerError
		body = []byte(`{"error":{"code":"INTERNAL","message":"internal error"}}` + "\n")
	} else {
		body = buf.Bytes() // Encode ends it with a newline
	}
	h := w.Header()
	h.Set("Content-Type", ContentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if r == nil || r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// buffers hold the encoding buffers of Write, which a list of 100 items
// grows to tens of kilobytes: reused, they cost no allocation per answer.
// Write passes the bytes to the ResponseWriter, which copies them (an
// io.Writer must not keep what it is given).
var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// putBuffer gives buf back to buffers, unless it grew past 1 MiB (a
// rare, huge answer is not kept alive for the next small one).
func putBuffer(buf *bytes.Buffer) {
	if buf.Cap() <= 1<<20 {
		buffers.Put(buf)
	}
}
