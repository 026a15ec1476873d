package statusapi_test

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/files"
	"github.com/clientstatus/clientstatus/openapi"
	"github.com/clientstatus/clientstatus/statusapi"
)

var weakETag = regexp.MustCompile(`^W/"[0-9a-f]{32}"$`)

// jsonRoutes are the routes whose successful answers carry an ETag: every
// route but the download links (invoice documents' too), which are
// credentials; and a list with a filter.
var jsonRoutes = func() []string {
	out := []string{"/v1/invoices?status=paid"}
	for _, r := range routes {
		if !strings.HasSuffix(r, "/download") && !strings.HasSuffix(r, "/document") {
			out = append(out, r)
		}
	}
	return out
}()

func TestETagAndNotModified(t *testing.T) {
	api := newTestAPIWith(t, unlimited)
	for _, path := range jsonRoutes {
		t.Run(path, func(t *testing.T) {
			is := is.New(t)
			get := api.do("GET", path, "a")
			etag := get.Header().Get("ETag")
			is.True(weakETag.MatchString(etag)) // a weak ETag
			head := api.do("HEAD", path, "a")
			is.Equal(head.Header().Get("ETag"), etag)                     // HEAD has GET's ETag
			is.Equal(api.do("GET", path, "a").Header().Get("ETag"), etag) // stable while nothing changes

			for _, inm := range []string{
				etag,
				strings.TrimPrefix(etag, "W/"), // weak comparison
				`"other", ` + etag,
				`"other",` + etag + `, "more"`,
				"*",
			} {
				for _, method := range []string{"GET", "HEAD"} {
					res := api.do(method, path, "a", "If-None-Match", inm)
					is.Equal(res.Code, 304)                        // If-None-Match names the current tag
					is.Equal(res.Body.Len(), 0)                    // no body
					is.Equal(res.Header().Get("ETag"), etag)       // the same ETag
					is.Equal(res.Header().Get("Content-Type"), "") // nothing to type
					is.Equal(res.Header().Get("Link"), "")
				}
			}
			res := api.do("GET", path, "a", "If-None-Match", `W/"0123456789abcdef0123456789abcdef"`)
			is.Equal(res.Code, 200) // another tag: the full answer
			is.Equal(res.Body.String(), get.Body.String())
		})
	}
	t.Run("a change gives a new tag", func(t *testing.T) {
		is := is.New(t)
		etag := api.do("GET", "/v1/projects/p1", "a").Header().Get("ETag")
		p, err := api.store.GetProject(context.Background(), "org_a", "p1")
		is.NoErr(err)
		p.Name = "Website v2"
		is.NoErr(api.store.PutProject(context.Background(), p))
		res := api.do("GET", "/v1/projects/p1", "a", "If-None-Match", etag)
		is.Equal(res.Code, 200) // changed since the tag
		is.True(res.Header().Get("ETag") != etag)
	})
	t.Run("no ETag on errors and download links", func(t *testing.T) {
		is := is.New(t)
		for _, path := range []string{"/v1/projects/nope", "/v1/invoices?page=0", "/v1/deliverables/d1/download"} {
			res := api.do("GET", path, "a", "If-None-Match", "*")
			is.True(res.Code != 304)
			is.Equal(res.Header().Get("ETag"), "")
		}
	})
}

func TestNotModifiedCostsNothing(t *testing.T) {
	is := is.New(t)
	api := newTestAPI(t)
	res := api.do("GET", "/v1/invoices", "a")
	is.Equal(res.Header().Get("X-RateLimit-Remaining"), "59")
	etag := res.Header().Get("ETag")
	for i := 0; i < 100; i++ {
		res := api.do("GET", "/v1/invoices", "a", "If-None-Match", etag)
		is.Equal(res.Code, 304)                                   // more revalidations than the budget
		is.Equal(res.Header().Get("X-RateLimit-Remaining"), "59") // and the 304 says it cost nothing
	}
	res = api.do("GET", "/v1/invoices", "a")
	is.Equal(res.Code, 200)
	is.Equal(res.Header().Get("X-RateLimit-Remaining"), "58") // the 304s were refunded
}

