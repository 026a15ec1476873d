package statusapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/files"
	"github.com/clientstatus/clientstatus/internal/test/apitest"
	"github.com/clientstatus/clientstatus/internal/test/openapitest"
	"github.com/clientstatus/clientstatus/internal/test/testenv"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/store"
	"github.com/clientstatus/clientstatus/storetest"
)

// t0 is when the test data is made (so the store dates it: updatedAt);
// tests then run at now (clock.start).
var (
	t0  = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	now = t0.Add(time.Hour)
)

// syncBuffer is a bytes.Buffer safe for the handler's concurrent logging.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string { b.mu.Lock(); defer b.mu.Unlock(); return b.buf.String() }

// testAPI is the module's one harness (internal/test/apitest) seeded with the
// test data. Its keys (API.Key, and the names of do) are "a" and "a2"
// (org_a, starter), "b" (org_b, growth), "e" (org_e, enterprise),
// "noretainer", "noapi", "revoked" and "expired" (org_a); and org_a's
// restricted keys: one per scope, named after it ("invoices:read"), and
// "p1 only" and "p2 only", restricted to those projects. Every response
// that do, serve and the harness's Do and Serve get is checked by
// checkResponse.
type testAPI struct {
	*apitest.API
	t testing.TB
	// handler is the handler do and serve send to: API.Handler, unless
	// a test replaced it.
	handler http.Handler
	// The API's parts, by their short names.
	store *memstore.Store
	keys  *auth.Keys
	files *files.Memory
	clock *testenv.Clock // shared by the store, the handler and the key resolver
	logs  *apitest.Buffer
}

// setup adjusts newTestAPI: wrap replaces the store the handler reads;
// limits are options of the rate limiter.
type setup struct {
	wrap   func(store.Store) store.Store
	limits []ratelimit.Option
}

// unlimited lifts the starter plan's limit, for tests that read org_a's
// data more than 60 times.
var unlimited = setup{limits: []ratelimit.Option{ratelimit.WithRate(store.PlanStarter, ratelimit.Unlimited)}}

func newTestAPI(t testing.TB, opts ...statusapi.Option) *testAPI {
	return newTestAPIWith(t, setup{}, opts...)
}

func newTestAPIWith(t testing.TB, s setup, opts ...statusapi.Option) *testAPI {
	t.Helper()
	api := apitest.New(t,
		apitest.WithStart(t0), // items seeded at t0 are updated at t0
		apitest.WithStoreWrapper(s.wrap),
		apitest.WithLimiterOptions(s.limits...),
		apitest.WithHandlerOptions(opts...),
		apitest.WithCheck(func(t testing.TB, req *http.Request, res *httptest.ResponseRecorder) {
			checkResponse(t, spec, req, res)
		}))
	a := &testAPI{
		API:     api,
		t:       t,
		handler: api.Handler,
		store:   api.Store,
		keys:    api.Keys,
		files:   api.Files,
		clock:   api.Clock,
		logs:    api.Logs,
	}
	seed(t, a)
	a.clock.Set(now)
	return a
}

// do sends a request to the handler with the named test key ("" for no
// Authorization header) and extra headers as name, value pairs. Every
// response of the tests passes through here, so that one place can check
// them all against the OpenAPI document.
func (a *testAPI) do(method, target, key string, headers ...string) *httptest.ResponseRecorder {
	a.t.Helper()
	return a.serve(a.Request(method, target, key, headers...))
}

// serve sends req to the handler and checks the response.
func (a *testAPI) serve(req *http.Request) *httptest.ResponseRecorder {
	a.t.Helper()
	return a.Serve(a.handler, req)
}

// serveWith sends req to h and checks the response: every handler of the
// tests is called here or in serveVia.
func serveWith(t testing.TB, h http.Handler, req *http.Request) *httptest.ResponseRecorder {
	t.Helper()
	return serveVia(t, spec, h, req)
}

// serveVia is serveWith for a handler that the OpenAPI document sees
// through v (spec.Mounted for a mounted handler).
func serveVia(t testing.TB, v *openapitest.Validator, h http.Handler, req *http.Request) *httptest.ResponseRecorder {
	t.Helper()
	res := httptest.NewRecorder()
	h.ServeHTTP(res, req)
	checkResponse(t, v, req, res)
	return res
}

// spec checks every response of the tests against the OpenAPI document,
// and TestMain fails a full run that leaves a documented response unseen.
var spec = openapitest.New()

