package statusapi_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/statusapi"
)

// spoofed is a request with key "a" whose Host header, and the forwarding
// headers a proxy might pass on, name an attacker's host.
func (a *testAPI) spoofed(target string) *httptest.ResponseRecorder {
	a.t.Helper()
	req := a.Request("GET", "http://evil.example"+target, "a")
	req.Header.Set("X-Forwarded-Host", "evil.example")
	req.Header.Set("X-Forwarded-Proto", "https")
	req.Header.Set("Forwarded", "host=evil.example;proto=https")
	return a.serve(req)
}

// linkTargets are requests whose answers hold links: every route that
// succeeds, a list on a page with prev and next, and the OpenAPI document.
func linkTargets() []string {
	return append([]string{"/v1/invoices?limit=1&page=2", "/v1/openapi.json"}, routes...)
}

func TestSpoofedHostNeverInAnAnswer(t *testing.T) {
	whiteLabel := statusapi.WithPublicURLFunc(func(r *http.Request) (*url.URL, error) {
		if r.Host == "evil.example" {
			return url.Parse("https://portal.example.com/api") // the portal's own choice
		}
		return nil, statusapi.ErrUnknownHost
	})
	for name, opts := range map[string][]statusapi.Option{
		"no public URL": nil,
		"public URL":    {statusapi.WithPublicURL("https://portal.example.com/api")},
		"white label":   {whiteLabel},
	} {
		t.Run(name, func(t *testing.T) {
			api := newTestAPI(t, opts...)
			for _, target := range linkTargets() {
				for range 2 { // once stored in the response cache, once served from it
					res := api.spoofed(target)
					is := is.New(t)
					is.Equal(res.Code, 200) // target
					is.True(!strings.Contains(res.Body.String(), "evil.example"))
					for _, values := range res.Header() {
						is.True(!strings.Contains(strings.Join(values, " "), "evil.example")) // a header
					}
				}
			}
		})
	}
}

func TestRootRelativeLinks(t *testing.T) {
	is := is.New(t)
	api := newTestAPI(t)
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", api.handler))
	get := func(target string) *httptest.ResponseRecorder {
		req := api.Request("GET", "https://evil.example"+target, "a")
		return serveVia(t, spec.Mounted("/api"), mux, req)
	}

	res := get("/api/v1/invoices?limit=1&page=2")
	is.Equal(res.Code, 200)
	is.True(strings.HasPrefix(res.Header().Get("Link"), `</api/v1/invoices?limit=1&page=1>; rel="first"`)) // mount prefix, no host
	is.Equal(servers(t, get("/api/v1/openapi.json").Body.Bytes()), []string{"/api"})                       // relative to the document
	is.Equal(servers(t, api.do("GET", "/v1/openapi.json", "").Body.Bytes()), []string{"/"})                // at the root

	t.Run("a prefix that reads as a host is dropped", func(t *testing.T) {
		is := is.New(t)
		// As a portal's careless rewrite would leave it: the request line
		// has "//evil.example" before the path the handler sees.
		req := httptest.NewRequest("GET", "/v1/deliverables/d1/download", nil)
		req.RequestURI = "//evil.example/v1/deliverables/d1/download"
		req.Header.Set("Authorization", "Bearer "+api.Key("a"))
		res := httptest.NewRecorder()
		api.handler.ServeHTTP(res, req)
		is.Equal(res.Code, 200)
		is.True(!strings.Contains(res.Body.String(), "evil.example")) // "//evil.example/v1/..." would be a link to another host
	})
}

// whiteLabel is a portal's public URL function: one domain per client.
func whiteLabel(calls *int) statusapi.Option {
	domains := map[string]string{
		"status.acme.example":   "https://status.acme.example",
		"portal.globex.example": "https://portal.globex.example/client-api",
	}
	return statusapi.WithPublicURLFunc(func(r *http.Request) (*url.URL, error) {
		*calls++
		switch r.Host {
		case "down.example":
			return nil, context.DeadlineExceeded
		case "broken.example":
			return url.Parse("/relative")
		}
		u, ok := domains[r.Host]
		if !ok {
			return nil, statusapi.ErrUnknownHost
		}
		return url.Parse(u)
	})
}

