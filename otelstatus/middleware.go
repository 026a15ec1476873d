package otelstatus

import (
	"net/http"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/clientstatus/clientstatus/option"
	"github.com/clientstatus/clientstatus/statusapi"
)

// scope is the instrumentation scope of the spans and metrics.
const scope = "github.com/clientstatus/clientstatus/otelstatus"

// Middleware returns next, a statusapi handler or a handler that leads to
// one (such as http.StripPrefix around it), reporting each request as the
// package documentation says. It panics if next is nil. The returned
// handler is safe for concurrent use.
func Middleware(next http.Handler, opts ...Option) http.Handler {
	if next == nil {
		panic("otelstatus.Middleware: nil http.Handler")
	}
	cfg := defaultConfig()
	option.Apply(&cfg, opts)
	return &middleware{
		next:       next,
		tracer:     cfg.tracerProvider.Tracer(scope, trace.WithSchemaURL(semconv.SchemaURL)),
		propagator: cfg.propagator,
		metrics:    newMetrics(cfg.meterProvider, cfg.orgAttribute),
	}
}

type middleware struct {
	next       http.Handler
	tracer     trace.Tracer
	propagator propagation.TextMapPropagator
	metrics    *metrics
}

func (m *middleware) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	ctx := m.propagator.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
	req := requestOf(r)
	ctx, span := m.tracer.Start(ctx, spanName(req.method, ""),
		trace.WithSpanKind(trace.SpanKindServer),
		trace.WithTimestamp(start),
		trace.WithAttributes(req.spanAttributes(r)...))
	r, info := statusapi.Track(r.WithContext(ctx))

	// The deferred function also runs when a panic goes through: the
	// handler recovers its own, so one that gets here aborts a response
	// already started (http.ErrAbortHandler), which is then an error.
	aborted := true
	defer func() {
		out := outcomeOf(info, aborted)
		if info.Route != "" {
			span.SetName(spanName(req.method, info.Route))
		}
		span.SetAttributes(out.spanAttributes(info)...)
		if out.status >= 500 || aborted {
			span.SetStatus(codes.Error, out.errorType)
		}
		span.End()
		m.metrics.record(ctx, time.Since(start), req, out, info)
	}()
	m.next.ServeHTTP(w, r)
	aborted = false
}

// request is what the middleware records of a request before serving it.
type request struct {
	method string // as the conventions record it: "_OTHER" for an unknown one
	known  bool   // whether method is the request's own
	scheme string
}

func requestOf(r *http.Request) request {
	req := request{scheme: "http"}
	if r.TLS != nil {
		req.scheme = "https"
	}
	req.method, req.known = method(r.Method)
	return req
}

func (req request) spanAttributes(r *http.Request) []attribute.KeyValue {
	attrs := []attribute.KeyValue{
		semconv.HTTPRequestMethodKey.String(req.method),
		semconv.URLPath(r.URL.Path), // never r.URL.RawQuery: it holds a link's signature
		semconv.URLScheme(req.scheme),
		semconv.NetworkProtocolVersion(protocolVersion(r)),
	}
	if !req.known {
		attrs = append(attrs, semconv.HTTPRequestMethodOriginal(r.Method))
	}
	if ua := r.UserAgent(); ua != "" {
		attrs = append(attrs, semconv.UserAgentOriginal(ua))
	}
	return attrs
}

// spanName is "{method} {route}" as the conventions say, the method alone
// without a route, and "HTTP" in place of a method they do not name.
func spanName(method, route string) string {
	if method == "_OTHER" {
		method = "HTTP"
	}
	if route == "" {
		return method
	}
	return method + " " + route
}

// protocolVersion is "1.1" for HTTP/1.1 and "2" for HTTP/2, as the
// conventions write it.
func protocolVersion(r *http.Request) string {
	if r.ProtoMinor == 0 && r.ProtoMajor > 1 {
		return strconv.Itoa(r.ProtoMajor)
	}
	return strconv.Itoa(r.ProtoMajor) + "." + strconv.Itoa(r.ProtoMinor)
}

// outcome is how a request ended, as spans and metrics record it.
type outcome struct {
	status    int    // 0 when the handler did not answer
	errorType string // error.type: "" on success
}

// outcomeOf reads the outcome from the handler's RequestInfo. error.type
// is the envelope's error code; for a 5xx without one, the status; for an
// aborted response, "_OTHER", the conventions' fallback.
func outcomeOf(info *statusapi.RequestInfo, aborted bool) outcome {
	out := outcome{status: info.Status, errorType: info.ErrorCode}
	switch {
	case out.errorType != "":
	case aborted:
		out.errorType = "_OTHER"
	case out.status >= 500:
		out.errorType = strconv.Itoa(out.status)
	}
	return out
}

func (out outcome) spanAttributes(info *statusapi.RequestInfo) []attribute.KeyValue {
	var attrs []attribute.KeyValue
	str := func(k attribute.Key, v string) {
		if v != "" {
			attrs = append(attrs, k.String(v))
		}
	}
	str(semconv.HTTPRouteKey, info.Route)
	if out.status != 0 {
		attrs = append(attrs, semconv.HTTPResponseStatusCode(out.status))
	}
	str(semconv.ErrorTypeKey, out.errorType)
	str(ErrorCodeKey, info.ErrorCode)
	str(OrgIDKey, info.OrgID)
	str(KeyIDKey, info.KeyID)
	str(SubjectKey, info.Subject)
	str(RequestIDKey, info.RequestID)
	if rl := info.RateLimit; rl.Limited {
		attrs = append(attrs, PlanKey.String(info.Plan), RateLimitLimitKey.Int64(rl.Limit), RateLimitRemainingKey.Int64(rl.Remaining))
	}
	return attrs
}
