package statusapi

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/clientstatus/clientstatus/envelope"
)

// encoded is a JSON answer ready to send: its status (200, or the 500 of a
// value that would not encode), body, weak ETag and, for a list, its Link
// header. It is never changed once made, so the response cache shares it
// between requests.
type encoded struct {
	status int
	body   []byte
	etag   string

	// synced is the meta.syncedThrough of a page of changes, in Unix
	// seconds, 0 for none: how long the cache may serve it (fresh).
	synced int64

	// The header values, made once; linkValue is nil for no Link header.
	etagValue, lengthValue, linkValue []string
}

// encode runs write, which writes a JSON body with envelope.Write, into a
// buffer, and tags the body with a weak ETag, W/"<first 128 bits of the
// body's SHA-256, in hex>". The tag is computed over the whole body, so it
// changes whenever an item or the paging does; it needs no version column
// in the store.
//
// Only untag, when not "", is left out of the tag: the meta.syncedThrough
// of a page of changes (its last key, so its last occurrence), which
// follows the clock. Two answers that differ in it alone hold the same
// items and paging, and are equivalent, as a weak tag says: a client
// answered 304 keeps the older syncedThrough of the body it has, which
// was right for those very items (every write they do not show is
// stamped at or after it) and is still, as they did not change; an older
// syncedThrough costs the client items fetched twice, never one missed.
// So an unchanged page of changes, and the deletions feed, revalidate
// with a 304 (refunded) rather than a new body every second.
func encode(write func(http.ResponseWriter), link, untag string) *encoded {
	buf := &bodyBuffer{header: http.Header{}}
	write(buf)
	sum := sha256.Sum256(buf.body)
	if i := bytes.LastIndex(buf.body, []byte(untag)); untag != "" && i >= 0 {
		h := sha256.New()
		h.Write(buf.body[:i])
		h.Write(buf.body[i+len(untag):])
		h.Sum(sum[:0])
	}
	e := &encoded{status: buf.status, body: buf.body, etag: `W/"` + hex.EncodeToString(sum[:16]) + `"`}
	e.etagValue = []string{e.etag}
	e.lengthValue = []string{strconv.Itoa(len(e.body))}
	if link != "" {
		e.linkValue = []string{link}
	}
	return e
}

// jsonContentType is the Content-Type header of every JSON answer.
var jsonContentType = []string{envelope.ContentType}

// Header values that every cacheable answer carries, shared (see
// nosniff).
var (
	privateNoCache    = []string{"private, no-cache"}
	varyAuthorization = []string{"Authorization"}
)

// send writes e with its ETag and Cache-Control: private, no-cache. A
// request whose If-None-Match lists the tag (weak comparison) or "*" gets
// 304 Not Modified with the same ETag and no body; refund, when not nil,
// is then called, so that a revalidation costs the client nothing.
// Otherwise the answer is e's status with the Link header, if any, and,
// except for HEAD, the body. HEAD and GET give the same ETag and
// Content-Length.
func send(w http.ResponseWriter, r *http.Request, e *encoded, refund func()) {
	hd := w.Header()
	hd["Etag"] = e.etagValue
	hd["Cache-Control"] = privateNoCache
	if vary := hd["Vary"]; len(vary) == 0 { // CORS may have set Vary: Origin
		hd["Vary"] = varyAuthorization
	} else {
		hd["Vary"] = append(vary, varyAuthorization...)
	}
	if e.status == http.StatusOK && matches(r.Header.Values("If-None-Match"), e.etag) {
		if refund != nil {
			refund()
		}
		w.WriteHeader(http.StatusNotModified)
		return
	}
	hd["Content-Type"] = jsonContentType
	hd["Content-Length"] = e.lengthValue
	if e.linkValue != nil {
		if prev := hd["Link"]; len(prev) == 0 { // a deprecation may have set one
			hd["Link"] = e.linkValue
		} else {
			hd["Link"] = append(slices.Clip(prev), e.linkValue...)
		}
	}
	w.WriteHeader(e.status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(e.body)
	}
}

// matches reports whether an If-None-Match header (its values, each a
// comma-separated list) names etag or is "*", comparing weakly: W/ is
// ignored on both sides.
func matches(ifNoneMatch []string, etag string) bool {
	if len(ifNoneMatch) == 0 {
		return false
	}
	want := strings.TrimPrefix(etag, "W/")
	for _, v := range ifNoneMatch {
		for _, tag := range strings.Split(v, ",") {
			tag = strings.TrimSpace(tag)
			if tag == "*" || strings.TrimPrefix(tag, "W/") == want {
				return true
			}
		}
	}
	return false
}

// bodyBuffer is the ResponseWriter that encode gives write: it keeps the
// status and body; headers are dropped (send writes its own).
type bodyBuffer struct {
	header http.Header
	status int
	body   []byte
}

func (b *bodyBuffer) Header() http.Header { return b.header }

func (b *bodyBuffer) WriteHeader(code int) {
	b.status = cmp.Or(b.status, code)
}

func (b *bodyBuffer) Write(p []byte) (int, error) {
	b.status = cmp.Or(b.status, http.StatusOK)
	b.body = append(b.body, p...)
	return len(p), nil
}

// write writes the answer of an authenticated route: a credential as it
// is, with no cache; anything else through send, encoded now (with a
// list's Link header, see links) unless it comes encoded from the
// response cache, with the refund of a 304. A fresh 200 is given to the
// response's keep, for the cache.
func (h *handler) write(w http.ResponseWriter, r *http.Request, c caller, res response) {
	if res.noStore {
		res.body(w, r) // Cache-Control: no-store is already set (ServeHTTP)
		return
	}
	e := res.encoded
	if e == nil {
		link := res.link
		if res.list != nil {
			link = h.links(r, *res.list, res.total)
		}
		untag := ""
		if res.syncedThrough != "" {
			untag = `,"syncedThrough":"` + res.syncedThrough + `"`
		}
		e = encode(func(w http.ResponseWriter) { res.body(w, nil) }, link, untag)
		if t, err := time.Parse(timestampLayout, res.syncedThrough); res.syncedThrough != "" && err == nil {
			e.synced = t.Unix()
		}
		if res.keep != nil && e.status == http.StatusOK {
			res.keep(e)
		}
	}
	send(w, r, e, h.refund(w, r, c))
}

// refund returns the function that gives back the request a 304 took from
// c's budget, and shows it in the rate-limit headers, or nil when no limit
// applied. A limiter that fails to refund is logged, not answered: the 304
// is right either way.
func (h *handler) refund(w http.ResponseWriter, r *http.Request, c caller) func() {
	if !c.limit.Limited {
		return nil
	}
	// The closure captures a copy made here, not c: capturing the
	// parameter would move it to the heap on every call, limited or not.
	p, limit := c.Principal, c.limit
	return func() {
		if err := h.lim.Refund(r.Context(), p); err != nil {
			h.log(r, w, slog.LevelWarn, "statusapi: rate-limit refund for a 304 failed", "err", err.Error())
			return
		}
		d := limit
		d.Remaining = min(d.Remaining+1, d.Limit)
		d.WriteHeaders(w.Header(), time.Now())
	}
}
