package otelstatus_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/matryer/is"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/clientstatus/clientstatus/internal/test/apitest"
	"github.com/clientstatus/clientstatus/otelstatus"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/store"
)

// TestTrackNests mounts the handler as a portal would, with its own
// access log (statusapi.Track) and otelstatus.Middleware (which calls
// Track itself), in both orders: every layer, and the handler's own
// observer, must see the same RequestInfo.
func TestTrackNests(t *testing.T) {
	api := apitest.New(t)
	api.Org("org_a", store.PlanStarter)
	day := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	if err := api.Store.PutProject(context.Background(), store.Project{ID: "p1", OrgID: "org_a", Name: "Website", Status: store.ProjectInProgress, UpdatedAt: day}); err != nil {
		t.Fatal(err)
	}
	key := api.Mint("a", "org_a")
	var observed statusapi.RequestInfo
	h := http.StripPrefix("/api", api.NewHandler(statusapi.WithObserver(func(_ *http.Request, info statusapi.RequestInfo) { observed = info })))

	var logged *statusapi.RequestInfo
	accessLog := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r, info := statusapi.Track(r)
			next.ServeHTTP(w, r)
			logged = info
		})
	}
	spans := tracetest.NewSpanRecorder()
	otel := func(next http.Handler) http.Handler {
		return otelstatus.Middleware(next, otelstatus.WithTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))))
	}

	for name, handler := range map[string]http.Handler{
		"access log around otelstatus": accessLog(otel(h)),
		"otelstatus around access log": otel(accessLog(h)),
	} {
		for _, tc := range []struct {
			target, cred, route, org, code string
			status                         int
		}{
			{"/api/v1/projects/p1", key, "/v1/projects/{id}", "org_a", "", 200},
			{"/api/v1/projects/nope", key, "/v1/projects/{id}", "org_a", "NOT_FOUND", 404},
			{"/api/v1/projects", "", "/v1/projects", "", "UNAUTHORIZED", 401},
		} {
			t.Run(name+" "+tc.target+" "+tc.code, func(t *testing.T) {
				is := is.New(t)
				logged, observed = nil, statusapi.RequestInfo{}
				res := httptest.NewRecorder()
				handler.ServeHTTP(res, apitest.NewRequest("GET", tc.target, tc.cred))
				is.Equal(res.Code, tc.status)

				is.True(logged != nil)
				is.Equal(logged.Route, tc.route) // the portal's access log sees the route
				is.Equal(logged.Status, tc.status)
				is.Equal(logged.OrgID, tc.org)
				is.Equal(logged.ErrorCode, tc.code)
				is.Equal(logged.RequestID, res.Header().Get("X-Request-Id"))
				is.Equal(*logged, observed) // the same as the handler's own observer

				ended := spans.Ended()
				span := ended[len(ended)-1]
				at := attrs(span.Attributes())
				is.Equal(span.Name(), "GET "+tc.route)                 // otelstatus sees it too
				is.Equal(at["http.route"].AsString(), tc.route)        // whichever is outside
				is.Equal(at["clientstatus.org.id"].AsString(), tc.org) // who called
				is.Equal(at["clientstatus.error.code"].AsString(), tc.code)
				is.Equal(int(at["http.response.status_code"].AsInt64()), tc.status)
			})
		}
	}
}
