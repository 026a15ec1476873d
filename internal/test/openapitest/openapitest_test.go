package openapitest_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/internal/test/openapitest"
)

// fakeTB records what a Validator reports, so tests can see a check fail
// without failing themselves. Calling any other testing.TB method panics.
type fakeTB struct {
	testing.TB
	errors []string
}

func (f *fakeTB) Helper() {}

func (f *fakeTB) Errorf(format string, args ...any) {
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}

const project = `{"id":"p1","name":"Site","status":"in_progress","startedAt":"2026-01-05T09:00:00Z","dueAt":null,"updatedAt":"2026-01-05T09:00:00Z"}`

// jsonHeader returns the headers every JSON answer carries, plus extra
// name/value pairs.
func jsonHeader(extra ...string) http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", "10")
	h.Set("X-Request-Id", "req-1")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	for i := 0; i+1 < len(extra); i += 2 {
		h.Set(extra[i], extra[i+1])
	}
	return h
}

func TestValidate(t *testing.T) {
	list := `{"data":[` + project + `],"meta":{"page":1,"per_page":20,"total":1}}`
	notFound := `{"error":{"code":"NOT_FOUND","message":"no such route","request_id":"req-1"}}`
	rateLimited := []string{"X-RateLimit-Limit", "60", "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "1767600000",
		"RateLimit-Policy", `"plan";q=60;w=60`, "RateLimit", `"plan";r=0;t=42`}
	tests := []struct {
		name   string
		method string
		target string
		status int
		header http.Header
		body   string
		fails  string // a part of the error; "" when the response conforms
	}{
		{"list conforms", "GET", "/v1/projects?page=1", 200, jsonHeader("Vary", "Authorization", "X-RateLimit-Limit", "60"), list, ""},
		{"enterprise: no rate-limit headers", "GET", "/v1/projects", 200, jsonHeader(), list, ""},
		{"item conforms", "GET", "/v1/projects/p1", 200, jsonHeader(), `{"data":` + project + `}`, ""},
		{"extra field", "GET", "/v1/projects/p1", 200, jsonHeader(),
			`{"data":` + strings.Replace(project, `"id":"p1"`, `"id":"p1","orgId":"o"`, 1) + `}`, `"orgId" is unsupported`},
		{"extra envelope field", "GET", "/v1/projects/p1", 200, jsonHeader(), `{"data":` + project + `,"meta":{}}`, `"meta" is unsupported`},
		{"omitted null key", "GET", "/v1/projects/p1", 200, jsonHeader(),
			`{"data":` + strings.Replace(project, `"dueAt":null,`, ``, 1) + `}`, `"dueAt"`},
		{"null where not nullable", "GET", "/v1/projects/p1", 200, jsonHeader(),
			`{"data":` + strings.Replace(project, `"name":"Site"`, `"name":null`, 1) + `}`, `/data/name`},
		{"unknown status value", "GET", "/v1/projects/p1", 200, jsonHeader(),
			`{"data":` + strings.Replace(project, `in_progress`, `IN_PROGRESS`, 1) + `}`, `status`},
		{"timestamp with fraction", "GET", "/v1/projects/p1", 200, jsonHeader(),
			`{"data":` + strings.Replace(project, `"updatedAt":"2026-01-05T09:00:00Z"`, `"updatedAt":"2026-01-05T09:00:00.5Z"`, 1) + `}`, `updatedAt`},
		{"nullable timestamp with fraction", "GET", "/v1/projects/p1", 200, jsonHeader(),
			`{"data":` + strings.Replace(project, `"startedAt":"2026-01-05T09:00:00Z"`, `"startedAt":"2026-01-05T09:00:00.5Z"`, 1) + `}`, `startedAt`},
		{"nullable timestamp of another type", "GET", "/v1/projects/p1", 200, jsonHeader(),
			`{"data":` + strings.Replace(project, `"dueAt":null`, `"dueAt":0`, 1) + `}`, `dueAt`},
		{"limit over 100 in meta", "GET", "/v1/projects", 200, jsonHeader(), strings.Replace(list, `"per_page":20`, `"per_page":500`, 1), `per_page`},
		{"undocumented header", "GET", "/v1/projects/p1", 200, jsonHeader("X-Powered-By", "go"), `{"data":` + project + `}`, "header X-Powered-By is not documented"},
		{"header documented elsewhere only", "GET", "/v1/projects/p1", 200, jsonHeader("Retry-After", "3"), `{"data":` + project + `}`, "header Retry-After is not documented"},
		{"bad header value", "GET", "/v1/projects/p1", 200, jsonHeader("X-RateLimit-Limit", "sixty"), `{"data":` + project + `}`, "X-Ratelimit-Limit"},
		{"missing request id", "GET", "/v1/projects/p1", 200, func() http.Header { h := jsonHeader(); h.Del("X-Request-Id"); return h }(), `{"data":` + project + `}`, "required header X-Request-Id is missing"},
		{"undocumented status", "GET", "/v1/projects/p1", 418, jsonHeader(), `{"error":{"code":"INTERNAL","message":"x"}}`, "status 418 is not documented"},
		{"404 on a list route", "GET", "/v1/projects", 404, jsonHeader(), notFound, "status 404 is not documented"},
		{"error conforms", "GET", "/v1/projects?limit=500", 400, jsonHeader(rateLimited...),
			`{"error":{"code":"INVALID_PARAMETER","message":"limit must be from 1 to 100","param":"limit","request_id":"req-1"}}`, ""},
		{"unknown error code", "GET", "/v1/projects", 400, jsonHeader(), `{"error":{"code":"BAD","message":"x"}}`, "code"},
		{"429 conforms", "GET", "/v1/invoices", 429, jsonHeader(append(rateLimited, "Retry-After", "42")...), `{"error":{"code":"RATE_LIMITED","message":"x"}}`, ""},
		{"429 without Retry-After", "GET", "/v1/invoices", 429, jsonHeader(rateLimited...), `{"error":{"code":"RATE_LIMITED","message":"x"}}`, "required header Retry-After is missing"},
		{"401 conforms", "GET", "/v1/deliverables", 401, jsonHeader("WWW-Authenticate", "Bearer"), `{"error":{"code":"UNAUTHORIZED","message":"x"}}`, ""},
		{"401 with rate-limit headers", "GET", "/v1/deliverables", 401, jsonHeader("WWW-Authenticate", "Bearer", "X-RateLimit-Limit", "60"), `{"error":{"code":"UNAUTHORIZED","message":"x"}}`, "X-Ratelimit-Limit is not documented"},
		{"not JSON", "GET", "/v1/projects/p1", 200, jsonHeader("Content-Type", "text/plain"), "hello", "text/plain"},
		{"HEAD conforms", "HEAD", "/v1/projects/p1", 200, jsonHeader(), "", ""},
		{"HEAD with a body", "HEAD", "/v1/projects/p1", 200, jsonHeader(), `{"data":` + project + `}`, "has a body"},
		{"HEAD of an error conforms", "HEAD", "/v1/projects/nope", 404, jsonHeader(), "", ""},
		{"HEAD keeps required headers", "HEAD", "/v1/invoices", 429, jsonHeader(rateLimited...), "", "required header Retry-After is missing"},
		{"HEAD keeps undocumented headers out", "HEAD", "/v1/projects/p1", 200, jsonHeader("Retry-After", "3"), "", "header Retry-After is not documented"},
		{"304 conforms", "GET", "/v1/projects/p1", 304, http.Header{"X-Request-Id": {"r"}, "Etag": {`"v1"`}}, "", ""},
		{"304 with a body", "GET", "/v1/projects/p1", 304, http.Header{"X-Request-Id": {"r"}}, "{}", "has a body"},
		{"unknown route", "GET", "/v1/nope", 404, jsonHeader(), notFound, ""},
		{"unknown route, HEAD", "HEAD", "/v1/nope", 404, jsonHeader(), "", ""},
		{"unknown route answered 200", "GET", "/v1/nope", 200, jsonHeader(), `{"data":{}}`, "status 200 is not documented for unknown route"},
		{"unknown route, bad body", "GET", "/v2/projects", 404, jsonHeader(), `{"error":{"code":"NOT_FOUND"}}`, "message"},
		{"trailing slash is no route", "GET", "/v1/projects/", 404, jsonHeader(), notFound, ""},
		{"unknown method", "DELETE", "/v1/projects/p1", 405, jsonHeader("Allow", "GET, HEAD"),
			`{"error":{"code":"METHOD_NOT_ALLOWED","message":"use GET or HEAD"}}`, ""},
		{"unknown method without Allow", "POST", "/v1/invoices", 405, jsonHeader(),
			`{"error":{"code":"METHOD_NOT_ALLOWED","message":"use GET or HEAD"}}`, "required header Allow is missing"},
		{"file, any media type", "GET", "/v1/deliverables/d1/file?org=o&expires=1&signature=s", 200,
			http.Header{"Content-Type": {"image/png"}, "X-Request-Id": {"r"}, "Content-Disposition": {"attachment; filename=a.png"}}, "\x89PNG", ""},
		{"file without Content-Disposition", "GET", "/v1/deliverables/d1/file?org=o&expires=1&signature=s", 200,
			http.Header{"Content-Type": {"image/png"}, "X-Request-Id": {"r"}}, "\x89PNG", "Content-Disposition is missing"},
		{"download link conforms", "GET", "/v1/deliverables/d%2F1/download", 200, jsonHeader(),
			`{"data":{"url":"https://portal.example.com/v1/deliverables/d1/file?org=o&expires=1&signature=s","expiresAt":"2026-03-01T09:15:00Z"}}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			v := openapitest.New()
			req := httptest.NewRequest(tt.method, tt.target, nil)
			err := v.Validate(req, tt.status, tt.header, []byte(tt.body))
			if tt.fails == "" {
				is.NoErr(err) // the response conforms
				return
			}
			is.True(err != nil) // the response must be refused
			if !strings.Contains(err.Error(), tt.fails) {
				t.Errorf("error %q does not mention %q", err, tt.fails)
			}
		})
	}
}

func TestCheckReportsToTB(t *testing.T) {
	is := is.New(t)
	v := openapitest.New()
	good := httptest.NewRecorder()
	for k, vals := range jsonHeader() {
		good.Header()[k] = vals
	}
	good.WriteHeader(200)
	good.WriteString(`{"data":` + project + `}`)
	tb := &fakeTB{}
	v.CheckRecorder(tb, httptest.NewRequest("GET", "/v1/projects/p1", nil), good)
	is.Equal(tb.errors, nil) // a conforming response reports nothing

	bad := httptest.NewRecorder()
	bad.WriteHeader(200)
	bad.WriteString(`{"data":{}}`)
	v.CheckRecorder(tb, httptest.NewRequest("GET", "/v1/projects/p1", nil), bad)
	is.Equal(len(tb.errors), 1) // one report per bad response
	is.True(strings.Contains(tb.errors[0], "GET /v1/projects/p1"))
}

func TestCheckLeavesBodyReadable(t *testing.T) {
	is := is.New(t)
	res := &http.Response{StatusCode: 200, Header: jsonHeader(), Body: io.NopCloser(strings.NewReader(`{"data":` + project + `}`))}
	openapitest.New().Check(&fakeTB{}, httptest.NewRequest("GET", "/v1/projects/p1", nil), res)
	b, err := io.ReadAll(res.Body)
	is.NoErr(err)
	is.Equal(string(b), `{"data":`+project+`}`) // the caller can still read the body
}

func TestMissing(t *testing.T) {
	is := is.New(t)
	v := openapitest.New()
	all := v.Missing()
	for _, want := range []string{
		"GET /v1/projects 200", "HEAD /v1/projects 200", "GET /v1/projects 429",
		"GET /v1/deliverables/{id}/download 409", "GET /v1/deliverables/{id}/file 403",
		"GET /v1/openapi.json 200", "unknown route 404", "unknown method 405",
	} {
		is.True(slices.Contains(all, want)) // every documented pair starts missing
	}
	is.True(!slices.Contains(all, "GET /v1/projects 404"))  // a list route has no 404
	is.True(!slices.Contains(all, "HEAD /v1/projects 429")) // of a HEAD, only the 200 is tracked
	seen, total := v.Coverage()
	is.Equal(seen, 0)
	is.Equal(total, len(all))

	is.NoErr(v.Validate(httptest.NewRequest("GET", "/v1/projects/p1", nil), 200, jsonHeader(), []byte(`{"data":`+project+`}`)))
	is.NoErr(v.Validate(httptest.NewRequest("PUT", "/v1/invoices", nil), 405, jsonHeader("Allow", "GET, HEAD"),
		[]byte(`{"error":{"code":"METHOD_NOT_ALLOWED","message":"x"}}`)))
	_ = v.Validate(httptest.NewRequest("GET", "/v1/invoices", nil), 200, jsonHeader(), []byte(`{"data":[{}]}`))
	after := v.Missing()
	is.True(!slices.Contains(after, "GET /v1/projects/{id} 200")) // seen
	is.True(!slices.Contains(after, "unknown method 405"))        // seen
	is.True(slices.Contains(after, "GET /v1/invoices 200"))       // a failed check does not count
	is.True(slices.Contains(after, "HEAD /v1/projects/{id} 200")) // HEAD is counted apart
	seen, _ = v.Coverage()
	is.Equal(seen, 2)
}

func TestMounted(t *testing.T) {
	is := is.New(t)
	v := openapitest.New()
	m := v.Mounted("/api/")
	body := []byte(`{"data":` + project + `}`)
	is.NoErr(m.Validate(httptest.NewRequest("GET", "/api/v1/projects/p1", nil), 200, jsonHeader(), body))
	is.True(m.Validate(httptest.NewRequest("GET", "/v1/projects/p1", nil), 200, jsonHeader(), body) != nil)      // not under the prefix
	is.True(m.Validate(httptest.NewRequest("GET", "/apix/v1/projects/p1", nil), 200, jsonHeader(), body) != nil) // nor is this
	is.True(v.Validate(httptest.NewRequest("GET", "/api/v1/projects/p1", nil), 200, jsonHeader(), body) != nil)  // unmounted, it is no route
	is.True(!slices.Contains(v.Missing(), "GET /v1/projects/{id} 200"))                                          // the view counts for v
}
