package otelstatus_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/otelstatus"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/store"
)

func ExampleMiddleware() {
	ctx := context.Background()
	st := memstore.New()
	_ = st.PutOrganization(ctx, store.Organization{ID: "org_acme", Name: "Acme", Plan: store.PlanStarter, RetainerActive: true, APIEnabled: true})
	_ = st.PutProject(ctx, store.Project{ID: "p1", OrgID: "org_acme", Name: "Website", Status: store.ProjectInProgress})
	keys := auth.NewKeys(auth.NewMemoryKeyStore(st))
	defer keys.Close()
	key, _, _ := keys.Mint(ctx, "org_acme", "example", nil)
	h := statusapi.New(st, keys, ratelimit.NewMemory(),
		statusapi.WithPublicURL("https://portal.example.com/api"),
		statusapi.WithSigningKey([]byte("a secret of at least 32 bytes!!!")))

	// In production, providers with exporters (OTLP, Prometheus); here,
	// in memory.
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))

	portal := http.NewServeMux()
	portal.Handle("/api/", otelstatus.Middleware(http.StripPrefix("/api", h),
		otelstatus.WithTracerProvider(tp), otelstatus.WithMeterProvider(mp)))

	for _, path := range []string{"/api/v1/projects/p1", "/api/v1/projects/p2"} {
		req := httptest.NewRequest("GET", path, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		portal.ServeHTTP(httptest.NewRecorder(), req)
	}

	for _, s := range spans.Ended() {
		fmt.Print(s.Name(), ":")
		for _, kv := range s.Attributes() {
			switch kv.Key {
			case "url.path", "http.response.status_code", "error.type", "clientstatus.org.id":
				fmt.Print(" ", kv.Key, "=", kv.Value.String())
			}
		}
		fmt.Println()
	}
	var rm metricdata.ResourceMetrics
	_ = reader.Collect(ctx, &rm)
	for _, m := range rm.ScopeMetrics[0].Metrics {
		for _, dp := range m.Data.(metricdata.Histogram[float64]).DataPoints {
			route, _ := dp.Attributes.Value("http.route")
			status, _ := dp.Attributes.Value("http.response.status_code")
			fmt.Println(m.Name, route.String(), status.String(), dp.Count)
		}
	}
	// Unordered output:
	// GET /v1/projects/{id}: url.path=/api/v1/projects/p1 http.response.status_code=200 clientstatus.org.id=org_acme
	// GET /v1/projects/{id}: url.path=/api/v1/projects/p2 http.response.status_code=404 error.type=NOT_FOUND clientstatus.org.id=org_acme
	// http.server.request.duration /v1/projects/{id} 200 1
	// http.server.request.duration /v1/projects/{id} 404 1
}
