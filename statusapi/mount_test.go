package statusapi_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/statusapi"
)

func TestMountedUnderAPrefix(t *testing.T) {
	api := newTestAPI(t, statusapi.WithPublicURL("https://portal.example.com/api"))
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", api.handler))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("portal")) })
	get := func(target, key string) *httptest.ResponseRecorder {
		t.Helper()
		return serveVia(t, spec.Mounted("/api"), mux, api.Request("GET", target, key))
	}

	for _, path := range routes {
		t.Run(path, func(t *testing.T) {
			is := is.New(t)
			is.Equal(get("/api"+path, "a").Code, 200) // every route under the prefix
		})
	}
	t.Run("errors", func(t *testing.T) {
		is := is.New(t)
		is.Equal(get("/api/v1/nope", "a").Code, 404)
		is.Equal(get("/api/v1/projects", "").Code, 401)
		is.Equal(get("/api/v1/invoices?limit=0", "a").Code, 400)
		res := httptest.NewRecorder()
		mux.ServeHTTP(res, httptest.NewRequest("GET", "/v1/projects", nil))
		is.Equal(res.Body.String(), "portal") // the portal keeps its other paths
	})
	t.Run("download link", func(t *testing.T) {
		is := is.New(t)
		res := get("/api/v1/deliverables/d1/download", "a")
		var body struct{ Data struct{ URL string } }
		is.NoErr(json.Unmarshal(res.Body.Bytes(), &body))
		is.True(strings.HasPrefix(body.Data.URL, "https://portal.example.com/api/v1/deliverables/d1/file?")) // the public URL
		u, err := url.Parse(body.Data.URL)
		is.NoErr(err)
		res = get(u.RequestURI(), "")
		is.Equal(res.Code, 200) // the link works through the prefix
		is.Equal(res.Body.String(), fileContent)
	})
}

// TestMountedWithoutPublicURL checks that links are root-relative and
// keep the mount prefix when no public URL is set: it comes from the
// request line, which http.StripPrefix leaves as it was.
func TestMountedWithoutPublicURL(t *testing.T) {
	is := is.New(t)
	api := newTestAPI(t)
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", api.handler))
	req := api.Request("GET", "/api/v1/deliverables/d1/download", "a")
	res := serveVia(t, spec.Mounted("/api"), mux, req)
	is.Equal(res.Code, 200)
	var body struct{ Data struct{ URL string } }
	is.NoErr(json.Unmarshal(res.Body.Bytes(), &body))
	is.True(strings.HasPrefix(body.Data.URL, "/api/v1/deliverables/d1/file?")) // root-relative, prefix kept

	u, err := url.Parse(body.Data.URL)
	is.NoErr(err)
	file := serveVia(t, spec.Mounted("/api"), mux, httptest.NewRequest("GET", u.RequestURI(), nil))
	is.Equal(file.Code, 200) // and the link works
	is.Equal(file.Body.String(), fileContent)
}
