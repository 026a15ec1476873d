package otelstatus_test

import (
	"context"
	"testing"

	"github.com/matryer/is"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/clientstatus/clientstatus/otelstatus"
)

// collect returns the metric of that name, if recorded.
func collect(t *testing.T, a *testAPI, name string) (metricdata.Metrics, bool) {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := a.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == name {
				return m, true
			}
		}
	}
	return metricdata.Metrics{}, false
}

// has reports whether set holds every one of kvs.
func has(set attribute.Set, kvs ...attribute.KeyValue) bool {
	for _, kv := range kvs {
		if v, ok := set.Value(kv.Key); !ok || v != kv.Value {
			return false
		}
	}
	return true
}

// durationPoint returns the http.server.request.duration point whose
// attributes include kvs.
func durationPoint(t *testing.T, a *testAPI, kvs ...attribute.KeyValue) (metricdata.HistogramDataPoint[float64], bool) {
	t.Helper()
	m, ok := collect(t, a, "http.server.request.duration")
	if !ok {
		return metricdata.HistogramDataPoint[float64]{}, false
	}
	for _, dp := range m.Data.(metricdata.Histogram[float64]).DataPoints {
		if has(dp.Attributes, kvs...) {
			return dp, true
		}
	}
	return metricdata.HistogramDataPoint[float64]{}, false
}

func TestRequestDuration(t *testing.T) {
	is := is.New(t)
	a := newTestAPI(t)
	a.do(t, "GET", "/api/v1/projects/p1", a.keyA)
	a.do(t, "GET", "/api/v1/projects/p2", a.keyA)
	a.do(t, "GET", "/api/v1/projects/nope", a.keyA)
	a.do(t, "GET", "/api/v1/nothing", a.keyA)

	m, ok := collect(t, a, "http.server.request.duration")
	is.True(ok)           // recorded
	is.Equal(m.Unit, "s") // in seconds
	points := m.Data.(metricdata.Histogram[float64]).DataPoints
	is.Equal(len(points), 3) // p1 and p2 share a series; not found and no route one each
	for _, dp := range points {
		is.Equal(dp.Bounds, []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10}) // the conventions' buckets
		for _, kv := range dp.Attributes.ToSlice() {
			switch kv.Key {
			case "http.request.method", "url.scheme", "http.route", "http.response.status_code", "error.type":
			default:
				t.Errorf("unexpected attribute %s on the duration histogram", kv.Key) // no org, no path, no id
			}
		}
	}

	ok200 := []attribute.KeyValue{
		attribute.String("http.request.method", "GET"), attribute.String("url.scheme", "http"),
		attribute.String("http.route", "/v1/projects/{id}"), attribute.Int("http.response.status_code", 200),
	}
	dp, ok := durationPoint(t, a, ok200...)
	is.True(ok)                      // by route pattern
	is.Equal(dp.Count, uint64(2))    // both ids in one series
	is.Equal(dp.Attributes.Len(), 4) // no error.type on success

	dp, ok = durationPoint(t, a, attribute.Int("http.response.status_code", 404), attribute.String("http.route", "/v1/projects/{id}"))
	is.True(ok)
	errType, _ := dp.Attributes.Value("error.type")
	is.Equal(errType.AsString(), "NOT_FOUND") // the envelope's code

	var unrouted []attribute.Set
	for _, p := range points {
		if !p.Attributes.HasValue("http.route") {
			unrouted = append(unrouted, p.Attributes)
		}
	}
	is.Equal(len(unrouted), 1) // a path that is no route has no http.route
	is.True(has(unrouted[0], attribute.Int("http.response.status_code", 404), attribute.String("error.type", "NOT_FOUND")))
}

func TestRateLimitMetrics(t *testing.T) {
	t.Run("by plan limit", func(t *testing.T) {
		is := is.New(t)
		a := newTestAPI(t)
		for range 3 {
			a.do(t, "GET", "/api/v1/projects", a.keyB) // growth: 2 a minute here
		}
		m, ok := collect(t, a, "clientstatus.ratelimit.refused")
		is.True(ok)
		is.Equal(m.Unit, "{request}")
		sum := m.Data.(metricdata.Sum[int64])
		is.True(sum.IsMonotonic)                                               // a counter
		is.Equal(len(sum.DataPoints), 1)                                       // one 429
		is.Equal(sum.DataPoints[0].Value, int64(1))                            // counted once
		is.Equal(sum.DataPoints[0].Attributes.ToSlice(), []attribute.KeyValue{ // the plan and its limit, no org
			attribute.String("clientstatus.plan", "growth"), attribute.Int64("clientstatus.ratelimit.limit", 2),
		})
		_, ok = collect(t, a, "clientstatus.ratelimit.remaining")
		is.True(!ok) // no gauge without organizations
	})
	t.Run("by organization", func(t *testing.T) {
		is := is.New(t)
		a := newTestAPI(t, otelstatus.WithOrgAttribute(true))
		for range 3 {
			a.do(t, "GET", "/api/v1/projects", a.keyB)
		}
		a.do(t, "GET", "/api/v1/projects", a.keyA) // starter: 60 a minute

		m, ok := collect(t, a, "clientstatus.ratelimit.refused")
		is.True(ok)
		is.Equal(m.Data.(metricdata.Sum[int64]).DataPoints[0].Attributes.ToSlice(), []attribute.KeyValue{
			attribute.String("clientstatus.org.id", "org_b"), attribute.String("clientstatus.plan", "growth"),
			attribute.Int64("clientstatus.ratelimit.limit", 2),
		}) // the organization too

		m, ok = collect(t, a, "clientstatus.ratelimit.remaining")
		is.True(ok) // the gauge
		remaining := map[string]int64{}
		for _, dp := range m.Data.(metricdata.Gauge[int64]).DataPoints {
			org, _ := dp.Attributes.Value("clientstatus.org.id")
			remaining[org.AsString()] = dp.Value
		}
		is.Equal(remaining, map[string]int64{"org_a": 59, "org_b": 0}) // per organization, as of its latest request
	})
}
