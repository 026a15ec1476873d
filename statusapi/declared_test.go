package statusapi_test

import (
	"cmp"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/files"
	"github.com/clientstatus/clientstatus/internal/test/apitest"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/store"
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
	m := memstore.New()
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
	src := files.NewMemory()
	putFixtures(t, st, src) // the data the table's examples name
	// Enterprise: no rate limit to run out of, however many routes.
	is.NoErr(st.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "org_a", Plan: store.PlanEnterprise, RetainerActive: true, APIEnabled: true}))
	keys := auth.NewKeys(ks)
	t.Cleanup(func() { _ = keys.Close() })
	key, _, err := keys.Mint(ctx, "org_a", "wrap", nil)
	is.NoErr(err)

	handler := func(s store.Store, rec *statusapi.RequestRecorder) (http.Handler, []statusapi.RouteInfo) {
		opts := []statusapi.Option{statusapi.WithFiles(src), statusapi.WithWebhookEndpoints(st), statusapi.WithRequestLog(rec)}
		return apitest.Handler(s, keys, nil, opts...), statusapi.RouteTable(opts...)
	}
	rec := statusapi.NewRequestRecorder(st, statusapi.WithRecorderFlushInterval(time.Hour))
	t.Cleanup(func() { _ = rec.Close(context.Background()) })
	plain, plainRoutes := handler(st, rec)
	wrapped, wrappedRoutes := handler(wrapper{st}, rec)
	is.Equal(wrappedRoutes, plainRoutes) // the same routes, listed

	for _, rt := range plainRoutes {
		// Each route's example (routes.go), or its pattern for a route
		// without one: an unsigned signed link is 403.
		target := cmp.Or(rt.Example, strings.ReplaceAll(rt.Pattern, "{id}", "x"))
		if rt.Pattern == "/v1/deletions" {
			target = rt.Pattern + "?since=" + time.Now().Add(time.Second).UTC().Format(time.RFC3339) // not before the store started
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
		if got != http.StatusOK && !strings.HasSuffix(rt.Pattern, "/file") { // a signed link, unsigned here, is 403
			t.Errorf("%s: %d, want 200", target, got) // every route is served, on both
		}
	}
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
	listed := strings.Join(statusapi.Routes(), " ")
	is.True(!strings.Contains(listed, "webhook") && !strings.Contains(listed, "request_logs")) // nor listed
	is.True(strings.Contains(listed, "/v1/threads") && strings.Contains(listed, "/v1/events")) // v1's are, from any store

	is.NoErr(statusapi.Validate(api.store, api.keys, ratelimit.NewMemory(), statusapi.WithWebhookEndpoints(nil))) // nil keeps the default: off
	listed = strings.Join(statusapi.Routes(nil, statusapi.WithWebhookEndpoints(nil)), " ")                        // a nil Option is ignored
	is.True(!strings.Contains(listed, "webhook"))
}
