package mounting

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/labstack/echo/v4"
	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/devsettings"
	"github.com/clientstatus/clientstatus/files"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/store"
)

// newAPI returns a statusapi handler on one organization with a project
// and a deliverable with a file, and a key of that organization.
func newAPI(t *testing.T) (http.Handler, string) {
	t.Helper()
	ctx := context.Background()
	st := memstore.New()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(st.PutOrganization(ctx, store.Organization{ID: "org_acme", Name: "Acme", Plan: store.PlanStarter, RetainerActive: true, APIEnabled: true}))
	must(st.PutProject(ctx, store.Project{ID: "p1", OrgID: "org_acme", Name: "Site", Status: store.ProjectInProgress}))
	name := "logo.svg"
	must(st.PutDeliverable(ctx, store.Deliverable{ID: "d1", OrgID: "org_acme", ProjectID: "p1", Name: "Logo",
		Status: store.DeliverableApproved, FileName: &name, FileKey: "logo.svg"}))
	fs := files.NewMemory()
	fs.Put("logo.svg", []byte("<svg/>"))
	keys := auth.NewKeys(auth.NewMemoryKeyStore(st))
	t.Cleanup(func() { _ = keys.Close() })
	key, _, err := keys.Mint(ctx, "org_acme", "test", nil)
	must(err)
	api := statusapi.New(st, keys, ratelimit.NewMemory(),
		statusapi.WithSigningKey([]byte("0123456789abcdef0123456789abcdef")),
		statusapi.WithFiles(fs),
		statusapi.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	return api, key
}

func TestMounting(t *testing.T) {
	for name, mount := range map[string]func(http.Handler) http.Handler{
		"chi": func(api http.Handler) http.Handler {
			r := chi.NewRouter()
			mountWithChi(r, api)
			return r
		},
		"echo": func(api http.Handler) http.Handler {
			e := echo.New()
			mountWithEcho(e, api)
			return e
		},
	} {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			api, key := newAPI(t)
			srv := httptest.NewServer(mount(api))
			t.Cleanup(srv.Close)
			get := func(path, key string) (*http.Response, string) {
				t.Helper()
				req, err := http.NewRequest("GET", srv.URL+path, nil)
				is.NoErr(err)
				if key != "" {
					req.Header.Set("Authorization", "Bearer "+key)
				}
				res, err := srv.Client().Do(req)
				is.NoErr(err)
				defer res.Body.Close()
				body, err := io.ReadAll(res.Body)
				is.NoErr(err)
				return res, string(body)
			}

			res, body := get("/api/v1/projects", key)
			is.Equal(res.StatusCode, 200) // the API under /api
			is.True(strings.Contains(body, `"id":"p1"`))
			res, _ = get("/api/v1/nothing", key)
			is.Equal(res.StatusCode, 404) // the API's own 404...
			is.Equal(res.Header.Get("Content-Type"), "application/json; charset=utf-8")

			res, body = get("/api/v1/deliverables/d1/download", key)
			is.Equal(res.StatusCode, 200)
			var link struct{ Data struct{ URL string } }
			is.NoErr(json.Unmarshal([]byte(body), &link))
			is.True(strings.HasPrefix(link.Data.URL, "/api/v1/deliverables/d1/file?")) // root-relative, with the prefix
			res, body = get(link.Data.URL, "")
			is.Equal(res.StatusCode, 200) // and the link works through the router
			is.Equal(body, "<svg/>")

			res, body = get("/api/v1/openapi.json", "")
			is.Equal(res.StatusCode, 200)
			var doc struct{ Servers []struct{ URL string } }
			is.NoErr(json.Unmarshal([]byte(body), &doc))
			is.Equal(len(doc.Servers), 1)
			is.Equal(doc.Servers[0].URL, "/api") // the document names where it is served
		})
	}
}

// TestChiMountKeepsThePrefix is why the chi snippet needs StripPrefix:
// without it, the handler sees /api/v1/projects and answers 404.
func TestChiMountKeepsThePrefix(t *testing.T) {
	is := is.New(t)
	api, key := newAPI(t)
	r := chi.NewRouter()
	r.Mount("/api", api)
	req := httptest.NewRequest("GET", "/api/v1/projects", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res := httptest.NewRecorder()
	r.ServeHTTP(res, req)
	is.Equal(res.Code, 404)
}

// TestSettingsWithChi mounts the developer settings as docs/settings.md
// shows: the pages answer under /settings, their links carry the prefix,
// and the portal's sign-in middleware runs first.
func TestSettingsWithChi(t *testing.T) {
	is := is.New(t)
	st := memstore.New()
	is.NoErr(st.PutOrganization(t.Context(), store.Organization{ID: "org_a", Name: "Acme", Plan: store.PlanStarter, RetainerActive: true, APIEnabled: true}))
	account := func(r *http.Request) (devsettings.Account, bool) {
		return devsettings.Account{OrgID: "org_a", Name: "Ana", Admin: true}, r.Header.Get("X-Signed-In") == "yes"
	}
	settings := devsettings.New(auth.NewKeys(auth.NewMemoryKeyStore(st)), st, account)
	requireSignIn := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("X-Signed-In") != "yes" {
				http.Redirect(w, r, "/sign-in", http.StatusSeeOther)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	r := chi.NewRouter()
	mountSettingsWithChi(r, settings, requireSignIn)

	req := httptest.NewRequest("GET", "/settings/keys", nil)
	res := httptest.NewRecorder()
	r.ServeHTTP(res, req)
	is.Equal(res.Code, http.StatusSeeOther) // the portal's sign-in first

	req.Header.Set("X-Signed-In", "yes")
	res = httptest.NewRecorder()
	r.ServeHTTP(res, req)
	is.Equal(res.Code, 200)
	is.True(strings.Contains(res.Body.String(), `href="/settings/usage"`)) // links under the prefix
}