func TestWhiteLabelLinks(t *testing.T) {
	var calls int
	api := newTestAPI(t, whiteLabel(&calls))
	get := func(host, target string) *httptest.ResponseRecorder {
		req := api.Request("GET", "http://"+host+target, "a")
		return api.serve(req)
	}

	t.Run("links per host", func(t *testing.T) {
		is := is.New(t)
		for host, base := range map[string]string{
			"status.acme.example":   "https://status.acme.example",
			"portal.globex.example": "https://portal.globex.example/client-api",
		} {
			res := get(host, "/v1/deliverables/d1/download")
			is.Equal(res.Code, 200)
			is.True(strings.Contains(res.Body.String(), `"url":"`+base+`/v1/deliverables/d1/file?`)) // the host's own public URL
			doc := get(host, "/v1/openapi.json")
			is.Equal(servers(t, doc.Body.Bytes()), []string{base}) // the document names where it was served
		}
	})
	t.Run("cache keys separate hosts", func(t *testing.T) {
		is := is.New(t)
		for range 2 {
			acme := get("status.acme.example", "/v1/invoices?limit=1")
			globex := get("portal.globex.example", "/v1/invoices?limit=1")
			is.True(strings.HasPrefix(acme.Header().Get("Link"), "<https://status.acme.example/v1/invoices?"))
			is.True(strings.HasPrefix(globex.Header().Get("Link"), "<https://portal.globex.example/client-api/v1/invoices?"))
			docA := get("status.acme.example", "/v1/openapi.json")
			docB := get("portal.globex.example", "/v1/openapi.json")
			is.True(docA.Header().Get("ETag") != docB.Header().Get("ETag")) // one document per host
		}
	})
	t.Run("a host the portal does not serve", func(t *testing.T) {
		is := is.New(t)
		for _, target := range []string{"/v1/projects", "/v1/openapi.json", "/v1/deliverables/d1/download"} {
			// Not through api.serve: the OpenAPI document describes the
			// API at the hosts it is served at, and this is none of them.
			req := api.Request("GET", "http://evil.example"+target, "a")
			res := httptest.NewRecorder()
			api.handler.ServeHTTP(res, req)
			is.Equal(res.Code, 404) // as a path that is no route
			is.True(strings.Contains(res.Body.String(), `"NOT_FOUND"`))
			is.True(!strings.Contains(res.Body.String(), "evil.example"))
		}
	})
	t.Run("a failing function", func(t *testing.T) {
		is := is.New(t)
		is.Equal(get("down.example", "/v1/projects").Code, 503)   // a backend's timeout
		is.Equal(get("broken.example", "/v1/projects").Code, 500) // a relative URL is the portal's bug
		is.True(api.logs.Contains("WithPublicURLFunc"))           // and logged
	})
	t.Run("once per request", func(t *testing.T) {
		is := is.New(t)
		calls = 0
		get("status.acme.example", "/v1/invoices?limit=1&page=2")
		is.Equal(calls, 1)
	})
}

func TestPublicURLOptions(t *testing.T) {
	st := memstore.New()
	keys, lim := auth.NewKeys(auth.NewMemoryKeyStore(st)), ratelimit.NewMemory()
	fn := func(*http.Request) (*url.URL, error) { return nil, errors.New("x") }
	for name, tc := range map[string]struct {
		opts []statusapi.Option
		ok   bool
	}{
		"func":              {[]statusapi.Option{statusapi.WithPublicURLFunc(fn)}, true},
		"nil func":          {[]statusapi.Option{statusapi.WithPublicURLFunc(nil)}, true}, // the default, as every nil
		"both":              {[]statusapi.Option{statusapi.WithPublicURL("https://a.example"), statusapi.WithPublicURLFunc(fn)}, false},
		"relative URL":      {[]statusapi.Option{statusapi.WithPublicURL("/api")}, false},
		"URL with userinfo": {[]statusapi.Option{statusapi.WithPublicURL("https://u:p@a.example")}, false},
	} {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			err := statusapi.Validate(st, keys, lim, tc.opts...)
			is.Equal(err == nil, tc.ok)
		})
	}
}
