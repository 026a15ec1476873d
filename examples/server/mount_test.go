package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/files"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/statusapi"
)

// TestMountedUnderPrefix mounts the handler as README.md shows, under
// /api in a portal's own mux, and checks that every route answers there
// and that download links point back under /api.
func TestMountedUnderPrefix(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()

	// The portal's data, here from the demo set.
	st, fs := memstore.New(), files.NewMemory()
	ks := auth.NewMemoryKeyStore(st)
	keys := auth.NewKeys(ks)
	ds := demoData()
	is.NoErr(load(ctx, target{writer: st, ks: ks, keys: keys}, ds))
	for key, content := range ds.content {
		fs.Put(key, content)
	}

	portal := http.NewServeMux()
	srv := httptest.NewServer(portal)
	defer srv.Close()

	// As in README.md.
	h := statusapi.New(st, auth.NewCache(keys), ratelimit.NewMemory(),
		statusapi.WithPublicURL(srv.URL+"/api"),
		statusapi.WithSigningKey([]byte("a secret of 32 bytes or more, from your vault")),
		statusapi.WithFiles(fs))
	portal.Handle("/api/", http.StripPrefix("/api", h))

	key := demoOrgs[0].key
	for _, path := range []string{
		"/api/v1/projects", "/api/v1/projects/prj_acme_1", "/api/v1/projects/prj_acme_1/milestones",
		"/api/v1/deliverables", "/api/v1/invoices?page=2",
	} {
		is.Equal(call(t, "GET", srv.URL+path, key).status, 200) // served under the prefix
	}
	is.Equal(call(t, "GET", srv.URL+"/api/v1/nope", key).errorCode(t), "NOT_FOUND")

	res := call(t, "GET", srv.URL+"/api/v1/deliverables/dlv_acme_2_2/download", key)
	is.Equal(res.status, 200)
	link := res.json(t)["data"].(map[string]any)["url"].(string)
	is.True(strings.HasPrefix(link, srv.URL+"/api/v1/")) // the link uses the public URL
	file := call(t, "GET", link, "")
	is.Equal(file.status, 200)
	is.True(len(file.body) > 0)
}