func TestLinkHeader(t *testing.T) {
	api := newTestAPIWith(t, unlimited, statusapi.WithPublicURL("https://portal.example.com/api"))
	const base = "https://portal.example.com/api/v1/invoices?"
	for _, tc := range []struct{ target, want string }{
		{"/v1/invoices?limit=10&status=open&page=2",
			`<` + base + `limit=10&page=1&status=open>; rel="first", <` + base + `limit=10&page=1&status=open>; rel="prev", <` + base + `limit=10&page=1&status=open>; rel="last"`},
		{"/v1/invoices?limit=10",
			`<` + base + `limit=10&page=1>; rel="first", <` + base + `limit=10&page=2>; rel="next", <` + base + `limit=10&page=3>; rel="last"`},
		{"/v1/invoices?limit=10&page=2",
			`<` + base + `limit=10&page=1>; rel="first", <` + base + `limit=10&page=1>; rel="prev", <` + base + `limit=10&page=3>; rel="next", <` + base + `limit=10&page=3>; rel="last"`},
		{"/v1/invoices?page=2",
			`<` + base + `page=1>; rel="first", <` + base + `page=1>; rel="prev", <` + base + `page=2>; rel="last"`},
		{"/v1/invoices?projectId=nope",
			`<` + base + `page=1&projectId=nope>; rel="first", <` + base + `page=1&projectId=nope>; rel="last"`},
		{"/v1/invoices?page=9",
			`<` + base + `page=1>; rel="first", <` + base + `page=8>; rel="prev", <` + base + `page=2>; rel="last"`},
		{"/v1/projects/p1/milestones?limit=1",
			`<https://portal.example.com/api/v1/projects/p1/milestones?limit=1&page=1>; rel="first", <https://portal.example.com/api/v1/projects/p1/milestones?limit=1&page=2>; rel="next", <https://portal.example.com/api/v1/projects/p1/milestones?limit=1&page=3>; rel="last"`},
	} {
		t.Run(tc.target, func(t *testing.T) {
			is := is.New(t)
			res := api.do("GET", tc.target, "a")
			is.Equal(res.Code, 200)
			is.Equal(res.Header().Get("Link"), tc.want)
		})
	}
	t.Run("walking next visits every page", func(t *testing.T) {
		is := is.New(t)
		next := regexp.MustCompile(`<https://portal\.example\.com/api([^>]*)>; rel="next"`)
		target, pages := "/v1/invoices?limit=7", 0
		for target != "" {
			res := api.do("GET", target, "a")
			is.Equal(res.Code, 200)
			pages++
			target = ""
			if m := next.FindStringSubmatch(res.Header().Get("Link")); m != nil {
				target = m[1]
			}
		}
		is.Equal(pages, 4) // 25 invoices, 7 a page
	})
	t.Run("items have no Link", func(t *testing.T) {
		is := is.New(t)
		is.Equal(api.do("GET", "/v1/projects/p1", "a").Header().Get("Link"), "")
	})
}

func TestOpenAPIDocument(t *testing.T) {
	is := is.New(t)
	api := newTestAPI(t)
	res := api.do("GET", "/v1/openapi.json", "") // no key needed
	is.Equal(res.Code, 200)
	is.Equal(withoutServers(t, res.Body.Bytes()), withoutServers(t, openapi.JSON())) // the embedded document
	is.Equal(servers(t, res.Body.Bytes()), []string{"/"})                            // relative to the document, without a public URL
	is.Equal(res.Header().Get("Content-Type"), "application/json; charset=utf-8")
	is.Equal(res.Header().Get("X-RateLimit-Limit"), "") // no rate limit
	etag := res.Header().Get("ETag")
	is.True(weakETag.MatchString(etag))

	res = api.do("GET", "/v1/openapi.json", "", "If-None-Match", etag)
	is.Equal(res.Code, 304)
	res = api.do("HEAD", "/v1/openapi.json", "")
	is.Equal(res.Code, 200)
	res = api.do("GET", "/v1/openapi.json?format=yaml", "")
	is.Equal(res.Code, 400)
	is.Equal(errorOf(t, res).Error.Param, "format")
	res = api.do("POST", "/v1/openapi.json", "")
	is.Equal(res.Code, 405)
}

func TestFileNotModified(t *testing.T) {
	is := is.New(t)
	modified := time.Date(2026, 2, 1, 12, 0, 0, 0, time.UTC)
	src := files.FromFS(fstest.MapFS{"p1/homepage.pdf": {Data: []byte(fileContent), ModTime: modified}})
	api := newTestAPI(t, statusapi.WithFiles(src))
	u, _ := api.link("d1")
	res := api.fetch("GET", u)
	is.Equal(res.Code, 200)
	is.Equal(res.Header().Get("Last-Modified"), "Sun, 01 Feb 2026 12:00:00 GMT")
	res = api.fetch("GET", u, "If-Modified-Since", "Sun, 01 Feb 2026 12:00:00 GMT")
	is.Equal(res.Code, 304) // unchanged since
	is.Equal(res.Body.Len(), 0)
}

// withoutServers is an OpenAPI document decoded, without its servers.
func withoutServers(t *testing.T, doc []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(doc, &m); err != nil {
		t.Fatalf("the document does not decode: %v", err)
	}
	delete(m, "servers")
	return m
}

// servers lists the URLs of an OpenAPI document's servers.
func servers(t *testing.T, doc []byte) []string {
	t.Helper()
	var m struct{ Servers []struct{ URL string } }
	if err := json.Unmarshal(doc, &m); err != nil {
		t.Fatalf("the document does not decode: %v", err)
	}
	var urls []string
	for _, s := range m.Servers {
		urls = append(urls, s.URL)
	}
	return urls
}
