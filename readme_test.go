package clientstatus_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/matryer/is"
	"github.com/redis/go-redis/v9"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/files"
	"github.com/clientstatus/clientstatus/internal/testenv"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/ratelimit/redislimit"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/store"
	"github.com/clientstatus/clientstatus/store/bunstore"
)

// The README's Go snippets are the functions below, word for word: the
// test TestREADMESnippets checks that every Go block of the README that
// starts with "func " is in this file (or, for chi and echo, in
// examples/mounting/mounting.go), and the other tests run them, so the
// README cannot show code that does not compile or does not work.

// mountInMemory is the README's "Mount it in your Go server" snippet.
func mountInMemory(ctx context.Context, mux *http.ServeMux) (*auth.Keys, error) {
	st := store.NewMemory()                          // or bunstore.New(db): PostgreSQL, see below
	keys := auth.NewKeys(auth.NewMemoryKeyStore(st)) // the key store reads organizations from st

	// An organization is put once, in the store; its keys read it from there.
	err := st.PutOrganization(ctx, store.Organization{ID: "org_acme", Name: "Acme",
		Plan: store.PlanStarter, RetainerActive: true, APIEnabled: true})
	if err != nil {
		return nil, err
	}

	api := statusapi.New(st, auth.NewCache(keys), ratelimit.NewMemory(),
		statusapi.WithPublicURL("https://portal.example.com/api"),
		statusapi.WithSigningKey([]byte(os.Getenv("CLIENTSTATUS_SIGNING_KEY"))), // 32+ random bytes
		statusapi.WithFiles(files.FromFS(os.DirFS("/srv/deliverables"))),
	)
	mux.Handle("/api/", http.StripPrefix("/api", api))
	// GET https://portal.example.com/api/v1/projects, Authorization: Bearer <key>
	return keys, nil // keys.Mint makes a client's key; call keys.Close() on the way out
}

