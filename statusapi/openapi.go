package statusapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sync"

	"github.com/clientstatus/clientstatus/openapi"
)

// serveOpenAPI serves GET /v1/openapi.json: the OpenAPI document of this
// API (package openapi), with no key and no rate limit, and an ETag so
// that tools can revalidate it. Its servers name the one URL the handler
// is reached at: the public URL (WithPublicURL, or WithPublicURLFunc's for
// the request), or without one the mount prefix, a URL relative to the
// document's own, as OpenAPI allows ("/" at the root).
func (h *handler) serveOpenAPI(w http.ResponseWriter, r *http.Request) {
	if err := noParams(r); err != nil {
		h.fail(w, r, err)
		return
	}
	send(w, r, h.docs.get(h.publicURL(r)), nil)
}

// maxOpenAPIDocs bounds the documents kept, one per public URL: a portal
// serves a few domains and mount prefixes; past that many, the kept ones
// are dropped and made again as asked for.
const maxOpenAPIDocs = 64

// openAPIDocs keeps the document encoded for each public URL it was
// served under. The zero value is ready; it is safe for concurrent use.
type openAPIDocs struct {
	mu   sync.Mutex
	docs map[string]*encoded
	// document is the document served, package openapi's when nil.
	document func() []byte
}

// get returns the document whose servers name base, encoded.
func (d *openAPIDocs) get(base string) *encoded {
	d.mu.Lock()
	defer d.mu.Unlock()
	if e, ok := d.docs[base]; ok {
		return e
	}
	if d.docs == nil || len(d.docs) >= maxOpenAPIDocs {
		d.docs = make(map[string]*encoded)
	}
	document := openapi.JSON
	if d.document != nil {
		document = d.document
	}
	doc := withServer(document(), base)
	e := encode(func(w http.ResponseWriter) {
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(doc)
	}, "", "")
	d.docs[base] = e
	return e
}

// withServer returns doc with its top-level servers replaced by one
// server at base ("/" for ""), the rest of the document byte for byte as
// it was. A document it cannot read is returned as it is (the embedded
// one is checked by the openapi package's tests).
func withServer(doc []byte, base string) []byte {
	if base == "" {
		base = "/"
	}
	server, err := json.Marshal([]map[string]string{{
		"url":         base,
		"description": "Where this document was served from: the handler's root, without /v1.",
	}})
	if err != nil {
		return doc
	}
	start, end, ok := topLevelValue(doc, "servers")
	if !ok {
		return doc
	}
	var out bytes.Buffer
	out.Grow(len(doc))
	out.Write(doc[:start])
	out.Write(server)
	out.Write(doc[end:])
	return out.Bytes()
}

// topLevelValue returns the offsets of the value of key in the JSON
// object doc, without the space around it.
func topLevelValue(doc []byte, key string) (start, end int, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return 0, 0, false
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return 0, 0, false
		}
		name, _ := t.(string)
		after := int(dec.InputOffset()) // just past the name's closing quote
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return 0, 0, false
		}
		if name == key {
			end = int(dec.InputOffset())
			start = after + bytes.Index(doc[after:end], v[:1])
			return start, end, true
		}
	}
	return 0, 0, false
}
