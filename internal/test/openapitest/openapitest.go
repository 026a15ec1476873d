package openapitest

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"github.com/clientstatus/clientstatus/openapi"
)

// GenericHeaders are the response headers allowed on any response without
// being documented: the transport's own, and those of CORS (statusapi's
// WithCORS, off by default), which a browser reads, not a client of the
// document, and which add Origin to Vary. Compared case-insensitively.
var GenericHeaders = []string{"Content-Type", "Content-Length", "Date",
	"Access-Control-Allow-Origin", "Access-Control-Expose-Headers", "Vary"}

// The pseudo-operations of the answers that belong to no operation: any
// path the document does not list, and any method but GET and HEAD on a
// path it does. Their responses are the document's components NotFound
// and MethodNotAllowed. They appear under these names in Missing.
const (
	UnknownRoute  = "unknown route"
	UnknownMethod = "unknown method"
)

// Validator checks responses against the OpenAPI document and remembers
// which documented (operation, status) pairs it has seen. It is safe for
// concurrent use, so parallel tests may share one.
type Validator struct {
	doc       *openapi3.T
	templates []template
	prefix    string // see Mounted
	seen      *seen
}

// seen is the set of (operation, status) pairs seen, shared by a Validator
// and its Mounted views.
type seen struct {
	mu    sync.Mutex
	pairs map[string]bool
}

type template struct {
	path     string
	segments []string
	item     *openapi3.PathItem
}

// New returns a Validator of the embedded document (openapi.JSON), with
// nothing seen yet. It panics when the document does not load: package
// openapi's own tests catch that first. The document is parsed once per
// process and shared, read-only, by every Validator.
func New() *Validator {
	doc, err := load()
	if err != nil {
		panic("openapitest: the embedded OpenAPI document does not load: " + err.Error())
	}
	return newValidator(doc)
}

// NewFromJSON returns a Validator of doc, an OpenAPI document such as the
// one a handler serves, with nothing seen yet.
func NewFromJSON(doc []byte) (*Validator, error) {
	d, err := openapi3.NewLoader().LoadFromData(doc)
	if err != nil {
		return nil, err
	}
	return newValidator(d), nil
}

var load = sync.OnceValues(func() (*openapi3.T, error) {
	return openapi3.NewLoader().LoadFromData(openapi.JSON())
})

func newValidator(doc *openapi3.T) *Validator {
	v := &Validator{doc: doc, seen: &seen{pairs: make(map[string]bool)}}
	for _, p := range doc.Paths.InMatchingOrder() {
		v.templates = append(v.templates, template{path: p, segments: strings.Split(p, "/"), item: doc.Paths.Value(p)})
	}
	// Fewest parameters first, so that a literal segment wins over {id}.
	sort.SliceStable(v.templates, func(i, j int) bool {
		return strings.Count(v.templates[i].path, "{") < strings.Count(v.templates[j].path, "{")
	})
	return v
}

// Mounted returns a view of v for a handler mounted under prefix, as with
// http.StripPrefix(prefix, h): a request path must start with prefix, which
// is removed before the path is matched (the document's server URL,
// baseUrl, carries the prefix). The view shares v's coverage: what it sees
// counts in v.Missing.
func (v *Validator) Mounted(prefix string) *Validator {
	m := *v
	m.prefix = v.prefix + strings.TrimSuffix(prefix, "/")
	return &m
}

// Check validates res, the response to req, and reports every problem with
// tb.Errorf. It reads res.Body and puts the bytes back, so the caller may
// still read it. req supplies the method, path and query; res.Request is
// not used.
func (v *Validator) Check(tb testing.TB, req *http.Request, res *http.Response) {
	tb.Helper()
	var body []byte
	if res.Body != nil {
		var err error
		body, err = io.ReadAll(res.Body)
		res.Body.Close()
		res.Body = io.NopCloser(bytes.NewReader(body))
		if err != nil {
			tb.Errorf("openapitest: %s %s: reading the body: %v", req.Method, req.URL.Path, err)
			return
		}
	}
	if err := v.Validate(req, res.StatusCode, res.Header, body); err != nil {
		tb.Errorf("openapitest: %v", err)
	}
}

// CheckRecorder is Check for a response recorded by httptest.
func (v *Validator) CheckRecorder(tb testing.TB, req *http.Request, rec *httptest.ResponseRecorder) {
	tb.Helper()
	res := rec.Result()
	defer res.Body.Close()
	v.Check(tb, req, res)
}

