package statusapi_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/internal/test/apitest"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/store"
)

// TestChangesTakeEffectAtOnce runs the in-memory wiring of the README,
// a Cache of the default ttl in front of Keys, its clock stopped: a key
// revoked, an account switched off or deleted, a plan changed, each is
// answered from the very next request.
func TestChangesTakeEffectAtOnce(t *testing.T) {
	acme := store.Organization{ID: "org_acme", Name: "Acme", Plan: store.PlanStarter, RetainerActive: true, APIEnabled: true}
	for _, tc := range []struct {
		name   string
		change func(ctx context.Context, st *memstore.Store, keys *auth.Keys, keyID string) error
		status int
		limit  string // X-RateLimit-Limit of a 200
	}{
		{"key revoked", func(ctx context.Context, _ *memstore.Store, keys *auth.Keys, keyID string) error {
			return keys.Revoke(ctx, "org_acme", keyID)
		}, 401, ""},
		{"retainer ended", func(ctx context.Context, st *memstore.Store, _ *auth.Keys, _ string) error {
			o := acme
			o.RetainerActive = false
			return st.PutOrganization(ctx, o)
		}, 403, ""},
		{"API access turned off", func(ctx context.Context, st *memstore.Store, _ *auth.Keys, _ string) error {
			o := acme
			o.APIEnabled = false
			return st.PutOrganization(ctx, o)
		}, 403, ""},
		{"organization deleted", func(ctx context.Context, st *memstore.Store, _ *auth.Keys, _ string) error {
			return st.DeleteOrganization(ctx, "org_acme")
		}, 401, ""},
		{"plan changed", func(ctx context.Context, st *memstore.Store, _ *auth.Keys, _ string) error {
			o := acme
			o.Plan = store.PlanGrowth
			return st.PutOrganization(ctx, o)
		}, 200, "300"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			ctx := context.Background()
			st := memstore.New()
			is.NoErr(st.PutOrganization(ctx, acme))
			keys := auth.NewKeys(auth.NewMemoryKeyStore(st))
			defer keys.Close()
			stopped := func() time.Time { return time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC) }
			api := apitest.Handler(st, auth.NewCache(keys, auth.WithClock(stopped)), nil)
			plain, rec, err := keys.Mint(ctx, "org_acme", "ci", nil)
			is.NoErr(err)
			get := func() *httptest.ResponseRecorder {
				return serveWith(t, api, apitest.NewRequest("GET", "/v1/projects", plain))
			}
			res := get()
			is.Equal(res.Code, 200)                               // served before the change, and cached
			is.Equal(res.Header().Get("X-RateLimit-Limit"), "60") // the starter plan's budget

			is.NoErr(tc.change(ctx, st, keys, rec.ID))
			res = get()
			is.Equal(res.Code, tc.status) // the next request, with no time passing
			if tc.limit != "" {
				is.Equal(res.Header().Get("X-RateLimit-Limit"), tc.limit) // the new plan's budget
			}
		})
	}
}
