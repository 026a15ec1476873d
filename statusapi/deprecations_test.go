package statusapi_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/internal/test/apitest"
	"github.com/clientstatus/clientstatus/internal/test/openapitest"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/openapi"
	"github.com/clientstatus/clientstatus/option"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/statusapi"
)

var (
	deprecatedSince = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	sunset          = time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	notice          = "https://agency.example/changes/rate-limit"
)

// deprecatedAPI is the test API with a route, a parameter and a field
// declared deprecated.
// Its answers are checked against the document it serves, which
// documents the deprecation headers where they are sent.
func deprecatedAPI(t *testing.T) *testAPI {
	t.Helper()
	var served *openapitest.Validator
	api := apitest.New(t,
		apitest.WithStart(t0),
		apitest.WithHandlerOptions(
			statusapi.WithCORS("https://dash.example"),
			statusapi.WithDeprecation("/v1/rate_limit", "", "", deprecatedSince, sunset, notice),
			statusapi.WithDeprecation("/v1/invoices", "status", "", deprecatedSince, sunset, notice+"#status"),
			statusapi.WithDeprecation("/v1/projects/{id}", "", "Project.startedAt", deprecatedSince.AddDate(0, 1, 0), sunset.AddDate(0, 1, 0), notice+"#startedAt"),
		),
		apitest.WithCheck(func(t testing.TB, req *http.Request, res *httptest.ResponseRecorder) {
			if served != nil {
				served.CheckRecorder(t, req, res)
			}
		}))
	doc := httptest.NewRecorder()
	api.Handler.ServeHTTP(doc, httptest.NewRequest("GET", "/v1/openapi.json", nil))
	var err error
	if served, err = openapitest.NewFromJSON(doc.Body.Bytes()); err != nil {
		t.Fatalf("the served document does not load: %v", err)
	}
	a := &testAPI{API: api, t: t, handler: api.Handler, store: api.Store, keys: api.Keys, files: api.Files, clock: api.Clock, logs: api.Logs}
	seed(t, a)
	a.clock.Set(now)
	return a
}

func TestDeprecatedRoute(t *testing.T) {
	a := deprecatedAPI(t)
	for _, c := range []struct {
		name, key string
		code      int
	}{{"a success", "a", 200}, {"an error", "", 401}} {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			res := a.do("GET", "/v1/rate_limit", c.key, "Origin", "https://dash.example")
			is.Equal(res.Code, c.code)
			is.Equal(res.Header().Get("Deprecation"), "@"+strconv.FormatInt(deprecatedSince.Unix(), 10)) // RFC 9745
			is.Equal(res.Header().Get("Sunset"), "Fri, 01 Jan 2027 00:00:00 GMT")                        // RFC 8594, an HTTP-date
			is.Equal(res.Header().Values("Link"), []string{`<` + notice + `>; rel="deprecation"; type="text/html"`})
			exposed := res.Header().Get("Access-Control-Expose-Headers")
			is.True(strings.Contains(exposed, "Deprecation") && strings.Contains(exposed, "Sunset") && strings.Contains(exposed, "Link")) // a page reads them
		})
	}
	t.Run("other routes", func(t *testing.T) {
		is := is.New(t)
		res := a.do("GET", "/v1/projects", "a")
		is.Equal(res.Code, 200)
		is.Equal(res.Header().Get("Deprecation"), "")
		is.Equal(res.Header().Get("Sunset"), "")
	})
}

func TestDeprecatedParameter(t *testing.T) {
	a := deprecatedAPI(t)
	t.Run("used", func(t *testing.T) {
		is := is.New(t)
		res := a.do("GET", "/v1/invoices?status=open&limit=1", "a")
		is.Equal(res.Code, 200)
		is.True(res.Header().Get("Deprecation") != "")
		links := strings.Join(res.Header().Values("Link"), ", ")
		is.True(strings.Contains(links, `<`+notice+`#status>; rel="deprecation"`)) // the notice
		is.True(strings.Contains(links, `rel="first"`))                            // beside the paging links
	})
	t.Run("not used", func(t *testing.T) {
		is := is.New(t)
		res := a.do("GET", "/v1/invoices?limit=1", "a")
		is.Equal(res.Code, 200)
		is.Equal(res.Header().Get("Deprecation"), "")
		is.True(!strings.Contains(strings.Join(res.Header().Values("Link"), ", "), "deprecation"))
	})
}

func TestDeprecatedField(t *testing.T) {
	is := is.New(t)
	a := deprecatedAPI(t)
	res := a.do("GET", "/v1/projects/p1", "a")
	is.Equal(res.Code, 200)
	is.Equal(res.Header().Get("Deprecation"), "@"+strconv.FormatInt(deprecatedSince.AddDate(0, 1, 0).Unix(), 10))
	is.Equal(res.Header().Get("Sunset"), "Mon, 01 Feb 2027 00:00:00 GMT")
}