// Validate returns an error describing every way in which a response with
// status, header and body does not match the document as the answer to
// req, or nil when it matches. A matching response is counted as seen for
// Missing. The body of a HEAD or 304 response must be empty.
func (v *Validator) Validate(req *http.Request, status int, header http.Header, body []byte) error {
	where := req.Method + " " + req.URL.Path
	path, ok := strings.CutPrefix(req.URL.EscapedPath(), v.prefix)
	if !ok || v.prefix != "" && path != "" && path[0] != '/' {
		return fmt.Errorf("%s: %d: the path is not under the mount prefix %s", where, status, v.prefix)
	}
	route, params := v.route(req.Method, path)
	key := ""
	switch {
	case route.Operation == nil:
		return fmt.Errorf("%s: %d: undocumented method or route", where, status)
	case route.Path == UnknownRoute || route.Path == UnknownMethod:
		key = fmt.Sprintf("%s %d", route.Path, status)
	default:
		key = fmt.Sprintf("%s %s %d", req.Method, route.Path, status)
	}
	rref := route.Operation.Responses.Value(strconv.Itoa(status))
	if rref == nil {
		return fmt.Errorf("%s: status %d is not documented for %s", where, status, operationName(route))
	}
	errs := checkHeaders(rref.Value, header)
	if req.Method == http.MethodHead || status == http.StatusNotModified {
		if len(body) > 0 {
			errs = append(errs, fmt.Errorf("a %s %d response has a body of %d bytes", req.Method, status, len(body)))
		}
	} else if len(rref.Value.Content) == 0 && len(body) > 0 {
		errs = append(errs, fmt.Errorf("status %d documents no body, got %d bytes", status, len(body)))
	} else if err := v.validateBody(req, route, params, status, header, body); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s: %d: %w", where, status, errors.Join(errs...))
	}
	v.seen.mu.Lock()
	v.seen.pairs[key] = true
	v.seen.mu.Unlock()
	return nil
}

// route finds the documented operation that answers method on the path
// (HEAD has operations of its own). For a path the document does not list,
// or a method it does not document on a listed path, it returns the
// pseudo-operation UnknownRoute or UnknownMethod, whose one response is
// the component NotFound or MethodNotAllowed. Route.Operation is nil when
// even that is missing from the document.
func (v *Validator) route(method, escapedPath string) (*routers.Route, map[string]string) {
	segments := strings.Split(escapedPath, "/")
	for _, t := range v.templates {
		params, ok := t.match(segments)
		if !ok {
			continue
		}
		if op := t.item.GetOperation(method); op != nil {
			return &routers.Route{Spec: v.doc, Path: t.path, PathItem: t.item, Method: method, Operation: op}, params
		}
		return v.pseudo(UnknownMethod, http.StatusMethodNotAllowed, "MethodNotAllowed"), nil
	}
	return v.pseudo(UnknownRoute, http.StatusNotFound, "NotFound"), nil
}

func (v *Validator) pseudo(name string, status int, component string) *routers.Route {
	r := &routers.Route{Spec: v.doc, Path: name, Method: http.MethodGet}
	if ref := v.doc.Components.Responses[component]; ref != nil {
		r.Operation = &openapi3.Operation{Responses: openapi3.NewResponses(openapi3.WithStatus(status, ref))}
	}
	return r
}

// match reports whether a request path's escaped segments fit the
// template, and the path parameters if so. A parameter matches one
// non-empty segment.
func (t template) match(segments []string) (map[string]string, bool) {
	if len(segments) != len(t.segments) {
		return nil, false
	}
	params := make(map[string]string)
	for i, want := range t.segments {
		got := segments[i]
		if strings.HasPrefix(want, "{") && strings.HasSuffix(want, "}") {
			val, err := url.PathUnescape(got)
			if got == "" || err != nil {
				return nil, false
			}
			params[want[1:len(want)-1]] = val
			continue
		}
		if got != want {
			return nil, false
		}
	}
	return params, true
}

func operationName(r *routers.Route) string {
	if r.Operation.OperationID != "" {
		return r.Operation.OperationID
	}
	return r.Path
}

