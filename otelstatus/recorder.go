package otelstatus

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"

	"github.com/clientstatus/clientstatus/option"
	"github.com/clientstatus/clientstatus/statusapi"
)

// ObserveRecorder reports, on the meter provider of opts
// (WithMeterProvider), what rec did not write to the request log, as two
// counters read at each collection:
//
//   - clientstatus.request_log.dropped: requests never recorded, as the
//     buffer was full or rec closed (rec.Dropped);
//   - clientstatus.request_log.lost: records of batches the sink refused,
//     as in a database outage (rec.Lost).
//
// Unregister the result once rec is closed. It panics when rec is nil.
func ObserveRecorder(rec *statusapi.RequestRecorder, opts ...Option) metric.Registration {
	if rec == nil {
		panic("otelstatus: ObserveRecorder needs a *statusapi.RequestRecorder")
	}
	c := defaultConfig()
	option.Apply(&c, opts)
	meter := c.meterProvider.Meter(scope, metric.WithSchemaURL(semconv.SchemaURL))
	dropped, err1 := meter.Int64ObservableCounter("clientstatus.request_log.dropped",
		metric.WithUnit("{record}"),
		metric.WithDescription("Requests not recorded in the request log: its buffer was full or the recorder closed."))
	lost, err2 := meter.Int64ObservableCounter("clientstatus.request_log.lost",
		metric.WithUnit("{record}"),
		metric.WithDescription("Request-log records lost: the store refused the batch that held them."))
	if err := errors.Join(err1, err2); err != nil {
		otel.Handle(err)
		return noop.Registration{}
	}
	reg, err := meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		o.ObserveInt64(dropped, rec.Dropped())
		o.ObserveInt64(lost, rec.Lost())
		return nil
	}, dropped, lost)
	if err != nil {
		otel.Handle(err)
		return noop.Registration{}
	}
	return reg
}