// TestMain also says, on one line, when tests skipped for want of
// PostgreSQL (see testenv.Main).
func TestMain(m *testing.M) { os.Exit(testenv.AfterRun(spec.AfterRun(m.Run()))) }

// checkResponse is the single place every response of the tests passes
// through: it is checked against the OpenAPI document, and for the
// conventions every response shares.
func checkResponse(t testing.TB, v *openapitest.Validator, req *http.Request, res *httptest.ResponseRecorder) {
	t.Helper()
	v.CheckRecorder(t, req, res)
	is := is.NewRelaxed(t)
	is.True(res.Header().Get("X-Request-Id") != "") // every response has a request id
	is.Equal(res.Header().Get("X-Content-Type-Options"), "nosniff")
	if req.Method == http.MethodHead {
		is.Equal(res.Body.Len(), 0) // HEAD has no body
	}
}

// errorBody is an error envelope.
type errorBody struct {
	Error struct {
		Code      string `json:"code"`
		Message   string `json:"message"`
		Param     string `json:"param"`
		RequestID string `json:"request_id"`
	} `json:"error"`
}

// errorOf decodes an error response, checking its shape.
func errorOf(t testing.TB, res *httptest.ResponseRecorder) errorBody {
	t.Helper()
	is := is.New(t)
	is.Equal(res.Header().Get("Content-Type"), "application/json; charset=utf-8")
	var raw map[string]json.RawMessage
	is.NoErr(json.Unmarshal(res.Body.Bytes(), &raw)) // error body is JSON
	is.Equal(len(raw), 1)                            // an error body has only "error"
	var e errorBody
	is.NoErr(json.Unmarshal(res.Body.Bytes(), &e))
	is.True(e.Error.Code != "")                                   // error.code
	is.True(e.Error.Message != "")                                // error.message
	is.Equal(e.Error.RequestID, res.Header().Get("X-Request-Id")) // error.request_id repeats the header
	return e
}

// list is a list envelope with items left raw.
type list struct {
	Data []map[string]any `json:"data"`
	Meta struct {
		Page    int `json:"page"`
		PerPage int `json:"per_page"`
		Total   int `json:"total"`
	} `json:"meta"`
}

func listOf(t *testing.T, res *httptest.ResponseRecorder) list {
	t.Helper()
	is := is.New(t)
	is.Equal(res.Code, http.StatusOK)
	var l list
	is.NoErr(json.Unmarshal(res.Body.Bytes(), &l)) // list body
	is.True(l.Data != nil)                         // data is an array, never null
	return l
}

// ids returns the ids of a list's items, in order.
func (l list) ids() []string {
	out := make([]string, len(l.Data))
	for i, it := range l.Data {
		out[i], _ = it["id"].(string)
	}
	return out
}

func item(t *testing.T, res *httptest.ResponseRecorder) map[string]any {
	t.Helper()
	is := is.New(t)
	is.Equal(res.Code, http.StatusOK)
	var b struct {
		Data map[string]any `json:"data"`
	}
	is.NoErr(json.Unmarshal(res.Body.Bytes(), &b))
	return b.Data
}

func ptr[T any](v T) *T { return &v }

// fileContent is the content of deliverable d1's file.
const fileContent = "the deliverable's bytes, 0123456789"

// seed fills the store, key store and files with the test data: the
// fixtures, then keys of its organizations.
func seed(t testing.TB, a *testAPI) {
	t.Helper()
	ctx := context.Background()
	must := fatalOn(t)
	putFixtures(t, a.store, a.files)
	mint := func(name, org string, expires *time.Time) string {
		k, rec, err := a.keys.Mint(ctx, org, name, expires)
		must(err)
		a.SetKey(name, k)
		return rec.ID
	}
	mint("a", "org_a", nil)
	mint("a2", "org_a", nil)
	mint("b", "org_b", nil)
	mint("e", "org_e", nil)
	mint("noretainer", "org_noretainer", nil)
	mint("noapi", "org_noapi", nil)
	must(a.keys.Revoke(ctx, "org_a", mint("revoked", "org_a", nil)))
	mint("expired", "org_a", ptr(t0.Add(time.Minute))) // expired at now
	restricted := func(name string, r auth.Restriction) {
		k, _, err := a.keys.MintRestricted(ctx, "org_a", name, nil, r)
		must(err)
		a.SetKey(name, k)
	}
	for _, s := range auth.AllScopes {
		restricted(string(s), auth.Restriction{Scopes: []auth.Scope{s}})
	}
	restricted("p1 only", auth.Restriction{ProjectIDs: []string{"p1"}})
	restricted("p2 only", auth.Restriction{ProjectIDs: []string{"p2"}})
}

