package otelstatus_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/internal/test/apitest"
	"github.com/clientstatus/clientstatus/otelstatus"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/store"
)

// The credentials the test API accepts besides its minted keys.
const (
	jwtOfUser42 = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyLTQyIn0.c2lnbmF0dXJl" // resolved to subject user-42 of org_a
	downKey     = "csk_the_key_store_is_down"                                 // the key store fails
)

// testAPI is the statusapi handler mounted under /api in a portal's mux,
// wrapped by the middleware, with in-memory exporters.
type testAPI struct {
	handler http.Handler
	spans   *tracetest.SpanRecorder
	reader  *sdkmetric.ManualReader
	keyA    string // org_a, starter: 60 a minute
	keyB    string // org_b, growth: 2 a minute here
}

func newTestAPI(t *testing.T, opts ...otelstatus.Option) *testAPI {
	t.Helper()
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	api := apitest.New(t,
		apitest.WithLimiterOptions(ratelimit.WithRate(store.PlanGrowth, ratelimit.Rate{Limit: 2, Period: time.Minute})),
		apitest.WithResolver(func(a *apitest.API) auth.KeyResolver {
			return auth.ResolverFunc(func(ctx context.Context, cred string) (auth.Principal, error) {
				switch cred {
				case jwtOfUser42:
					org, err := a.Store.Organization(ctx, "org_a")
					return auth.Principal{Org: org, Subject: "user-42"}, err
				case downKey:
					return auth.Principal{}, fmt.Errorf("test: %w", auth.ErrUnavailable)
				}
				return a.Keys.Resolve(ctx, cred)
			})
		}))
	st := api.Store
	api.Org("org_a", store.PlanStarter)
	api.Org("org_b", store.PlanGrowth)
	day := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	must(st.PutProject(ctx, store.Project{ID: "p1", OrgID: "org_a", Name: "Website", Status: store.ProjectInProgress, UpdatedAt: day}))
	must(st.PutProject(ctx, store.Project{ID: "p2", OrgID: "org_a", Name: "App", Status: store.ProjectPlanned, UpdatedAt: day}))
	name, ctype, size := "logo.svg", "image/svg+xml", int64(6)
	must(st.PutDeliverable(ctx, store.Deliverable{ID: "d1", OrgID: "org_a", ProjectID: "p1", Name: "Logo", Status: store.DeliverableApproved,
		FileName: &name, ContentType: &ctype, SizeBytes: &size, FileKey: "p1/logo.svg", CreatedAt: day, UpdatedAt: day}))
	api.Files.Put("p1/logo.svg", []byte("<svg/>"))
	h := api.NewHandler(statusapi.WithPublicURL("https://portal.example.com/api"))

	a := &testAPI{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader(), keyA: api.Mint("a", "org_a"), keyB: api.Mint("b", "org_b")}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(a.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(a.reader))
	portal := http.NewServeMux()
	portal.Handle("/api/", otelstatus.Middleware(http.StripPrefix("/api", h),
		append([]otelstatus.Option{otelstatus.WithTracerProvider(tp), otelstatus.WithMeterProvider(mp)}, opts...)...))
	a.handler = portal
	return a
}

// do sends a request with the credential as a bearer token ("" for none)
// and returns the response and the span it made.
func (a *testAPI) do(t *testing.T, method, target, cred string, header ...string) (*httptest.ResponseRecorder, sdktrace.ReadOnlySpan) {
	t.Helper()
	req := apitest.NewRequest(method, target, cred, header...)
	res := httptest.NewRecorder()
	a.handler.ServeHTTP(res, req)
	ended := a.spans.Ended()
	if len(ended) == 0 {
		t.Fatalf("%s %s: no span", method, target)
	}
	return res, ended[len(ended)-1]
}

// attrs returns a span's attributes by key.
func attrs(kvs []attribute.KeyValue) map[attribute.Key]attribute.Value {
	m := make(map[attribute.Key]attribute.Value, len(kvs))
	for _, kv := range kvs {
		m[kv.Key] = kv.Value
	}
	return m
}

