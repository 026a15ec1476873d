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
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"
	"github.com/redis/go-redis/v9"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/files"
	"github.com/clientstatus/clientstatus/internal/test/testenv"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/ratelimit/redislimit"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/store"
)

// The Go snippets of the README and docs/ are the functions below, word
// for word: TestREADMESnippets checks that every Go block of the README
// and of docs/ that starts with "func " is in this file (or, for chi and
// echo, in examples/mounting/mounting.go), and the other tests run them,
// so the docs cannot show code that does not compile or does not work.
// TestREADMERoutes checks the README's route table against
// statusapi.Routes, and TestDocLinks every relative link of the docs.

// mountInMemory is the README's "Mount it in your Go server" snippet.
func mountInMemory(ctx context.Context, mux *http.ServeMux, srv *http.Server) (*auth.Keys, func(), error) {
	st := memstore.New()                             // or bunstore.New(db): PostgreSQL, docs/library.md
	keys := auth.NewKeys(auth.NewMemoryKeyStore(st)) // the key store reads organizations from st

	// An organization is put once, in the store; its keys read it from there.
	err := st.PutOrganization(ctx, store.Organization{ID: "org_acme", Name: "Acme",
		Plan: store.PlanStarter, RetainerActive: true, APIEnabled: true})
	if err != nil {
		return nil, nil, err
	}

	cache := auth.NewCache(keys)                                 // forgets a key keys revokes at once
	stop, endStreams := context.WithCancel(context.Background()) // ends live streams on shutdown
	srv.RegisterOnShutdown(endStreams)                           // else Shutdown waits for every open stream
	api := statusapi.New(st, cache, ratelimit.NewMemory(),
		statusapi.WithPublicURL("https://portal.example.com/api"),
		statusapi.WithSigningKey([]byte(os.Getenv("CLIENTSTATUS_SIGNING_KEY"))), // 32+ random bytes
		statusapi.WithFiles(files.FromFS(os.DirFS("/srv/deliverables"))),
		statusapi.WithShutdown(stop),
	)
	mux.Handle("/api/", http.StripPrefix("/api", api))
	// GET https://portal.example.com/api/v1/projects, Authorization: Bearer <key>
	// keys.Mint makes a client's key; call closeAll on the way out.
	closeAll := func() { endStreams(); _ = cache.Close(); _ = keys.Close() }
	return keys, closeAll, nil
}