// fixtureStore is what the test data is put into: the harness's
// memstore.Store, or a built-in store of the declared tests.
type fixtureStore interface {
	store.Writer
	store.ThreadWriter
	store.WebhookEndpoints
}

// fixture puts part of the test data into st and src, dated by day
// (days from t0).
type fixture func(t testing.TB, st fixtureStore, src *files.Memory, day func(int) time.Time)

// fixtures are the test data, each resource's part: the organizations and
// the first resources (seedCore), then each resource's own. The example
// request of each route in the handler's table (routes.go) names items
// of them; a new resource's item is its sample (seedSamples).
var fixtures = []fixture{seedCore, seedThreads, seedSamples}

// seededByHand are the kinds whose items seedCore and seedThreads put.
// The kinds of the first contract; a later kind's item in the test data is
// its sample (seedSamples).
var seededByHand = []store.Kind{store.KindProject, store.KindMilestone, store.KindDeliverable, store.KindInvoice, store.KindThread, store.KindMessage}

// seedSamples puts, for every kind of item that no fixture seeds by hand,
// its storetest sample in org_a's project p1 (id storetest.SampleID, as
// "note_sample"): the item its routes' example requests name, so that a
// new resource's routes are walked by the shared tests (conventions,
// scopes, restrictions, declared) without a fixture of their own.
func seedSamples(t testing.TB, st fixtureStore, _ *files.Memory, _ func(int) time.Time) {
	t.Helper()
	for _, k := range store.Kinds {
		if slices.Contains(seededByHand, k) {
			continue
		}
		fatalOn(t)(storetest.Sample(context.Background(), st, k, "org_a", "p1"))
	}
}

// fatalOn returns a check that fails t on an error: the seeding's.
func fatalOn(t testing.TB) func(error) {
	return func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
}

// putFixtures puts every fixture into st and src.
func putFixtures(t testing.TB, st fixtureStore, src *files.Memory) {
	t.Helper()
	day := func(d int) time.Time { return t0.AddDate(0, 0, d) }
	for _, f := range fixtures {
		f(t, st, src, day)
	}
}

