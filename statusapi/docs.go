package statusapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"html/template"
	"net/http"
	"strconv"
	"sync"

	"github.com/clientstatus/clientstatus/openapi"
	"github.com/clientstatus/clientstatus/statusapi/internal/redoc"
)

// serveDocs serves GET /v1/docs: the API reference for people, a page
// that Redoc (package internal/redoc) renders in the browser from the
// served OpenAPI document. Like /v1/openapi.json it needs no key and costs
// no rate limit. The page loads nothing from another origin: its script
// is served by serveDocsScript, and both URLs in it are relative
// ("docs/redoc.standalone.js", "openapi.json"), so that it works under
// any mount prefix (http.StripPrefix) and any public URL. Its
// Content-Security-Policy (docsCSP) holds the browser to that.
func (h *handler) serveDocs(w http.ResponseWriter, r *http.Request) {
	if err := noParams(r); err != nil {
		h.fail(w, r, err)
		return
	}
	docsPage().serve(w, r)
}

// serveDocsSlash redirects GET /v1/docs/ to the page, with a relative
// Location, so that it lands on the page under any mount prefix.
func serveDocsSlash(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Location", "../docs")
	w.WriteHeader(http.StatusMovedPermanently)
}

// serveDocsScript serves GET /v1/docs/redoc.standalone.js, the renderer
// of the reference page, embedded (internal/redoc): no key, no rate
// limit, cached by browsers for a day and revalidated by its ETag.
func (h *handler) serveDocsScript(w http.ResponseWriter, r *http.Request) {
	if err := noParams(r); err != nil {
		h.fail(w, r, err)
		return
	}
	docsScript().serve(w, r)
}

// docsCSP is the Content-Security-Policy of the reference page: nothing
// from another origin, no inline script, no plugin, no frame around it.
// What Redoc needs beyond 'self': inline styles (styled-components
// writes <style> elements), images as data: URLs (its icons), and a web
// worker made from a blob: URL (its search index). Checked in a real
// browser by docs_browser_test.go, which fails on any violation it
// reports.
const docsCSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; " +
	"object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// docsPageTemplate is the reference page. Redoc reads its options from
// the attributes of <redoc> (kebab-case): the 200 and 201 responses
// start expanded, and the examples three levels deep (an item of a
// list). The <noscript> text points a reader without JavaScript at the
// document itself.
var docsPageTemplate = template.Must(template.New("docs").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>{{.Title}}: reference</title>
</head>
<body>
<noscript>This reference is rendered by JavaScript. Without it, read the OpenAPI document: <a href="openapi.json">openapi.json</a>.</noscript>
<redoc spec-url="openapi.json" expand-responses="200,201" json-sample-expand-level="3"></redoc>
<script src="docs/redoc.standalone.js"></script>
</body>
</html>
`))

// docsPage is the reference page, made once: its title is the
// document's.
var docsPage = sync.OnceValue(func() *asset {
	var doc struct {
		Info struct {
			Title string `json:"title"`
		} `json:"info"`
	}
	_ = json.Unmarshal(openapi.JSON(), &doc) // openapi's tests hold it valid
	var buf bytes.Buffer
	if err := docsPageTemplate.Execute(&buf, doc.Info); err != nil {
		panic("statusapi: the reference page: " + err.Error())
	}
	return newAsset(buf.Bytes(), "text/html; charset=utf-8", "no-cache", docsCSP)
})

// docsScript is Redoc's bundle as an asset. Its URL does not change with
// its version, so it is not immutable: a day, then revalidated.
var docsScript = sync.OnceValue(func() *asset {
	return newAsset(redoc.Served(), "text/javascript; charset=utf-8", "public, max-age=86400")
})

// asset is a static answer of the handler that is not JSON (the reference
// page and its script): its body and header values, made once, with a
// strong ETag.
type asset struct {
	body                                         []byte
	contentType, cacheControl, length, etag, csp []string
}

// newAsset returns body as an asset of that Content-Type and
// Cache-Control and, when given, a Content-Security-Policy for its 200
// answers. Its ETag is the first 128 bits of the SHA-256 of the body and
// the policy, so that a page whose policy changed is fetched again.
func newAsset(body []byte, contentType, cacheControl string, csp ...string) *asset {
	h := sha256.New()
	h.Write(body)
	for _, p := range csp {
		h.Write([]byte("\n" + p))
	}
	return &asset{
		body:         body,
		contentType:  []string{contentType},
		cacheControl: []string{cacheControl},
		length:       []string{strconv.Itoa(len(body))},
		etag:         []string{`"` + hex.EncodeToString(h.Sum(nil)[:16]) + `"`},
		csp:          csp,
	}
}

// serve writes a with its ETag and Cache-Control: 304 with no body when
// If-None-Match names the tag, else 200 with the body (none for HEAD).
func (a *asset) serve(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd["Etag"] = a.etag
	hd["Cache-Control"] = a.cacheControl
	if matches(r.Header.Values("If-None-Match"), a.etag[0]) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	hd["Content-Type"] = a.contentType
	hd["Content-Length"] = a.length
	if a.csp != nil {
		hd["Content-Security-Policy"] = a.csp
	}
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(a.body)
	}
}