func TestSpans(t *testing.T) {
	a := newTestAPI(t)
	for _, tc := range []struct {
		name, method, target, cred string
		span, route                string
		status                     int
		code                       string
		org, subject               string
		keyID                      bool
		failed                     bool // span status Error
	}{
		{"item", "GET", "/api/v1/projects/p1", a.keyA, "GET /v1/projects/{id}", "/v1/projects/{id}", 200, "", "org_a", "", true, false},
		{"HEAD", "HEAD", "/api/v1/projects/p1", a.keyA, "HEAD /v1/projects/{id}", "/v1/projects/{id}", 200, "", "org_a", "", true, false},
		{"list with a query", "GET", "/api/v1/invoices?limit=2", a.keyA, "GET /v1/invoices", "/v1/invoices", 200, "", "org_a", "", true, false},
		{"no such item", "GET", "/api/v1/projects/nope", a.keyA, "GET /v1/projects/{id}", "/v1/projects/{id}", 404, "NOT_FOUND", "org_a", "", true, false},
		{"no such route", "GET", "/api/v1/nothing", a.keyA, "GET", "", 404, "NOT_FOUND", "", "", false, false},
		{"no key", "GET", "/api/v1/projects", "", "GET /v1/projects", "/v1/projects", 401, "UNAUTHORIZED", "", "", false, false},
		{"a JWT", "GET", "/api/v1/projects", jwtOfUser42, "GET /v1/projects", "/v1/projects", 200, "", "org_a", "user-42", false, false},
		{"key store down", "GET", "/api/v1/projects", downKey, "GET /v1/projects", "/v1/projects", 503, "UNAVAILABLE", "", "", false, true},
		{"bad parameter", "GET", "/api/v1/invoices?status=PAID", a.keyA, "GET /v1/invoices", "/v1/invoices", 400, "INVALID_PARAMETER", "org_a", "", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			res, span := a.do(t, tc.method, tc.target, tc.cred)
			is.Equal(res.Code, tc.status)
			is.Equal(span.Name(), tc.span)                  // named by the route, not the path
			is.Equal(span.SpanKind(), trace.SpanKindServer) // a server span
			at := attrs(span.Attributes())
			u, _ := url.Parse(tc.target)
			is.Equal(at["http.request.method"].AsString(), tc.method)
			is.Equal(at["url.path"].AsString(), u.Path) // the whole path: the middleware is outside StripPrefix
			is.Equal(at["url.scheme"].AsString(), "http")
			_, hasQuery := at["url.query"]
			is.True(!hasQuery)                              // never the query
			is.Equal(at["http.route"].AsString(), tc.route) // the pattern
			is.Equal(int(at["http.response.status_code"].AsInt64()), tc.status)
			is.Equal(at["error.type"].AsString(), tc.code)                                       // the envelope's code
			is.Equal(at["clientstatus.error.code"].AsString(), tc.code)                          // and as our own
			is.Equal(at["clientstatus.org.id"].AsString(), tc.org)                               // who called
			is.Equal(at["clientstatus.subject"].AsString(), tc.subject)                          // the JWT's subject
			is.Equal(strings.HasPrefix(at["clientstatus.key.id"].AsString(), "key_"), tc.keyID)  // the key's id
			is.Equal(at["clientstatus.request.id"].AsString(), res.Header().Get("X-Request-Id")) // finds the log lines
			if tc.failed {
				is.Equal(span.Status().Code, codes.Error) // a 5xx is the server's error
				is.Equal(span.Status().Description, tc.code)
			} else {
				is.Equal(span.Status().Code, codes.Unset) // a 4xx is not
			}
		})
	}
}

func TestSpanRateLimit(t *testing.T) {
	is := is.New(t)
	a := newTestAPI(t)
	_, span := a.do(t, "GET", "/api/v1/projects", a.keyB)
	at := attrs(span.Attributes())
	is.Equal(at["clientstatus.ratelimit.limit"].AsInt64(), int64(2))     // the plan's limit
	is.Equal(at["clientstatus.ratelimit.remaining"].AsInt64(), int64(1)) // what is left
	a.do(t, "GET", "/api/v1/projects", a.keyB)
	res, span := a.do(t, "GET", "/api/v1/projects", a.keyB)
	is.Equal(res.Code, 429)
	is.Equal(attrs(span.Attributes())["error.type"].AsString(), "RATE_LIMITED")
	is.Equal(span.Status().Code, codes.Unset) // the client's doing
}

func TestSpanJoinsCallersTrace(t *testing.T) {
	is := is.New(t)
	a := newTestAPI(t, otelstatus.WithPropagator(propagation.TraceContext{}))
	const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	_, span := a.do(t, "GET", "/api/v1/projects", a.keyA, "Traceparent", "00-"+traceID+"-"+parentID+"-01")
	is.Equal(span.SpanContext().TraceID().String(), traceID) // the caller's trace
	is.Equal(span.Parent().SpanID().String(), parentID)      // under the caller's span
	is.True(span.Parent().IsRemote())
}