// seedCore puts the organizations, org_a's webhook endpoint, and the
// projects, milestones, deliverables and invoices.
func seedCore(t testing.TB, st fixtureStore, src *files.Memory, day func(int) time.Time) {
	t.Helper()
	ctx := context.Background()
	must := fatalOn(t)
	for _, o := range []struct {
		id       string
		plan     store.Plan
		retainer bool
		api      bool
	}{
		{"org_a", store.PlanStarter, true, true},
		{"org_b", store.PlanGrowth, true, true},
		{"org_e", store.PlanEnterprise, true, true},
		{"org_noretainer", store.PlanStarter, false, true},
		{"org_noapi", store.PlanStarter, true, false},
	} {
		must(st.PutOrganization(ctx, store.Organization{ID: o.id, Name: o.id, Plan: o.plan, RetainerActive: o.retainer, APIEnabled: o.api}))
	}
	must(st.CreateWebhookEndpoint(ctx, store.WebhookEndpoint{ID: "we_1", OrgID: "org_a", URL: "https://hooks.example.com/a",
		Types: []string{"*"}, ProjectIDs: []string{"p1"}, Enabled: true, Secret: []byte("sealed secret")})) // webhooks_test.go

	cet := time.FixedZone("CET", 3600)
	// org_a's projects. Ordered by startedAt descending, nulls last, then
	// id: p2, p4 (same start as p2), p1, p3, p5.
	for _, p := range []store.Project{
		{ID: "p1", Name: "Website", Status: store.ProjectInProgress, StartedAt: ptr(time.Date(2026, 1, 5, 10, 0, 0, 500_000_000, cet)), UpdatedAt: time.Date(2026, 2, 1, 10, 30, 0, 999_000_000, cet)},
		{ID: "p2", Name: "App", Status: store.ProjectPlanned, StartedAt: ptr(day(-10)), DueAt: ptr(day(60)), UpdatedAt: day(-1)},
		{ID: "p3", Name: "Brand", Status: store.ProjectOnHold, UpdatedAt: day(-2)},
		{ID: "p4", Name: "Shop", Status: store.ProjectCompleted, StartedAt: ptr(day(-10)), DueAt: ptr(day(-1)), UpdatedAt: day(-1)},
		{ID: "p5", Name: "Old", Status: store.ProjectCancelled, UpdatedAt: day(-3)},
	} {
		p.OrgID = "org_a"
		must(st.PutProject(ctx, p))
	}
	// org_b has ids that collide with org_a's, holding other data.
	must(st.PutProject(ctx, store.Project{ID: "p1", OrgID: "org_b", Name: "B's secret", Status: store.ProjectPlanned, UpdatedAt: day(-1)}))
	must(st.PutProject(ctx, store.Project{ID: "pb", OrgID: "org_b", Name: "B only", Status: store.ProjectPlanned, UpdatedAt: day(-1)}))
	must(st.PutDeliverable(ctx, store.Deliverable{ID: "db", OrgID: "org_b", ProjectID: "pb", Name: "B's file", Status: store.DeliverablePending, FileName: ptr("b.txt"), ContentType: ptr("text/plain"), SizeBytes: ptr(int64(1)), FileKey: "b.txt", CreatedAt: day(-1), UpdatedAt: day(-1)}))
	src.Put("b.txt", []byte("b"))
	must(st.PutInvoice(ctx, store.Invoice{ID: "i01", OrgID: "org_b", Number: "B-1", Status: store.InvoiceOpen, Currency: "USD", Total: 1, AmountDue: 1, IssuedAt: day(-1), DueAt: day(1)}))

	// p1's milestones, ordered by dueAt ascending then id: m2, m1, m3.
	for _, m := range []store.Milestone{
		{ID: "m1", Name: "Design", Status: store.MilestoneCompleted, DueAt: day(-20), CompletedAt: ptr(day(-21))},
		{ID: "m2", Name: "Kick-off", Status: store.MilestoneCompleted, DueAt: day(-30), CompletedAt: ptr(day(-30))},
		{ID: "m3", Name: "Launch", Status: store.MilestonePending, DueAt: day(30)},
	} {
		m.OrgID, m.ProjectID = "org_a", "p1"
		must(st.PutMilestone(ctx, m))
	}
	// Deliverables, ordered by createdAt descending then id: d3, d1, d2.
	for _, d := range []store.Deliverable{
		{ID: "d1", ProjectID: "p1", Name: "Homepage design", Status: store.DeliverableApproved, FileName: ptr("homepage final.pdf"), ContentType: ptr("application/pdf"), SizeBytes: ptr(int64(len(fileContent))), FileKey: "p1/homepage.pdf", CreatedAt: day(-5), UpdatedAt: day(-4)},
		{ID: "d2", ProjectID: "p1", Name: "Copy deck", Status: store.DeliverablePending, CreatedAt: day(-6), UpdatedAt: day(-6)},
		{ID: "d3", ProjectID: "p2", Name: "Wireframes", Status: store.DeliverableInReview, FileName: ptr("wire.png"), ContentType: ptr("image/png"), SizeBytes: ptr(int64(10)), FileKey: "p2/missing.png", CreatedAt: day(-2), UpdatedAt: day(-2)},
	} {
		d.OrgID = "org_a"
		must(st.PutDeliverable(ctx, d))
	}
	src.Put("p1/homepage.pdf", []byte(fileContent))
	// 25 invoices i01..i25 issued a day apart, i25 the newest; every fifth
	// a retainer invoice (no project); statuses cycle draft, open, paid, void.
	for n := 1; n <= 25; n++ {
		inv := store.Invoice{
			ID: invoiceID(n), OrgID: "org_a", Number: "INV-" + invoiceID(n)[1:],
			Status: store.InvoiceStatuses[n%4], Currency: "EUR", Total: int64(n) * 10000, AmountDue: int64(n) * 10000,
			IssuedAt: day(-30 + n), DueAt: day(n),
		}
		if n%5 != 0 {
			inv.ProjectID = ptr("p1")
		}
		if inv.Status == store.InvoicePaid {
			inv.PaidAt = ptr(day(-29 + n))
			inv.AmountDue = 0
		}
		switch n {
		case 24, 20: // a project invoice's and a retainer invoice's document
			inv.DocumentKey = "invoices/" + inv.ID + ".pdf"
			src.Put(inv.DocumentKey, []byte(invoiceDocument))
		case 23: // a document the file source does not have
			inv.DocumentKey = "invoices/missing.pdf"
		}
		must(st.PutInvoice(ctx, inv))
	}
}

