package otelstatus

import (
	"net/http"

	"go.opentelemetry.io/otel/attribute"
)

// The attributes of this package's own, beside the HTTP semantic
// conventions' (http.request.method, http.route, url.path, ...). None holds
// a key, a token or a link's signature.
const (
	// OrgIDKey is the caller's organization id; on the signed file route,
	// the link's organization.
	OrgIDKey = attribute.Key("clientstatus.org.id")
	// KeyIDKey is the id of the stored API key the caller used, never the
	// key.
	KeyIDKey = attribute.Key("clientstatus.key.id")
	// SubjectKey is the subject of the JWT the caller used.
	SubjectKey = attribute.Key("clientstatus.subject")
	// ErrorCodeKey is the response envelope's error.code ("NOT_FOUND",
	// "RATE_LIMITED"...), also sent as error.type.
	ErrorCodeKey = attribute.Key("clientstatus.error.code")
	// RequestIDKey is the request id the response carried (X-Request-Id),
	// which the handler's own log lines repeat.
	RequestIDKey = attribute.Key("clientstatus.request.id")
	// RateLimitLimitKey is the rate limit that applied, in requests per
	// window: it stands for the organization's plan.
	RateLimitLimitKey = attribute.Key("clientstatus.ratelimit.limit")
	// PlanKey is the caller's organization's plan (starter, growth,
	// enterprise), on rate-limit metrics and spans.
	PlanKey = attribute.Key("clientstatus.plan")
	// RateLimitRemainingKey is how many requests were left in the
	// organization's window after the request.
	RateLimitRemainingKey = attribute.Key("clientstatus.ratelimit.remaining")
)

// knownMethods are the methods the HTTP semantic conventions name; any
// other is recorded as "_OTHER", so that a client cannot grow the number
// of series by inventing methods.
var knownMethods = map[string]bool{
	http.MethodConnect: true, http.MethodDelete: true, http.MethodGet: true,
	http.MethodHead: true, http.MethodOptions: true, http.MethodPatch: true,
	http.MethodPost: true, http.MethodPut: true, http.MethodTrace: true,
	"QUERY": true,
}

// method returns the request method as the conventions record it, and
// whether it is one they name.
func method(m string) (string, bool) {
	if knownMethods[m] {
		return m, true
	}
	return "_OTHER", false
}