// TestDeprecatedInDocument: the served OpenAPI document marks what is
// deprecated, and keeps the rest as it was.
func TestDeprecatedInDocument(t *testing.T) {
	is := is.New(t)
	a := deprecatedAPI(t)
	res := a.do("GET", "/v1/openapi.json", "")
	is.Equal(res.Code, 200)
	is.True(strings.HasPrefix(res.Body.String(), "{\n  \"openapi\": \"3.1.0\",\n  \"info\"")) // keys in their order
	got := marks(t, res.Body.Bytes())
	is.Equal(got, []string{
		"/components/schemas/Project/properties/startedAt",
		"/paths/~1v1~1invoices/get/parameters/2",
		"/paths/~1v1~1invoices/head/parameters/2",
		"/paths/~1v1~1rate_limit/get x-sunset=2027-01-01",
		"/paths/~1v1~1rate_limit/head x-sunset=2027-01-01",
	})
	var doc map[string]any
	is.NoErr(json.Unmarshal(res.Body.Bytes(), &doc))
	param := doc["paths"].(map[string]any)["/v1/invoices"].(map[string]any)["get"].(map[string]any)["parameters"].([]any)[2].(map[string]any)
	is.Equal(param["name"], "status") // the shared parameter inlined, marked only on this route
	is.Equal(len(marks(t, apitest.New(t).Do("GET", "/v1/openapi.json", "").Body.Bytes())), 0)
}

// TestNothingDeprecated: v1 deprecates nothing today; the committed document
// marks exactly what the table of deprecations.go declares.
func TestNothingDeprecated(t *testing.T) {
	is := is.New(t)
	committed := openapi.JSON()
	is.Equal(marks(t, statusapi.MarkDeprecatedTable(unmarked(t, committed))), marks(t, committed)) // the document marks the table, and nothing else
	is.Equal(len(marks(t, committed)), 0)                                                          // nothing is deprecated

	a := newTestAPI(t)
	for _, rt := range statusapi.RouteTable(memstore.New()) {
		if rt.Example == "" {
			continue
		}
		res := a.do("GET", rt.Example, "a")
		is.Equal(res.Header().Get("Deprecation"), "") // no answer says otherwise
		is.Equal(res.Header().Get("Sunset"), "")
	}
}

func TestDeprecationRefused(t *testing.T) {
	for _, c := range []struct {
		name string
		opt  statusapi.Option
		want string
	}{
		{"a sunset under 180 days", statusapi.WithDeprecation("/v1/rate_limit", "", "", deprecatedSince, deprecatedSince.Add(statusapi.MinSunset-time.Second), notice), "less than 180 days"},
		{"no such route", statusapi.WithDeprecation("/v1/ratelimit", "", "", deprecatedSince, sunset, notice), "no such route"},
		{"a relative notice", statusapi.WithDeprecation("/v1/rate_limit", "", "", deprecatedSince, sunset, "/changes"), "absolute"},
		{"no date", statusapi.WithDeprecation("/v1/rate_limit", "", "", time.Time{}, sunset, notice), "no deprecation date"},
		{"a field without its schema", statusapi.WithDeprecation("/v1/projects", "", "startedAt", deprecatedSince, sunset, notice), "Schema.property"},
	} {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			a := apitest.New(t)
			err := statusapi.Validate(a.Store, a.Keys, ratelimit.NewMemory(), c.opt)
			var oe *option.Error
			is.True(errors.As(err, &oe))                   // an *option.Error, as every refused option
			is.True(strings.Contains(err.Error(), c.want)) // New panics with the same error
		})
	}
	t.Run("exactly 180 days", func(t *testing.T) {
		is := is.New(t)
		a := apitest.New(t)
		is.NoErr(statusapi.Validate(a.Store, a.Keys, ratelimit.NewMemory(),
			statusapi.WithDeprecation("/v1/rate_limit", "", "", deprecatedSince, deprecatedSince.Add(statusapi.MinSunset), notice)))
	})
}

// marks lists where doc says deprecated: true, as JSON pointers, with an
// operation's x-sunset.
func marks(t *testing.T, doc []byte) []string {
	t.Helper()
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(ptr string, v any)
	walk = func(ptr string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if v["deprecated"] == true {
				m := ptr
				if s, ok := v["x-sunset"].(string); ok {
					m += " x-sunset=" + s
				}
				out = append(out, m)
			}
			for k, x := range v {
				walk(ptr+"/"+strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1"), x)
			}
		case []any:
			for i, x := range v {
				walk(fmt.Sprintf("%s/%d", ptr, i), x)
			}
		}
	}
	walk("", v)
	slices.Sort(out)
	return out
}

// unmarked is doc without its deprecated and x-sunset keys.
func unmarked(t *testing.T, doc []byte) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatal(err)
	}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			delete(v, "deprecated")
			delete(v, "x-sunset")
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