// validateBody validates the body, and the documented headers' values once
// more, with kin-openapi.
func (v *Validator) validateBody(req *http.Request, route *routers.Route, params map[string]string, status int, header http.Header, body []byte) error {
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 status,
		Header:                 header,
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	in.SetBodyBytes(body)
	return openapi3filter.ValidateResponse(context.Background(), in)
}

// checkHeaders reports headers that are neither documented for the
// response nor generic, documented ones whose values do not match their
// schema, and required ones that are missing.
func checkHeaders(res *openapi3.Response, header http.Header) []error {
	documented := make(map[string]*openapi3.Header, len(res.Headers))
	for name, ref := range res.Headers {
		documented[http.CanonicalHeaderKey(name)] = ref.Value
	}
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(header)) {
		canon := http.CanonicalHeaderKey(name)
		if slices.ContainsFunc(GenericHeaders, func(g string) bool { return http.CanonicalHeaderKey(g) == canon }) {
			continue
		}
		h, ok := documented[canon]
		if !ok {
			errs = append(errs, fmt.Errorf("header %s is not documented for this response", canon))
			continue
		}
		for _, value := range header.Values(name) {
			if err := checkHeaderValue(h, value); err != nil {
				errs = append(errs, fmt.Errorf("header %s: %q: %w", canon, value, err))
			}
		}
	}
	for canon, h := range documented {
		if h.Required && len(header.Values(canon)) == 0 {
			errs = append(errs, fmt.Errorf("required header %s is missing", canon))
		}
	}
	return errs
}

// checkHeaderValue validates one header value against the header's
// schema: an integer schema takes a decimal integer, any other the string.
func checkHeaderValue(h *openapi3.Header, value string) error {
	if h.Schema == nil || h.Schema.Value == nil {
		return nil
	}
	s := h.Schema.Value
	if s.Type.Is(openapi3.TypeInteger) {
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return errors.New("not an integer")
		}
		return s.VisitJSON(float64(n))
	}
	return s.VisitJSON(value)
}

// Missing lists the documented (operation, status) pairs that no response
// passed to the Validator has matched yet, sorted, as "GET /v1/projects
// 429". Of a HEAD operation only the 200 is listed: its other answers are
// those of the GET operation without the body (package openapi's tests
// hold the document to that, and the handler answers HEAD with its GET
// handlers). The answers to unknown routes and methods are listed as
// UnknownRoute and UnknownMethod.
func (v *Validator) Missing() []string {
	v.seen.mu.Lock()
	defer v.seen.mu.Unlock()
	var missing []string
	for _, want := range v.documented() {
		if !v.seen.pairs[want] {
			missing = append(missing, want)
		}
	}
	sort.Strings(missing)
	return missing
}

// Coverage returns how many documented (operation, status) pairs have been
// seen, of how many.
func (v *Validator) Coverage() (seen, documented int) {
	documented = len(v.documented())
	return documented - len(v.Missing()), documented
}

// documented lists every pair that Missing tracks.
func (v *Validator) documented() []string {
	all := []string{
		fmt.Sprintf("%s %d", UnknownRoute, http.StatusNotFound),
		fmt.Sprintf("%s %d", UnknownMethod, http.StatusMethodNotAllowed),
	}
	for _, t := range v.templates {
		for method, op := range t.item.Operations() {
			for code := range op.Responses.Map() {
				if method != http.MethodHead || code == "200" {
					all = append(all, fmt.Sprintf("%s %s %s", method, t.path, code))
				}
			}
		}
	}
	return all
}

// AfterRun is for TestMain, after m.Run: it returns code, unless code is 0
// and the whole suite ran (no -run or -skip filter) while some documented
// pairs were never seen; then it prints them to stderr and returns 1.
//
//	func TestMain(m *testing.M) { os.Exit(spec.AfterRun(m.Run())) }
func (v *Validator) AfterRun(code int) int {
	if code != 0 || filtered() {
		return code
	}
	missing := v.Missing()
	if len(missing) == 0 {
		return code
	}
	fmt.Fprintf(os.Stderr, "openapitest: %d documented responses never seen in the tests:\n  %s\n",
		len(missing), strings.Join(missing, "\n  "))
	return 1
}

// filtered reports whether the test binary runs only some tests.
func filtered() bool {
	for _, name := range []string{"test.run", "test.skip"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" {
			return true
		}
	}
	return false
}
