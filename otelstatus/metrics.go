package otelstatus

import (
	"context"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/semconv/v1.43.0/httpconv"

	"github.com/clientstatus/clientstatus/envelope"
	"github.com/clientstatus/clientstatus/statusapi"
)

// metrics holds the instruments; the package documentation lists them.
type metrics struct {
	duration     metric.Float64Histogram
	refused      metric.Int64Counter
	remaining    metric.Int64Gauge
	orgAttribute bool
}

// newMetrics creates the instruments on mp. An instrument the provider
// refuses is reported to otel.Handle, as OpenTelemetry instrumentation
// does, and replaced by one that records nothing: telemetry never stops
// the API.
func newMetrics(mp metric.MeterProvider, orgAttribute bool) *metrics {
	meter := mp.Meter(scope, metric.WithSchemaURL(semconv.SchemaURL))
	m := &metrics{orgAttribute: orgAttribute}

	// httpconv brings the conventions' name, unit, description and
	// bucket boundaries.
	duration, err := httpconv.NewServerRequestDuration(meter)
	m.duration = duration.Inst()
	if err != nil {
		otel.Handle(err)
		m.duration = noop.Float64Histogram{}
	}
	if m.refused, err = meter.Int64Counter("clientstatus.ratelimit.refused",
		metric.WithUnit("{request}"),
		metric.WithDescription("Requests refused with 429 RATE_LIMITED: the organization's budget for the window was spent.")); err != nil {
		otel.Handle(err)
		m.refused = noop.Int64Counter{}
	}
	if m.remaining, err = meter.Int64Gauge("clientstatus.ratelimit.remaining",
		metric.WithUnit("{request}"),
		metric.WithDescription("Requests left in the organization's rate-limit window after its latest limited request.")); err != nil {
		otel.Handle(err)
		m.remaining = noop.Int64Gauge{}
	}
	return m
}

// record records one request that took d.
func (m *metrics) record(ctx context.Context, d time.Duration, req request, out outcome, info *statusapi.RequestInfo) {
	attrs := make([]attribute.KeyValue, 0, 5)
	attrs = append(attrs,
		semconv.HTTPRequestMethodKey.String(req.method),
		semconv.URLScheme(req.scheme))
	if info.Route != "" {
		attrs = append(attrs, semconv.HTTPRoute(info.Route))
	}
	if out.status != 0 {
		attrs = append(attrs, semconv.HTTPResponseStatusCode(out.status))
	}
	if out.errorType != "" {
		attrs = append(attrs, semconv.ErrorTypeKey.String(out.errorType))
	}
	m.duration.Record(ctx, d.Seconds(), metric.WithAttributes(attrs...))

	rl := info.RateLimit
	if !rl.Limited {
		return
	}
	limit := []attribute.KeyValue{RateLimitLimitKey.Int64(rl.Limit), PlanKey.String(info.Plan)}
	if m.orgAttribute && info.OrgID != "" {
		limit = append(limit, OrgIDKey.String(info.OrgID))
		m.remaining.Record(ctx, rl.Remaining, metric.WithAttributes(limit...))
	}
	if info.ErrorCode == string(envelope.RateLimited) {
		m.refused.Add(ctx, 1, metric.WithAttributes(limit...))
	}
}
