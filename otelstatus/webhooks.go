package otelstatus

import (
	"context"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"

	"github.com/clientstatus/clientstatus/option"
	"github.com/clientstatus/clientstatus/webhook"
)

// WebhookEventTypeKey is the type of the event a webhook attempt
// delivered ("invoice.paid").
const WebhookEventTypeKey = attribute.Key("clientstatus.webhook.event_type")

// WebhookObserver returns a webhook.Observer (for webhook.WithObserver)
// that records every delivery attempt on the meter provider of opts
// (WithMeterProvider; WithOrgAttribute adds the organization):
//
//   - clientstatus.webhook.attempts, a counter of attempts, with
//     error.type: the kind of failure ("timeout", "connection", "tls",
//     "refused_address", "redirect", "status" for an answer that is not
//     2xx), none on a success; and http.response.status_code when an
//     answer came;
//   - clientstatus.webhook.attempt.duration, a histogram of how long an
//     attempt took, in seconds, with the same attributes;
//   - clientstatus.webhook.queue.age, a histogram of how long events
//     waited, from being queued to an attempt's start, in seconds.
//
// A failing endpoint shows here, never in readiness: the API stays ready.
func WebhookObserver(opts ...Option) webhook.Observer {
	c := defaultConfig()
	option.Apply(&c, opts)
	meter := c.meterProvider.Meter(scope, metric.WithSchemaURL(semconv.SchemaURL))
	w := &webhookMetrics{orgAttribute: c.orgAttribute}
	var err error
	if w.attempts, err = meter.Int64Counter("clientstatus.webhook.attempts",
		metric.WithUnit("{attempt}"),
		metric.WithDescription("Webhook delivery attempts, by kind of failure (none on a success).")); err != nil {
		otel.Handle(err)
		w.attempts = noop.Int64Counter{}
	}
	if w.duration, err = meter.Float64Histogram("clientstatus.webhook.attempt.duration",
		metric.WithUnit("s"),
		metric.WithDescription("How long webhook delivery attempts took.")); err != nil {
		otel.Handle(err)
		w.duration = noop.Float64Histogram{}
	}
	if w.queueAge, err = meter.Float64Histogram("clientstatus.webhook.queue.age",
		metric.WithUnit("s"),
		metric.WithDescription("How long events waited, from being queued to a delivery attempt."),
		metric.WithExplicitBucketBoundaries(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200, 36000)); err != nil {
		otel.Handle(err)
		w.queueAge = noop.Float64Histogram{}
	}
	return w
}

type webhookMetrics struct {
	attempts     metric.Int64Counter
	duration     metric.Float64Histogram
	queueAge     metric.Float64Histogram
	orgAttribute bool
}

// Attempted implements webhook.Observer.
func (w *webhookMetrics) Attempted(a webhook.Attempt) {
	ctx := context.Background()
	attrs := make([]attribute.KeyValue, 0, 4)
	attrs = append(attrs, WebhookEventTypeKey.String(a.EventType))
	if a.Error != "" {
		attrs = append(attrs, semconv.ErrorTypeKey.String(a.Error))
	}
	if a.StatusCode != 0 {
		attrs = append(attrs, semconv.HTTPResponseStatusCode(a.StatusCode))
	}
	if w.orgAttribute && a.OrgID != "" {
		attrs = append(attrs, OrgIDKey.String(a.OrgID))
	}
	set := metric.WithAttributes(attrs...)
	w.attempts.Add(ctx, 1, set)
	w.duration.Record(ctx, a.Duration.Seconds(), set)
	w.queueAge.Record(ctx, a.QueueAge.Seconds())
}
