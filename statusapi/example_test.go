package statusapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/files"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/store"
)

// exampleParts returns in-memory parts holding one organization with one
// project and a deliverable with a file, and an API key of it.
func exampleParts() (*memstore.Store, *auth.Keys, *files.Memory, string) {
	ctx := context.Background()
	started := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	// The store dates what is put (updatedAt) by its clock; a fixed one
	// keeps the output the same.
	st := memstore.New(memstore.WithClock(func() time.Time { return started }))
	_ = st.PutOrganization(ctx, store.Organization{ID: "org_acme", Name: "Acme", Plan: "starter", RetainerActive: true, APIEnabled: true})
	_ = st.PutProject(ctx, store.Project{ID: "p1", OrgID: "org_acme", Name: "Website", Status: store.ProjectInProgress, StartedAt: &started, UpdatedAt: started})
	name, ctype, size := "logo.svg", "image/svg+xml", int64(6)
	_ = st.PutDeliverable(ctx, store.Deliverable{ID: "d1", OrgID: "org_acme", ProjectID: "p1", Name: "Logo", Status: store.DeliverableApproved,
		FileName: &name, ContentType: &ctype, SizeBytes: &size, FileKey: "p1/logo.svg", CreatedAt: started, UpdatedAt: started})
	src := files.NewMemory()
	src.Put("p1/logo.svg", []byte("<svg/>"))

	keys := auth.NewKeys(auth.NewMemoryKeyStore(st)) // organizations are read from st
	key, _, _ := keys.Mint(ctx, "org_acme", "example", nil)
	return st, keys, src, key
}

func ExampleNew() {
	st, keys, src, key := exampleParts()
	defer keys.Close()
	h := statusapi.New(st, keys, ratelimit.NewMemory(),
		statusapi.WithSigningKey([]byte("a secret of at least 32 bytes!!!")),
		statusapi.WithFiles(src))

	req := httptest.NewRequest("GET", "/v1/projects?limit=10", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res := httptest.NewRecorder()
	h.ServeHTTP(res, req)
	fmt.Println(res.Code, res.Header().Get("X-RateLimit-Remaining"))
	fmt.Print(res.Body.String())

	req = httptest.NewRequest("GET", "/v1/invoices?status=PAID", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res = httptest.NewRecorder()
	h.ServeHTTP(res, req)
	fmt.Println(res.Code)
	fmt.Println(strings.Replace(res.Body.String(), res.Header().Get("X-Request-Id"), "<request id>", 1))
	// Output:
	// 200 59
	// {"data":[{"id":"p1","name":"Website","status":"in_progress","startedAt":"2026-01-05T09:00:00Z","dueAt":null,"updatedAt":"2026-01-05T09:00:00Z"}],"meta":{"page":1,"per_page":10,"total":1}}
	// 400
	// {"error":{"code":"INVALID_PARAMETER","message":"status must be one of draft, open, paid, void","param":"status","request_id":"<request id>"}}
}

func ExampleNew_mounted() {
	st, keys, src, key := exampleParts()
	defer keys.Close()
	h := statusapi.New(st, keys, ratelimit.NewMemory(),
		statusapi.WithPublicURL("https://portal.example.com/api"),
		statusapi.WithSigningKey([]byte("a secret of at least 32 bytes!!!")),
		statusapi.WithFiles(src))

	// The agency's portal serves the API under /api.
	portal := http.NewServeMux()
	portal.Handle("/api/", http.StripPrefix("/api", h))

	req := httptest.NewRequest("GET", "/api/v1/deliverables/d1/download", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res := httptest.NewRecorder()
	portal.ServeHTTP(res, req)
	var link struct {
		Data struct {
			URL       string `json:"url"`
			ExpiresAt string `json:"expiresAt"`
		} `json:"data"`
	}
	_ = json.Unmarshal(res.Body.Bytes(), &link)
	base, _, _ := strings.Cut(link.Data.URL, "?")
	fmt.Println(res.Code, base)

	// Whoever holds the link fetches the file, without a key.
	res = httptest.NewRecorder()
	portal.ServeHTTP(res, httptest.NewRequest("GET", link.Data.URL, nil))
	fmt.Println(res.Code, res.Header().Get("Content-Disposition"), res.Body.String())
	// Output:
	// 200 https://portal.example.com/api/v1/deliverables/d1/file
	// 200 attachment; filename=logo.svg <svg/>
}

// A client that polls revalidates with the ETag it was given: while the
// organization's data does not change, the answer is 304 from the
// response cache (no query, and no rate-limit budget spent); the next
// request after a write gets the new page.
func ExampleWithResponseCache() {
	st, keys, src, key := exampleParts()
	defer keys.Close()
	h := statusapi.New(st, keys, ratelimit.NewMemory(),
		statusapi.WithSigningKey([]byte("a secret of at least 32 bytes!!!")),
		statusapi.WithPublicURL("https://portal.example.com/api"),
		statusapi.WithFiles(src),
		statusapi.WithResponseCache(8<<20)) // 8 MiB; the default is 32 MiB
	poll := func(etag string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("GET", "/v1/projects", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		if etag != "" {
			req.Header.Set("If-None-Match", etag)
		}
		res := httptest.NewRecorder()
		h.ServeHTTP(res, req)
		return res
	}

	first := poll("")
	etag := first.Header().Get("ETag")
	again := poll(etag)
	fmt.Println(first.Code, again.Code, again.Header().Get("X-RateLimit-Remaining"))

	// The portal renames the project: the next poll gets it.
	p, _ := st.GetProject(context.Background(), "org_acme", "p1")
	p.Name = "Website v2"
	_ = st.PutProject(context.Background(), p)
	changed := poll(etag)
	fmt.Println(changed.Code, strings.Contains(changed.Body.String(), "Website v2"))
	// Output:
	// 200 304 59
	// 200 true
}