func TestMountInMemory(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	t.Setenv("CLIENTSTATUS_SIGNING_KEY", "0123456789abcdef0123456789abcdef")
	mux := http.NewServeMux()
	srv := httptest.NewUnstartedServer(mux)
	keys, closeAll, err := mountInMemory(ctx, mux, srv.Config)
	is.NoErr(err)
	defer closeAll()
	srv.Start()
	defer srv.Close()
	key, _, err := keys.Mint(ctx, "org_acme", "CI dashboard", nil) // a newcomer mints a key
	is.NoErr(err)

	req := httptest.NewRequest("GET", "/api/v1/projects", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res := httptest.NewRecorder()
	mux.ServeHTTP(res, req)
	is.Equal(res.Code, 200) // and calls the API
	is.True(strings.Contains(res.Body.String(), `"total":0`))

	// With a live stream open, the server shuts down at once.
	sreq, err := http.NewRequest("GET", srv.URL+"/api/v1/events", nil)
	is.NoErr(err)
	sreq.Header.Set("Authorization", "Bearer "+key)
	sreq.Header.Set("Accept", "text/event-stream")
	stream, err := srv.Client().Do(sreq)
	is.NoErr(err)
	defer stream.Body.Close()
	is.Equal(stream.StatusCode, 200)
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	is.NoErr(srv.Config.Shutdown(sctx)) // the stream ended: Shutdown did not wait out its context
}

// mountOnPostgres is docs/library.md's "On PostgreSQL and Redis" snippet.
func mountOnPostgres(ctx context.Context, srv *http.Server, databaseURL, redisURL, schema string) (http.Handler, *auth.Keys, func(), error) {
	db, err := bunstore.Open(ctx, databaseURL) // pgx, with statement_timeout; or your own *bun.DB
	if err != nil {
		return nil, nil, nil, err
	}
	cs := bunstore.WithSchema(schema)                     // its own schema ("clientstatus"), beside your tables
	if err := bunstore.Migrate(ctx, db, cs); err != nil { // idempotent; safe from several replicas
		db.Close()
		return nil, nil, nil, err
	}
	st := bunstore.New(db, cs) // store.Store, store.Writer and auth.KeyStore: organizations are put once

	opt, err := redis.ParseURL(redisURL)
	if err != nil {
		db.Close()
		return nil, nil, nil, err
	}
	opt.ContextTimeoutEnabled = true // a call abandoned at the limiter's timeout frees its connection
	rdb := redis.NewClient(opt)
	lim := redislimit.New(rdb)

	keys := auth.NewKeys(st)
	cache := auth.NewCache(keys) // listens for revocations (PostgreSQL LISTEN) until closed
	closeAll := func() { _ = cache.Close(); _ = keys.Close(); _ = rdb.Close(); _ = db.Close() }
	err = st.PutOrganization(ctx, store.Organization{ID: "org_acme", Name: "Acme",
		Plan: store.PlanGrowth, RetainerActive: true, APIEnabled: true})
	if err != nil {
		closeAll()
		return nil, nil, nil, err
	}
	stop, endStreams := context.WithCancel(context.Background())
	srv.RegisterOnShutdown(endStreams) // open live streams end as the server shuts down
	api := statusapi.New(st, cache, lim,
		statusapi.WithSigningKey([]byte(os.Getenv("CLIENTSTATUS_SIGNING_KEY"))), // and the options above
		statusapi.WithShutdown(stop),
	)
	return api, keys, func() { endStreams(); closeAll() }, nil
}

func TestMountOnPostgres(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	t.Setenv("CLIENTSTATUS_SIGNING_KEY", "0123456789abcdef0123456789abcdef")
	dsn, redisURL := testenv.PostgresURL(t), testenv.RedisURL(t)
	schema := fmt.Sprintf("readme_%08x", rand.Uint32()) // isolated from other runs
	api, keys, closeAll, err := mountOnPostgres(ctx, &http.Server{}, dsn, redisURL, schema)
	is.NoErr(err)
	defer closeAll()
	t.Cleanup(func() {
		db, err := bunstore.Open(context.Background(), dsn)
		if err == nil {
			_, _ = db.ExecContext(context.Background(), "DROP SCHEMA IF EXISTS "+schema+" CASCADE")
			db.Close()
		}
	})
	key, _, err := keys.Mint(ctx, "org_acme", "CI dashboard", nil)
	is.NoErr(err)
	var res *httptest.ResponseRecorder
	// The first call to Redis dials it and loads the limiter's script; on a
	// loaded machine that can outlast the limiter's 100 ms, and the request
	// is then served without a limit (fail open): ask again until Redis
	// answers in time.
	testenv.Until(10*time.Second, func() bool {
		req := httptest.NewRequest("GET", "/v1/invoices", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		res = httptest.NewRecorder()
		api.ServeHTTP(res, req)
		return res.Header().Get("X-RateLimit-Limit") != ""
	})
	is.Equal(res.Code, 200)                                // the API answers from PostgreSQL
	is.Equal(res.Header().Get("X-RateLimit-Limit"), "300") // limited through Redis
}

// mountWithNetHTTP is the README's "Mounting" snippet for net/http.
func mountWithNetHTTP(mux *http.ServeMux, api, ready http.Handler) {
	mux.Handle("/api/", http.StripPrefix("/api", api)) // the handler sees /v1/...
	mux.Handle("GET /readyz", ready)                   // statusapi.Readiness(st, keys, lim, logger)
}

// whiteLabel is docs/library.md's "Mounting" snippet for one domain per client.
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
	st := memstore.New()
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
	source, err := os.ReadFile("readme_test.go")
	is.NoErr(err)
	// The snippets for chi and echo live in a module of their own, so
	// that neither becomes a dependency of this one; .ci/run tests it.
	mounting, err := os.ReadFile("examples/mounting/mounting.go")
	is.NoErr(err)
	source = append(source, mounting...)
	readme, err := os.ReadFile("README.md")
	is.NoErr(err)
	is.True(len(goBlock.FindAllSubmatch(readme, -1)) >= 1) // the README shows its snippets as functions
	for _, doc := range docFiles(t) {
		text, err := os.ReadFile(doc)
		is.NoErr(err)
		for _, b := range goBlock.FindAllSubmatch(text, -1) {
			snippet := string(b[1])
			name, _, _ := strings.Cut(snippet, "(")
			if !strings.Contains(string(source), snippet) {
				t.Errorf("%s's %s is not word for word in readme_test.go, where it is compiled and run: copy one to the other", doc, name)
			}
		}
	}
}

// docFiles returns README.md and the Markdown files of docs/.
func docFiles(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"README.md"}, docs...)
}