func TestMountInMemory(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	t.Setenv("CLIENTSTATUS_SIGNING_KEY", "0123456789abcdef0123456789abcdef")
	mux := http.NewServeMux()
	keys, err := mountInMemory(ctx, mux)
	is.NoErr(err)
	defer keys.Close()
	key, _, err := keys.Mint(ctx, "org_acme", "CI dashboard", nil) // a newcomer mints a key
	is.NoErr(err)

	req := httptest.NewRequest("GET", "/api/v1/projects", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res := httptest.NewRecorder()
	mux.ServeHTTP(res, req)
	is.Equal(res.Code, 200) // and calls the API
	is.True(strings.Contains(res.Body.String(), `"total":0`))
}

// mountOnPostgres is the README's "On PostgreSQL and Redis" snippet.
func mountOnPostgres(ctx context.Context, databaseURL, redisURL, schema string) (http.Handler, *auth.Keys, error) {
	db, err := bunstore.Open(ctx, databaseURL) // pgx, with statement_timeout; or your own *bun.DB
	if err != nil {
		return nil, nil, err
	}
	cs := bunstore.WithSchema(schema)                     // its own schema ("clientstatus"), beside your tables
	if err := bunstore.Migrate(ctx, db, cs); err != nil { // idempotent; safe from several replicas
		return nil, nil, err
	}
	st := bunstore.New(db, cs) // store.Store, store.Writer and auth.KeyStore: organizations are put once

	opt, err := redis.ParseURL(redisURL)
	if err != nil {
		return nil, nil, err
	}
	opt.ContextTimeoutEnabled = true // a call abandoned at the limiter's timeout frees its connection
	lim := redislimit.New(redis.NewClient(opt))

	keys := auth.NewKeys(st)
	err = st.PutOrganization(ctx, store.Organization{ID: "org_acme", Name: "Acme",
		Plan: store.PlanGrowth, RetainerActive: true, APIEnabled: true})
	if err != nil {
		return nil, nil, err
	}
	api := statusapi.New(st, auth.NewCache(keys), lim,
		statusapi.WithSigningKey([]byte(os.Getenv("CLIENTSTATUS_SIGNING_KEY"))), // and the options above
	)
	return api, keys, nil
}

func TestMountOnPostgres(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	t.Setenv("CLIENTSTATUS_SIGNING_KEY", "0123456789abcdef0123456789abcdef")
	dsn, redisURL := testenv.PostgresURL(t), testenv.RedisURL(t)
	schema := fmt.Sprintf("readme_%08x", rand.Uint32()) // isolated from other runs
	api, keys, err := mountOnPostgres(ctx, dsn, redisURL, schema)
	is.NoErr(err)
	t.Cleanup(func() {
		db, err := bunstore.Open(context.Background(), dsn)
		if err == nil {
			_, _ = db.ExecContext(context.Background(), "DROP SCHEMA IF EXISTS "+schema+" CASCADE")
			db.Close()
		}
	})
	defer keys.Close()
	key, _, err := keys.Mint(ctx, "org_acme", "CI dashboard", nil)
	is.NoErr(err)
	req := httptest.NewRequest("GET", "/v1/invoices", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res := httptest.NewRecorder()
	api.ServeHTTP(res, req)
	is.Equal(res.Code, 200)                                // the API answers from PostgreSQL
	is.Equal(res.Header().Get("X-RateLimit-Limit"), "300") // limited through Redis
}

// mountWithNetHTTP is the README's "Mounting" snippet for net/http.
func mountWithNetHTTP(mux *http.ServeMux, api, ready http.Handler) {
	mux.Handle("/api/", http.StripPrefix("/api", api)) // the handler sees /v1/...
	mux.Handle("GET /readyz", ready)                   // statusapi.Readiness(st, keys, lim, logger)
}

// whiteLabel is the README's "Mounting" snippet for one domain per client.
func whiteLabel(domains map[string]string) statusapi.Option {
	return statusapi.WithPublicURLFunc(func(r *http.Request) (*url.URL, error) {
		base, ok := domains[r.Host] // the portal's own list: never r.Host itself
		if !ok {
			return nil, statusapi.ErrUnknownHost // 404 NOT_FOUND
		}
		return url.Parse(base)
	})
}

func TestMounting(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	st := store.NewMemory()
	is.NoErr(st.PutOrganization(ctx, store.Organization{ID: "org_acme", Name: "Acme",
		Plan: store.PlanStarter, RetainerActive: true, APIEnabled: true}))
	is.NoErr(st.PutProject(ctx, store.Project{ID: "p1", OrgID: "org_acme", Name: "Site", Status: store.ProjectInProgress}))
	for i := range 3 {
		is.NoErr(st.PutInvoice(ctx, store.Invoice{ID: fmt.Sprintf("i%d", i), OrgID: "org_acme", Number: fmt.Sprintf("INV-%d", i),
			Status: store.InvoiceOpen, Currency: "EUR"}))
	}
	keys := auth.NewKeys(auth.NewMemoryKeyStore(st))
	defer keys.Close()
	key, _, err := keys.Mint(ctx, "org_acme", "CI dashboard", nil)
	is.NoErr(err)
	lim := ratelimit.NewMemory()
	logs := slog.New(slog.NewTextHandler(io.Discard, nil))
	signing := statusapi.WithSigningKey([]byte("0123456789abcdef0123456789abcdef"))
	do := func(h http.Handler, target string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("GET", target, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		res := httptest.NewRecorder()
		h.ServeHTTP(res, req)
		return res
	}

	mux := http.NewServeMux()
	mountWithNetHTTP(mux, statusapi.New(st, keys, lim, signing, statusapi.WithLogger(logs)),
		statusapi.Readiness(st, keys, lim, logs))
	res := do(mux, "https://evil.example/api/v1/invoices?limit=1")
	is.Equal(res.Code, 200)
	is.True(strings.HasPrefix(res.Header().Get("Link"), "</api/v1/invoices?")) // root-relative: never the request's host
	is.Equal(do(mux, "/readyz").Body.String(), `{"status":"ready"}`+"\n")

	api := statusapi.New(st, keys, lim, signing, statusapi.WithLogger(logs), whiteLabel(map[string]string{
		"status.acme.example": "https://status.acme.example/api",
	}))
	res = do(api, "http://status.acme.example/v1/invoices?limit=1")
	is.Equal(res.Code, 200)
	is.True(strings.HasPrefix(res.Header().Get("Link"), "<https://status.acme.example/api/v1/invoices?")) // the client's domain
	is.Equal(do(api, "http://evil.example/v1/invoices").Code, 404)                                        // a domain of no client
}

func TestMain(m *testing.M) { testenv.Main(m) }

// goBlock is a fenced Go block of the README that holds a function.
var goBlock = regexp.MustCompile("(?s)```go\n(func .*?)```")

func TestREADMESnippets(t *testing.T) {
	is := is.New(t)
	readme, err := os.ReadFile("README.md")
	is.NoErr(err)
	source, err := os.ReadFile("readme_test.go")
	is.NoErr(err)
	// The snippets for chi and echo live in a module of their own, so
	// that neither becomes a dependency of this one; .ci/run tests it.
	mounting, err := os.ReadFile("examples/mounting/mounting.go")
	is.NoErr(err)
	source = append(source, mounting...)
	blocks := goBlock.FindAllSubmatch(readme, -1)
	is.True(len(blocks) >= 1) // the README shows its snippets as functions
	for _, b := range blocks {
		snippet := string(b[1])
		name, _, _ := strings.Cut(snippet, "(")
		if !strings.Contains(string(source), snippet) {
			t.Errorf("README.md's %s is not word for word in readme_test.go, where it is compiled and run: copy one to the other", name)
		}
	}
}