// invoiceDocument is the content of invoices i24's and i20's documents.
const invoiceDocument = "%PDF-1.7 the invoice"

// attachmentName is attachment att1's file name: quotes, a slash and
// non-ASCII, to be served intact and safely.
const attachmentName = `plan "v2"/über.txt`

// attachmentContent is the content of attachment att1's file.
const attachmentContent = "the attachment's bytes"

// seedThreads puts org_a's threads, ordered by lastMessageAt descending,
// threads without a visible message last, then id: t1 (its newest visible
// message day -2; the internal note of day -1 does not count), t2, t4.
// t3 is internal, and msg3 an internal note; org_b has a "t1" of its own.
func seedThreads(t testing.TB, st fixtureStore, src *files.Memory, day func(int) time.Time) {
	t.Helper()
	ctx := context.Background()
	must := fatalOn(t)
	agency := store.Author{Name: "Ana", Side: store.SideAgency}
	client := store.Author{Name: "Cleo", Side: store.SideClient}
	for _, th := range []store.Thread{
		{ID: "t1", OrgID: "org_a", ProjectID: ptr("p1"), Subject: "Launch date", Status: store.ThreadOpen, About: &store.Ref{Kind: store.KindMilestone, ID: "m3"}, CreatedAt: day(-4)},
		{ID: "t2", OrgID: "org_a", Subject: "Retainer hours", Status: store.ThreadResolved, CreatedAt: day(-6), ResolvedAt: ptr(day(-1))},
		{ID: "t3", OrgID: "org_a", ProjectID: ptr("p2"), Subject: "Internal: margin", Status: store.ThreadOpen, Internal: true, CreatedAt: day(-3)},
		{ID: "t4", OrgID: "org_a", ProjectID: ptr("p2"), Subject: "Kick-off agenda", Status: store.ThreadOpen, CreatedAt: day(-1)},
		{ID: "t1", OrgID: "org_b", ProjectID: ptr("pb"), Subject: "B's secret thread", Status: store.ThreadOpen, CreatedAt: day(-1)},
	} {
		must(st.PutThread(ctx, th))
	}
	for _, m := range []store.Message{
		{ID: "msg1", OrgID: "org_a", ThreadID: "t1", Author: agency, Body: "Can we move the launch to March? ✈️ «bientôt»", CreatedAt: day(-3)},
		{ID: "msg2", OrgID: "org_a", ThreadID: "t1", Author: client, Body: "Yes, here is the plan.", CreatedAt: day(-2),
			Attachments: []store.Attachment{{ID: "att1", FileName: attachmentName, ContentType: "text/plain", SizeBytes: int64(len(attachmentContent)), FileKey: "threads/att1"}}},
		{ID: "msg3", OrgID: "org_a", ThreadID: "t1", Author: agency, Body: "Internal: they will slip again.", Internal: true, CreatedAt: day(-1),
			Attachments: []store.Attachment{{ID: "att3", FileName: "notes.txt", ContentType: "text/plain", SizeBytes: 1, FileKey: "threads/att3"}}},
		{ID: "msg4", OrgID: "org_a", ThreadID: "t2", Author: client, Body: "How many hours are left?", CreatedAt: day(-5), EditedAt: ptr(day(-4))},
		{ID: "msg5", OrgID: "org_a", ThreadID: "t3", Author: agency, Body: "Margin is thin.", CreatedAt: day(-2),
			Attachments: []store.Attachment{{ID: "att2", FileName: "margin.txt", ContentType: "text/plain", SizeBytes: 1, FileKey: "threads/att2"}}},
		{ID: "msg1", OrgID: "org_b", ThreadID: "t1", Author: agency, Body: "B's secret message", CreatedAt: day(-1)},
	} {
		must(st.PutMessage(ctx, m))
	}
	src.Put("threads/att1", []byte(attachmentContent))
	src.Put("threads/att2", []byte("m"))
	src.Put("threads/att3", []byte("n"))
}

func invoiceID(n int) string {
	return "i" + string(rune('0'+n/10)) + string(rune('0'+n%10))
}

// statuses of invoices i01..i25: n%4 indexes InvoiceStatuses.
func invoicesWithStatus(s store.InvoiceStatus) int {
	c := 0
	for n := 1; n <= 25; n++ {
		if store.InvoiceStatuses[n%4] == s {
			c++
		}
	}
	return c
}

var _ = strings.Contains
