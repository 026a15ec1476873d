package statusapi_test

import (
	"bytes"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/internal/test/apitest"
	"github.com/clientstatus/clientstatus/statusapi/internal/redoc"
)

// strongETag is the ETag of the reference page and its script: static
// bytes, so a strong tag.
var strongETag = regexp.MustCompile(`^"[0-9a-f]{32}"$`)

// TestDocs checks the reference page and its script as HTTP resources:
// public, cached and revalidated, strict about what the page may load,
// and as strict about parameters and methods as every route. What a
// browser makes of them is docs_browser_test.go's.
func TestDocs(t *testing.T) {
	api := newTestAPI(t)
	t.Run("page", func(t *testing.T) {
		is := is.New(t)
		res := api.do("GET", "/v1/docs", "") // no key needed
		is.Equal(res.Code, 200)
		is.Equal(res.Header().Get("Content-Type"), "text/html; charset=utf-8")
		is.Equal(res.Header().Get("X-RateLimit-Limit"), "") // no rate limit
		is.Equal(res.Header().Get("Cache-Control"), "no-cache")
		csp := res.Header().Get("Content-Security-Policy")
		is.True(strings.HasPrefix(csp, "default-src 'self'; script-src 'self';")) // nothing from elsewhere, no inline script
		is.True(strings.Contains(csp, "frame-ancestors 'none'"))
		body := res.Body.String()
		// Relative URLs, so that the page works under any mount prefix.
		is.True(strings.Contains(body, `<redoc spec-url="openapi.json"`))
		is.True(strings.Contains(body, `<script src="docs/redoc.standalone.js"></script>`))
		is.True(strings.Contains(body, "<title>Client Project Status API: reference</title>")) // the document's title
		is.True(!strings.Contains(body, "://"))                                                // no absolute URL
		is.True(!strings.Contains(body, "<script>"))                                           // no inline script

		etag := res.Header().Get("ETag")
		is.True(strongETag.MatchString(etag))
		head := api.do("HEAD", "/v1/docs", "")
		is.Equal(head.Code, 200)
		is.Equal(head.Header().Get("ETag"), etag)
		is.Equal(head.Header().Get("Content-Length"), res.Header().Get("Content-Length"))
		is.Equal(head.Header().Get("Content-Security-Policy"), csp)
		res = api.do("GET", "/v1/docs", "", "If-None-Match", etag)
		is.Equal(res.Code, 304)
		is.Equal(res.Body.Len(), 0)
		is.Equal(res.Header().Get("ETag"), etag)
	})
	t.Run("script", func(t *testing.T) {
		is := is.New(t)
		res := api.do("GET", "/v1/docs/redoc.standalone.js", "")
		is.Equal(res.Code, 200)
		is.Equal(res.Header().Get("Content-Type"), "text/javascript; charset=utf-8")
		is.Equal(res.Header().Get("Cache-Control"), "public, max-age=86400")
		is.Equal(res.Header().Get("Content-Security-Policy"), "")
		is.True(bytes.Equal(res.Body.Bytes(), redoc.Served())) // the embedded bundle
		etag := res.Header().Get("ETag")
		is.True(strongETag.MatchString(etag))
		is.Equal(api.do("GET", "/v1/docs/redoc.standalone.js", "", "If-None-Match", `W/`+etag).Code, 304) // compared weakly, as If-None-Match is
		head := api.do("HEAD", "/v1/docs/redoc.standalone.js", "")
		is.Equal(head.Code, 200)
		is.Equal(head.Header().Get("Content-Length"), res.Header().Get("Content-Length"))
	})
	t.Run("errors", func(t *testing.T) {
		is := is.New(t)
		for _, path := range []string{"/v1/docs", "/v1/docs/redoc.standalone.js"} {
			res := api.do("GET", path+"?theme=dark", "")
			is.Equal(res.Code, 400) // like every route, no parameter it does not take
			is.Equal(errorOf(t, res).Error.Param, "theme")
			res = api.do("HEAD", path+"?theme=dark", "")
			is.Equal(res.Code, 400)
			res = api.do("POST", path, "")
			is.Equal(res.Code, 405)
			is.Equal(res.Header().Get("Allow"), "GET, HEAD")
		}
		for _, path := range []string{"/v1/docs/redoc.js", "/v1/docs/redoc.standalone.js.map", "/v1/doc"} {
			is.Equal(api.do("GET", path, "").Code, 404) // nothing else is served
		}
	})
}

// TestDocsTrailingSlash: /v1/docs/ redirects to the page, relatively, so
// that it lands on the page under any mount prefix.
func TestDocsTrailingSlash(t *testing.T) {
	is := is.New(t)
	a := apitest.New(t)
	res := a.Do("GET", "/v1/docs/", "")
	is.Equal(res.Code, http.StatusMovedPermanently)
	is.Equal(res.Header().Get("Location"), "../docs") // relative: no prefix to know
	srv := a.Server("/api", nil)
	got, err := srv.Client().Get(srv.URL + "/api/v1/docs/")
	is.NoErr(err)
	defer got.Body.Close()
	is.Equal(got.StatusCode, 200)
	is.Equal(got.Request.URL.Path, "/api/v1/docs") // the page, under the prefix
	is.Equal(got.Header.Get("Content-Type"), "text/html; charset=utf-8")
}
