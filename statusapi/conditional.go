package statusapi

import (
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"net/http"
	"strings"
	"time"
)

// respond writes a successful JSON response made by write, with a weak
// ETag, W/"<first 128 bits of the body's SHA-256, in hex>". A request
// whose If-None-Match lists that tag (weak comparison) or "*" gets 304 Not
// Modified with the same ETag and no body; refund, when not nil, is then
// called, so that a revalidation costs the client nothing. Otherwise the
// response is 200 with the extra headers (Link on lists) and, except for
// HEAD, the body. HEAD and GET give the same ETag and Content-Length.
//
// The tag is computed over the whole body, so it changes whenever an item
// or the paging does; it needs no version column in the store.
func respond(w http.ResponseWriter, r *http.Request, write func(http.ResponseWriter), extra http.Header, refund func()) {
	buf := &bodyBuffer{header: w.Header()}
	write(buf)
	sum := sha256.Sum256(buf.body)
	etag := `W/"` + hex.EncodeToString(sum[:16]) + `"`
	hd := w.Header()
	hd.Set("ETag", etag)
	hd.Set("Cache-Control", "private, no-cache")
	hd.Add("Vary", "Authorization")
	if buf.status == http.StatusOK && matches(r.Header.Values("If-None-Match"), etag) {
		if refund != nil {
			refund()
		}
		hd.Del("Content-Type")
		hd.Del("Content-Length")
		w.WriteHeader(http.StatusNotModified)
		return
	}
	for k, v := range extra {
		hd[k] = v
	}
	w.WriteHeader(buf.status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(buf.body)
	}
}

// matches reports whether an If-None-Match header (its values, each a
// comma-separated list) names etag or is "*", comparing weakly: W/ is
// ignored on both sides.
func matches(ifNoneMatch []string, etag string) bool {
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

// bodyBuffer is the ResponseWriter that respond gives write: headers go to
// the real response, the status and body are kept.
type bodyBuffer struct {
	header http.Header
	status int
	body   []byte
}

func (b *bodyBuffer) Header() http.Header { return b.header }

func (b *bodyBuffer) WriteHeader(code int) {
	if b.status == 0 {
		b.status = code
	}
}

func (b *bodyBuffer) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	b.body = append(b.body, p...)
	return len(p), nil
}

// write writes the response of an authenticated route: a credential
// as it is, with no cache; anything else through respond, with a list's
// Link header (see links) and the refund of a 304.
func (h *handler) write(w http.ResponseWriter, r *http.Request, c caller, res response) {
	if res.noStore {
		res.body(w, r) // Cache-Control: no-store is already set (ServeHTTP)
		return
	}
	var extra http.Header
	if res.list != nil {
		extra = http.Header{"Link": {h.links(r, *res.list, res.total)}}
	}
	respond(w, r, func(w http.ResponseWriter) { res.body(w, nil) }, extra, h.refund(w, r, c))
}

// refund returns the function that gives back the request a 304 took from
// c's budget, and shows it in the rate-limit headers, or nil when no limit
// applied. A limiter that fails to refund is logged, not answered: the 304
// is right either way.
func (h *handler) refund(w http.ResponseWriter, r *http.Request, c caller) func() {
	if !c.limit.Limited {
		return nil
	}
	return func() {
		if err := h.lim.Refund(r.Context(), c.Principal); err != nil {
			h.log(r, w, slog.LevelWarn, "statusapi: rate-limit refund for a 304 failed", "err", err.Error())
			return
		}
		d := c.limit
		d.Remaining = min(d.Remaining+1, d.Limit)
		d.WriteHeaders(w.Header(), time.Now())
	}
}
