package otelstatus_test

import (
	"context"
	"testing"
	"time"

	"github.com/matryer/is"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/clientstatus/clientstatus/otelstatus"
	"github.com/clientstatus/clientstatus/webhook"
)

func TestWebhookObserver(t *testing.T) {
	is := is.New(t)
	reader := sdkmetric.NewManualReader()
	o := otelstatus.WebhookObserver(otelstatus.WithMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))))
	o.Attempted(webhook.Attempt{OrgID: "org_a", EventType: "invoice.paid", Number: 1, StatusCode: 204, Duration: 80 * time.Millisecond, QueueAge: time.Second})
	o.Attempted(webhook.Attempt{OrgID: "org_a", EventType: "invoice.paid", Number: 1, Error: "timeout", Duration: 15 * time.Second, QueueAge: time.Second})
	o.Attempted(webhook.Attempt{OrgID: "org_a", EventType: "invoice.paid", Number: 2, Error: "timeout", Duration: 15 * time.Second, QueueAge: 6 * time.Second})
	var rm metricdata.ResourceMetrics
	is.NoErr(reader.Collect(context.Background(), &rm))
	got := map[string]metricdata.Metrics{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			got[m.Name] = m
		}
	}
	attempts := got["clientstatus.webhook.attempts"].Data.(metricdata.Sum[int64])
	byError := map[string]int64{}
	for _, dp := range attempts.DataPoints {
		v, _ := dp.Attributes.Value("error.type")
		byError[v.AsString()] += dp.Value
		_, hasOrg := dp.Attributes.Value("clientstatus.org.id")
		is.True(!hasOrg) // only with WithOrgAttribute
	}
	is.Equal(byError, map[string]int64{"": 1, "timeout": 2}) // failures by kind
	age := got["clientstatus.webhook.queue.age"].Data.(metricdata.Histogram[float64])
	is.Equal(age.DataPoints[0].Count, uint64(3))
	is.Equal(age.DataPoints[0].Sum, 8.0)
	_, ok := got["clientstatus.webhook.attempt.duration"]
	is.True(ok)
}
