package devsettings_test

import (
	"context"
	"html"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/devsettings"
	"github.com/clientstatus/clientstatus/internal/test/testenv"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/store"
	"github.com/clientstatus/clientstatus/webhook"
)

// t0 is the tests' time.
var t0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

// fixture is the handler on a memory store with two organizations, A
// (admin and member) and B, and what it reports.
type fixture struct {
	t       testing.TB
	st      *memstore.Store
	keys    *auth.Keys
	eps     *webhook.Endpoints
	clock   *testenv.Clock
	h       http.Handler
	mu      sync.Mutex
	changes []devsettings.Change
	opts    []devsettings.Option
	logs    strings.Builder
}

// The test's account function reads who is signed in from these headers.
const (
	orgHeader  = "X-Test-Org"
	roleHeader = "X-Test-Role"
)

func newFixture(t testing.TB, opts ...devsettings.Option) *fixture {
	t.Helper()
	ctx := context.Background()
	f := &fixture{t: t, clock: testenv.NewClock(t0)}
	f.st = memstore.New(memstore.WithClock(f.clock.Now))
	for _, o := range []store.Organization{
		{ID: "org_a", Name: "Acme", Plan: store.PlanStarter, RetainerActive: true, APIEnabled: true},
		{ID: "org_b", Name: "Beta", Plan: store.PlanGrowth, RetainerActive: true, APIEnabled: true},
	} {
		if err := f.st.PutOrganization(ctx, o); err != nil {
			t.Fatal(err)
		}
		sb := o
		sb.ID = auth.SandboxOrgID(o.ID)
		if err := f.st.PutOrganization(ctx, sb); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []store.Project{
		{ID: "p_a1", OrgID: "org_a", Name: "Website", Status: store.ProjectInProgress, UpdatedAt: t0},
		{ID: "p_a2", OrgID: "org_a", Name: "App <b>2</b>", Status: store.ProjectPlanned, UpdatedAt: t0},
		{ID: "p_b1", OrgID: "org_b", Name: "Beta site", Status: store.ProjectPlanned, UpdatedAt: t0},
	} {
		if err := f.st.PutProject(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	f.keys = auth.NewKeys(auth.NewMemoryKeyStore(f.st), auth.WithClock(f.clock.Now))
	f.eps = webhook.NewEndpoints(f.st, f.st, make([]byte, webhook.KeySize), webhook.WithAllowLocal(true), webhook.WithClock(f.clock.Now))
	log := slog.New(slog.NewTextHandler(&lockedWriter{f: f}, nil))
	all := append([]devsettings.Option{
		devsettings.WithWebhooks(f.eps),
		devsettings.WithRequestLog(f.st),
		devsettings.WithLimiter(ratelimit.NewMemory(ratelimit.WithClock(f.clock.Now))),
		devsettings.WithSandbox(func(context.Context, string) error { return nil }),
		devsettings.WithClock(f.clock.Now),
		devsettings.WithLogger(log),
		devsettings.WithChangeHook(func(_ context.Context, c devsettings.Change) {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.changes = append(f.changes, c)
		}),
	}, opts...)
	f.opts = all
	f.h = newHandler(f)
	return f
}

// newHandler builds the handler on f's parts, again after a test changed them.
func newHandler(f *fixture) http.Handler { return devsettings.New(f.keys, f.st, account, f.opts...) }

// account is the test's account function: who is signed in comes in
// headers.
func account(r *http.Request) (devsettings.Account, bool) {
	org := r.Header.Get(orgHeader)
	if org == "" {
		return devsettings.Account{}, false
	}
	role := r.Header.Get(roleHeader)
	return devsettings.Account{OrgID: org, Name: "Ana <i>" + role + "</i>", Admin: role == "admin"}, true
}

type lockedWriter struct{ f *fixture }

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.f.mu.Lock()
	defer w.f.mu.Unlock()
	return w.f.logs.Write(p)
}

// who is a signed-in person: an organization and a role ("admin",
// "member"); the zero who is nobody.
type who struct{ org, role string }

var (
	adminA  = who{"org_a", "admin"}
	memberA = who{"org_a", "member"}
	adminB  = who{"org_b", "admin"}
	nobody  = who{}
)

// get asks the handler for path as w.
func (f *fixture) get(as who, path string) *httptest.ResponseRecorder {
	f.t.Helper()
	r := httptest.NewRequest(http.MethodGet, path, nil)
	return f.do(as, r)
}

// post sends form to path as w, from the page's own origin.
func (f *fixture) post(as who, path string, form url.Values) *httptest.ResponseRecorder {
	f.t.Helper()
	r := httptest.NewRequest(http.MethodPost, path, strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	r.Header.Set("Origin", "http://example.com")
	return f.do(as, r)
}

func (f *fixture) do(as who, r *http.Request) *httptest.ResponseRecorder {
	if as.org != "" {
		r.Header.Set(orgHeader, as.org)
		r.Header.Set(roleHeader, as.role)
	}
	rec := httptest.NewRecorder()
	f.h.ServeHTTP(rec, r)
	return rec
}

// log returns what the handler logged.
func (f *fixture) log() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.logs.String()
}

// changed returns the changes reported so far.
func (f *fixture) changed() []devsettings.Change {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]devsettings.Change(nil), f.changes...)
}

// mint makes a live key of org named name and returns its plaintext and record.
func (f *fixture) mint(org, name string) (string, auth.Key) {
	f.t.Helper()
	secret, k, err := f.keys.Mint(context.Background(), org, name, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	return secret, k
}

func storeQuery() store.WebhookEndpointQuery {
	return store.WebhookEndpointQuery{PageRequest: store.PageRequest{Page: 1, Limit: 100}}
}

func webhookSettings(u string) webhook.Settings { return webhook.Settings{URL: u} }

// endpoint registers an endpoint of org for url, of every event type.
func (f *fixture) endpoint(org, url string) store.WebhookEndpoint {
	f.t.Helper()
	e, _, err := f.eps.Create(f.t.Context(), org, webhookSettings(url))
	if err != nil {
		f.t.Fatal(err)
	}
	return e
}

// requestRecord is one request of the log.
func requestRecord(org, keyID, path string, status int, code string) []store.RequestRecord {
	return []store.RequestRecord{{ID: "req_" + path, OrgID: org, KeyID: keyID, Method: "GET", Path: path, Route: path,
		Status: status, ErrorCode: code, Duration: 12 * time.Millisecond, CreatedAt: t0}}
}

// newStrictFixture is a fixture whose webhooks take https URLs only.
func newStrictFixture(t *testing.T) *fixture {
	f := newFixture(t)
	strict := webhook.NewEndpoints(f.st, f.st, make([]byte, webhook.KeySize))
	f.h = devsettings.New(f.keys, f.st, account, devsettings.WithWebhooks(strict))
	return f
}

// holds reports whether a page holds secret, as text or escaped in an
// attribute.
func holds(page, secret string) bool {
	return strings.Contains(html.UnescapeString(page), secret)
}