// TestREADMEStartsANewcomer checks the two commands the README's "Try it"
// gives, and that it says how to run the tests that skip.
func TestREADMEStartsANewcomer(t *testing.T) {
	is := is.New(t)
	readme, err := os.ReadFile("README.md")
	is.NoErr(err)
	text := string(readme)
	is.True(strings.Contains(text, "```sh\ngo run ./examples/server\ngo test ./...\n```")) // the two set-up commands, as one block
	is.True(strings.Contains(text, "TEST_DATABASE_URL="))                                  // how to run the PostgreSQL tests
	is.True(strings.Contains(text, "TEST_REDIS_URL="))                                     // and the Redis ones
	is.True(strings.Count(text, "\n") <= 400)                                              // the README stays short: the rest is in docs/
}

// routeRow is a row of the README's route table: "| `GET /v1/...` |".
var routeRow = regexp.MustCompile("(?m)^\\| `GET (/v1/[^`]*)` \\|")

func TestREADMERoutes(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Routes\n")
	if !ok {
		t.Fatal(`README.md has no "## Routes" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var listed []string
	for _, m := range routeRow.FindAllStringSubmatch(section, -1) {
		listed = append(listed, m[1])
	}
	mem := memstore.New()
	rec := statusapi.NewRequestRecorder(mem)
	defer rec.Close(context.Background())
	// Every route, the opt-in ones too (the README says which option).
	served := statusapi.Routes(statusapi.WithWebhookEndpoints(mem), statusapi.WithRequestLog(rec))
	for _, r := range served {
		if !slices.Contains(listed, r) {
			t.Errorf("README.md's route table misses GET %s, which statusapi.Routes serves: add a row", r)
		}
	}
	for _, r := range listed {
		if !slices.Contains(served, r) {
			t.Errorf("README.md's route table lists GET %s, which statusapi.Routes does not serve: remove the row or fix it", r)
		}
	}
	for i, r := range listed {
		if slices.Contains(listed[:i], r) {
			t.Errorf("README.md's route table lists GET %s twice", r)
		}
	}
}

// mdLink is a Markdown link or image: its target, up to a space or ")".
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// fence matches a fenced code block, whose text holds no links.
var fence = regexp.MustCompile("(?ms)^ *```.*?^ *```")

// TestDocLinks checks every relative link of README.md and docs/: the file
// exists and, for a link to a heading (file.md#heading), the heading does,
// as GitHub names its anchors.
func TestDocLinks(t *testing.T) {
	anchors := map[string][]string{}
	anchorsOf := func(file string) []string {
		if a, ok := anchors[file]; ok {
			return a
		}
		text, err := os.ReadFile(file)
		if err != nil {
			return nil
		}
		var a []string
		for _, line := range strings.Split(fence.ReplaceAllString(string(text), ""), "\n") {
			if h, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " "); ok && strings.HasPrefix(line, "#") {
				a = append(a, anchor(h))
			}
		}
		anchors[file] = a
		return a
	}
	for _, doc := range docFiles(t) {
		text, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(fence.ReplaceAllString(string(text), ""), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, frag, _ := strings.Cut(target, "#")
			path := doc
			if file != "" {
				path = filepath.Join(filepath.Dir(doc), file)
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s links to %s, which does not exist", doc, target)
					continue
				}
			}
			if frag != "" && !slices.Contains(anchorsOf(path), frag) {
				t.Errorf("%s links to %s, but %s has no heading with the anchor #%s", doc, target, path, frag)
			}
		}
	}
}

// anchor returns the anchor GitHub gives a heading: lower case, spaces as
// hyphens, punctuation other than hyphens and underscores dropped.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}
