package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/otlptranslator"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
)

// metricsServer serves the API's OpenTelemetry metrics to Prometheus, at
// /metrics on a listener of its own: scrapers reach it on an internal
// address, clients of the API never do.
type metricsServer struct {
	provider *sdkmetric.MeterProvider // give it to otelstatus.Middleware
	url      string                   // where /metrics answers
	srv      *http.Server
	ln       net.Listener
}

// newMetricsServer listens on addr and prepares a MeterProvider whose
// metrics it will serve once serve is called.
func newMetricsServer(addr string, log *slog.Logger) (*metricsServer, error) {
	// A registry of the server's own, not Prometheus's global one: the
	// tests start several servers in one process.
	reg := prometheus.NewRegistry()
	exp, err := otelprom.New(otelprom.WithRegisterer(reg),
		// Prometheus's own names (http_server_request_duration_seconds),
		// whatever the validation scheme of the prometheus/common version.
		otelprom.WithTranslationStrategy(otlptranslator.UnderscoreEscapingWithSuffixes))
	if err != nil {
		return nil, fmt.Errorf("the Prometheus exporter: %w", err)
	}
	// The service's name, unless $OTEL_SERVICE_NAME or
	// $OTEL_RESOURCE_ATTRIBUTES say otherwise.
	res, err := resource.New(context.Background(),
		resource.WithAttributes(semconv.ServiceName("clientstatus")),
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil {
		return nil, fmt.Errorf("$OTEL_RESOURCE_ATTRIBUTES: %w", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("-metrics-addr: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}))
	return &metricsServer{
		provider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(exp), sdkmetric.WithResource(res)),
		url:      defaultPublicURL(ln.Addr()) + "/metrics",
		srv:      newHTTPServer(mux, log),
		ln:       ln,
	}, nil
}

// serve serves until shutdown; it returns http.ErrServerClosed then.
func (m *metricsServer) serve() error { return m.srv.Serve(m.ln) }

// shutdown stops serving and releases the MeterProvider.
func (m *metricsServer) shutdown(ctx context.Context) error {
	return errors.Join(m.srv.Shutdown(ctx), m.provider.Shutdown(ctx))
}
