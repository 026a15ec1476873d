package otelstatus

import (
	"cmp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Option configures Middleware, WebhookObserver and ObserveRecorder.
//
// Options follow the module's one policy (see package
// [github.com/clientstatus/clientstatus/option]): each sets a field of a
// private configuration that starts from the defaults; a nil Option is
// ignored, and nil keeps the default. No value of these options is an
// error.
type Option func(*config)

type config struct {
	tracerProvider trace.TracerProvider
	meterProvider  metric.MeterProvider
	propagator     propagation.TextMapPropagator
	orgAttribute   bool
}

// defaultConfig uses OpenTelemetry's global providers and propagator. The
// global providers delegate to whatever otel.SetTracerProvider and
// otel.SetMeterProvider install later, so Middleware may be built first.
func defaultConfig() config {
	return config{
		tracerProvider: otel.GetTracerProvider(),
		meterProvider:  otel.GetMeterProvider(),
		propagator:     otel.GetTextMapPropagator(),
	}
}

// WithTracerProvider sets where spans go, otel.GetTracerProvider() unless
// set.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(c *config) { c.tracerProvider = cmp.Or(tp, otel.GetTracerProvider()) }
}

// WithMeterProvider sets where metrics go, otel.GetMeterProvider() unless
// set.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(c *config) { c.meterProvider = cmp.Or(mp, otel.GetMeterProvider()) }
}

// WithPropagator sets how the caller's trace context is read from the
// request's headers, otel.GetTextMapPropagator() unless set. The global
// default propagates nothing: set propagation.TraceContext{} (W3C
// traceparent) here or with otel.SetTextMapPropagator for a span to join
// the caller's trace.
func WithPropagator(p propagation.TextMapPropagator) Option {
	return func(c *config) { c.propagator = cmp.Or(p, otel.GetTextMapPropagator()) }
}

// WithOrgAttribute sets whether the rate-limit metrics carry the
// organization's id (clientstatus.org.id), off unless set. On, there is one
// series per organization: fine for an agency's few hundred clients, but
// size the metrics backend for it. It also turns on the
// clientstatus.ratelimit.remaining gauge, which means nothing without an
// organization. Spans always carry the organization; the request-duration
// histogram never does.
func WithOrgAttribute(on bool) Option {
	return func(c *config) { c.orgAttribute = on }
}
