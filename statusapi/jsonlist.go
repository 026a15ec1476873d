package statusapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/clientstatus/clientstatus/envelope"
)

// A page of a list is encoded without reflection when its items can
// append their own JSON (jsonAppender): the bytes are those
// envelope.WriteList writes, to the byte (FuzzJSONList and
// TestFastListEncodingIsEncodingJSON hold the two together), at a
// fraction of encoding/json's cost. An item
// that cannot (a kind without appendJSON, or one with an expanded
// project) leaves the whole page to envelope.WriteList.

// jsonAppender is an item on the wire that appends its JSON, as
// encoding/json (HTML not escaped) would write it, and reports false when
// it cannot, leaving b as it was.
type jsonAppender interface {
	appendJSON(b []byte) ([]byte, bool)
}

// listBuffers hold the buffers of writeFastList, as envelope's hold its.
var listBuffers = sync.Pool{New: func() any { return new([]byte) }}

// writeFastList writes {"data":items,"meta":meta} as envelope.WriteList
// does, and reports false, having written nothing, when an item is not a
// jsonAppender or cannot append itself.
func writeFastList[W any](w http.ResponseWriter, r *http.Request, items []W, meta envelope.Meta) bool {
	bp := listBuffers.Get().(*[]byte)
	defer func() {
		if cap(*bp) <= 1<<20 {
			listBuffers.Put(bp)
		}
	}()
	b, ok := appendList((*bp)[:0], items, meta)
	*bp = b
	if !ok {
		return false
	}
	h := w.Header()
	h.Set("Content-Type", envelope.ContentType)
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	if r == nil || r.Method != http.MethodHead {
		_, _ = w.Write(b)
	}
	return true
}

// appendList appends the envelope of a list to b, and a newline, as
// json.Encoder does; false when an item cannot append itself.
func appendList[W any](b []byte, items []W, meta envelope.Meta) ([]byte, bool) {
	b = append(b, `{"data":[`...)
	for i := range items {
		if i > 0 {
			b = append(b, ',')
		}
		a, ok := any(&items[i]).(jsonAppender)
		if !ok {
			return b, false
		}
		if b, ok = a.appendJSON(b); !ok {
			return b, false
		}
	}
	b = append(b, `],"meta":{"page":`...)
	b = strconv.AppendInt(b, int64(meta.Page), 10)
	b = append(b, `,"per_page":`...)
	b = strconv.AppendInt(b, int64(meta.PerPage), 10)
	b = append(b, `,"total":`...)
	b = strconv.AppendInt(b, int64(meta.Total), 10)
	if meta.SyncedThrough != "" {
		b = append(b, `,"syncedThrough":`...)
		b = appendJSONString(b, meta.SyncedThrough)
	}
	if meta.Next != nil {
		b = append(b, `,"next":`...)
		c, _ := meta.Next.MarshalJSON() // the cursor's own bytes, HTML escaped as encoding/json's are: it never fails
		b = append(b, c...)
	}
	return append(b, "}}\n"...), true
}

// appendJSONString appends s as a JSON string, as encoding/json writes it
// with HTML not escaped: a string of printable ASCII without '"' or '\'
// as it is, any other through encoding/json itself.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			return appendJSONSlow(b, s)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendJSONSlow is appendJSONString through encoding/json.
func appendJSONSlow(b []byte, s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}

// appendNullString appends s as a JSON string, or null.
func appendNullString(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return appendJSONString(b, *s)
}

// appendJSON appends the invoice as encoding/json writes it; false with
// an expanded project, which it leaves to encoding/json.
func (i *invoice) appendJSON(b []byte) ([]byte, bool) {
	if !i.Project.IsZero() {
		return b, false
	}
	b = append(b, `{"id":`...)
	b = appendJSONString(b, i.ID)
	b = append(b, `,"number":`...)
	b = appendJSONString(b, i.Number)
	b = append(b, `,"projectId":`...)
	b = appendNullString(b, i.ProjectID)
	b = append(b, `,"status":`...)
	b = appendJSONString(b, i.Status)
	b = append(b, `,"currency":`...)
	b = appendJSONString(b, i.Currency)
	b = append(b, `,"total":`...)
	b = strconv.AppendInt(b, i.Total, 10)
	b = append(b, `,"amountDue":`...)
	b = strconv.AppendInt(b, i.AmountDue, 10)
	b = append(b, `,"issuedAt":`...)
	b = appendJSONString(b, i.IssuedAt)
	b = append(b, `,"dueAt":`...)
	b = appendJSONString(b, i.DueAt)
	b = append(b, `,"paidAt":`...)
	b = appendNullString(b, i.PaidAt)
	b = append(b, `,"documentAvailable":`...)
	b = strconv.AppendBool(b, i.DocumentAvailable)
	b = append(b, `,"updatedAt":`...)
	b = appendJSONString(b, i.UpdatedAt)
	return append(b, '}'), true
}
