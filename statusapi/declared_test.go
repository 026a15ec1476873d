package statusapi_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/files"
	"github.com/clientstatus/clientstatus/internal/apitest"
	"github.com/clientstatus/clientstatus/option"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/store"
	"github.com/clientstatus/clientstatus/store/bunstore"
)

// declaredStore is what the wrapping test seeds and serves: a built-in
// store, read through store.Store, written through the portal's side.
type declaredStore interface {
	store.Store
	store.Writer
	store.ThreadWriter
	store.WebhookEndpoints
	store.RequestLog
}

// TestWrappedMemoryServesEveryRoute and TestWrappedPostgresServesEveryRoute
// are the check of "declare, do not discover": a portal that wraps its
// store (struct{ store.Store }, as a tracing wrapper does) serves every
// route the store itself serves, each answering as it does.
func TestWrappedMemoryServesEveryRoute(t *testing.T) {
	m := store.NewMemory()
	testWrappedServesEveryRoute(t, m, auth.NewMemoryKeyStore(m))
}

func TestWrappedPostgresServesEveryRoute(t *testing.T) {
	db, _, cs := migratedSchema(t, "statusapi_declared")
	st := bunstore.New(db, cs)
	testWrappedServesEveryRoute(t, st, st)
}

// wrapper is a portal's wrapper of its store: it embeds the interface,
// and so has exactly store.Store's methods.
type wrapper struct{ store.Store }

func testWrappedServesEveryRoute(t *testing.T, st declaredStore, ks auth.KeyStore) {
	is := is.New(t)
	ctx := context.Background()
	seedDeclared(t, st)
	keys := auth.NewKeys(ks)
	t.Cleanup(func() { _ = keys.Close() })
	key, _, err := keys.Mint(ctx, "org_a", "wrap", nil)
	is.NoErr(err)
	src := files.NewMemory()
	src.Put("f/d1", []byte("d1"))
	src.Put("f/i1", []byte("%PDF"))
	src.Put("f/att1", []byte("a"))

	handler := func(s store.Store, rec *statusapi.RequestRecorder) (http.Handler, []string) {
		opts := []statusapi.Option{statusapi.WithFiles(src), statusapi.WithWebhookEndpoints(st), statusapi.WithRequestLog(rec)}
		return apitest.Handler(s, keys, nil, opts...), statusapi.Routes(s, opts...)
	}
	rec := statusapi.NewRequestRecorder(st, statusapi.WithRecorderFlushInterval(time.Hour))
	t.Cleanup(func() { _ = rec.Close(context.Background()) })
	plain, plainRoutes := handler(st, rec)
	wrapped, wrappedRoutes := handler(wrapper{st}, rec)
	is.Equal(wrappedRoutes, plainRoutes) // the same routes, listed

	examples := map[string]string{ // a request of each route that the seed answers
		"{id}/milestones": "p1", "/v1/projects/{id}": "p1", "/v1/milestones/": "m1", "/v1/deliverables/": "d1",
		"/v1/invoices/": "i1", "/v1/threads/": "t1", "/v1/messages/": "msg1", "/v1/attachments/": "att1",
		"/v1/webhook_endpoints/": "we_1",
	}
	for _, pattern := range plainRoutes {
		target := pattern
		for prefix, id := range examples {
			if strings.Contains(pattern, prefix) {
				target = strings.Replace(pattern, "{id}", id, 1)
			}
		}
		if pattern == "/v1/deletions" {
			target += "?since=" + time.Now().Add(time.Second).UTC().Format(time.RFC3339) // not before the store started
		}
		answer := func(h http.Handler) int {
			req := httptest.NewRequest("GET", target, nil)
			req.Header.Set("Authorization", "Bearer "+key)
			res := httptest.NewRecorder()
			h.ServeHTTP(res, req)
			return res.Code
		}
		want, got := answer(plain), answer(wrapped)
		// The wrapped store answers as the store.
		is.Equal(got, want)
		if got != http.StatusOK && !strings.HasSuffix(pattern, "/file") { // a signed link, unsigned here, is 403
			t.Errorf("%s: %d, want 200", target, got) // every route is served, on both
		}
	}
}