func TestUnknownMethod(t *testing.T) {
	is := is.New(t)
	a := newTestAPI(t)
	res, span := a.do(t, "BREW", "/api/v1/projects", a.keyA)
	is.Equal(res.Code, 405)
	is.Equal(span.Name(), "HTTP /v1/projects") // the conventions' name for an unknown method
	at := attrs(span.Attributes())
	is.Equal(at["http.request.method"].AsString(), "_OTHER")
	is.Equal(at["http.request.method_original"].AsString(), "BREW")
	dp, ok := durationPoint(t, a, attribute.String("http.route", "/v1/projects"), attribute.Int("http.response.status_code", 405))
	is.True(ok)
	method, _ := dp.Attributes.Value("http.request.method")
	is.Equal(method.AsString(), "_OTHER") // clients cannot invent series
}

// TestAbortedResponse shows that a panic passing through (a response
// aborted after it started) ends the span as an error and goes on.
func TestAbortedResponse(t *testing.T) {
	is := is.New(t)
	spans := tracetest.NewSpanRecorder()
	h := otelstatus.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		panic(http.ErrAbortHandler)
	}), otelstatus.WithTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))))
	func() {
		defer func() { is.Equal(recover(), http.ErrAbortHandler) }() // the panic goes on to net/http
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/v1/projects", nil))
	}()
	is.Equal(len(spans.Ended()), 1) // the span ended
	span := spans.Ended()[0]
	is.Equal(span.Status().Code, codes.Error)
	is.Equal(attrs(span.Attributes())["error.type"].AsString(), "_OTHER")
}

func TestNilHandler(t *testing.T) {
	is := is.New(t)
	defer func() { is.True(recover() != nil) }() // a programming error
	otelstatus.Middleware(nil)
}

func TestNilOptionsKeepDefaults(t *testing.T) {
	is := is.New(t)
	h := otelstatus.Middleware(http.NotFoundHandler(),
		otelstatus.WithTracerProvider(nil), otelstatus.WithMeterProvider(nil), otelstatus.WithPropagator(nil))
	res := httptest.NewRecorder()
	h.ServeHTTP(res, httptest.NewRequest("GET", "/", nil))
	is.Equal(res.Code, 404) // served, with the global providers
}

// TestNoSecrets checks that no key, token or signature reaches a span or
// a metric, whatever the request.
func TestNoSecrets(t *testing.T) {
	is := is.New(t)
	a := newTestAPI(t, otelstatus.WithOrgAttribute(true))
	res, _ := a.do(t, "GET", "/api/v1/deliverables/d1/download", a.keyA)
	is.Equal(res.Code, 200)
	var link struct {
		Data struct{ URL string } `json:"data"`
	}
	is.NoErr(json.Unmarshal(res.Body.Bytes(), &link))
	u, err := url.Parse(link.Data.URL)
	is.NoErr(err)
	signature := u.Query().Get("signature")
	is.True(signature != "")
	res, span := a.do(t, "GET", u.RequestURI(), "")
	is.Equal(res.Code, 200)
	is.Equal(span.Name(), "GET /v1/deliverables/{id}/file")
	is.Equal(attrs(span.Attributes())["clientstatus.org.id"].AsString(), "org_a") // the link's organization

	a.do(t, "GET", "/api/v1/projects", a.keyB)
	a.do(t, "GET", "/api/v1/projects", jwtOfUser42)
	a.do(t, "GET", "/api/v1/projects", "csk_not_a_real_key_0123456789abcdefghijkl")
	a.do(t, "GET", "/api/v1/projects", "Basic "+a.keyA) // a malformed header
	a.do(t, "GET", u.Path+"?"+u.RawQuery+"&x=1", "")    // a refused link

	secrets := []string{a.keyA, a.keyB, jwtOfUser42, "csk_not_a_real_key", signature, "signature", "Bearer", "expires="}
	var seen []string
	for _, s := range a.spans.Ended() {
		seen = append(seen, s.Name(), s.Status().Description)
		for _, kv := range s.Attributes() {
			seen = append(seen, string(kv.Key)+"="+kv.Value.String())
		}
		for _, e := range s.Events() {
			seen = append(seen, e.Name, fmt.Sprint(e.Attributes))
		}
	}
	var rm metricdata.ResourceMetrics
	is.NoErr(a.reader.Collect(context.Background(), &rm))
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			seen = append(seen, m.Name, fmt.Sprintf("%+v", m.Data))
		}
	}
	all := strings.Join(seen, "\n")
	is.True(strings.Contains(all, "org_a")) // the collection is not empty
	for _, s := range secrets {
		if strings.Contains(all, s) {
			t.Errorf("%q found in the telemetry:\n%s", s, all)
		}
	}
}