// seedDeclared gives org_a one item of each kind.
func seedDeclared(t *testing.T, st declaredStore) {
	t.Helper()
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	day := time.Now().UTC().Truncate(time.Second)
	must(st.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "A", Plan: store.PlanEnterprise, RetainerActive: true, APIEnabled: true}))
	must(st.PutProject(ctx, store.Project{ID: "p1", OrgID: "org_a", Name: "Website", Status: store.ProjectInProgress}))
	must(st.PutMilestone(ctx, store.Milestone{ID: "m1", OrgID: "org_a", ProjectID: "p1", Name: "Design", Status: store.MilestonePending, DueAt: day}))
	must(st.PutDeliverable(ctx, store.Deliverable{ID: "d1", OrgID: "org_a", ProjectID: "p1", Name: "Home", Status: store.DeliverableApproved,
		FileName: ptr("d1.txt"), ContentType: ptr("text/plain"), SizeBytes: ptr(int64(2)), FileKey: "f/d1", CreatedAt: day}))
	must(st.PutInvoice(ctx, store.Invoice{ID: "i1", OrgID: "org_a", ProjectID: ptr("p1"), Number: "A-1", Status: store.InvoiceOpen,
		Currency: "EUR", Total: 100, AmountDue: 100, IssuedAt: day, DueAt: day, DocumentKey: "f/i1"}))
	must(st.PutThread(ctx, store.Thread{ID: "t1", OrgID: "org_a", ProjectID: ptr("p1"), Subject: "Launch", Status: store.ThreadOpen, CreatedAt: day}))
	must(st.PutMessage(ctx, store.Message{ID: "msg1", OrgID: "org_a", ThreadID: "t1", Author: store.Author{Name: "Ana", Side: store.SideAgency},
		Body: "Hello", CreatedAt: day, Attachments: []store.Attachment{{ID: "att1", FileName: "a.txt", ContentType: "text/plain", SizeBytes: 1, FileKey: "f/att1"}}}))
	must(st.CreateWebhookEndpoint(ctx, store.WebhookEndpoint{ID: "we_1", OrgID: "org_a", URL: "https://hooks.example.com/a",
		Types: []string{"*"}, Enabled: true, Secret: []byte("sealed")}))
}

// TestOptInRoutes: the webhook endpoints and the request log are served
// only when their options give what serves them, and listed by Routes
// only then; a nil one is refused by name, never dropped silently.
func TestOptInRoutes(t *testing.T) {
	is := is.New(t)
	api := newTestAPI(t)
	bare := apitest.Handler(api.store, api.keys, nil)
	for _, path := range []string{"/v1/webhook_endpoints", "/v1/webhook_endpoints/we_1/deliveries", "/v1/request_logs"} {
		res := api.Serve(bare, api.Request("GET", path, "a"))
		is.Equal(res.Code, 404) // not opted in: as an unknown path
		is.Equal(errorOf(t, res).Error.Code, "NOT_FOUND")
		is.Equal(api.do("GET", path, "a").Code, 200) // the harness opts in
	}
	listed := strings.Join(statusapi.Routes(api.store), " ")
	is.True(!strings.Contains(listed, "webhook") && !strings.Contains(listed, "request_logs")) // nor listed
	is.True(strings.Contains(listed, "/v1/threads") && strings.Contains(listed, "/v1/events")) // v1's are, from any store

	err := statusapi.Validate(api.store, api.keys, ratelimit.NewMemory(), statusapi.WithWebhookEndpoints(nil))
	var optIn *option.Error
	is.True(errors.As(err, &optIn)) // a typed error
	is.Equal(optIn.Option, "WithWebhookEndpoints")
	is.True(strings.Contains(err.Error(), "/v1/webhook_endpoints")) // naming what it cannot serve
	defer func() { is.True(recover() != nil) }()                    // and New refuses it
	apitest.Handler(api.store, api.keys, nil, statusapi.WithWebhookEndpoints(nil))
	t.Fatal("New served a route it cannot answer")
}
