package openapigen

// The headers of an error an organization's request may meet: its own, and the rate limit's.
var orgErrorHeaders = hs(orgHeaders, rateHeaders)

// errorResponses are the standard responses: 304 and the errors, each an Error body.
var errorResponses = O(
	"NotModified", responseOf("Nothing changed since the `ETag` sent in `If-None-Match`. No body.",
		itemHeaders, nil),
	"BadRequest", bodyResponse("INVALID_PARAMETER: a query parameter is unknown, repeated, empty, malformed or out of range; `error.param` names it.",
		orgErrorHeaders, "Error", errorExample("INVALID_PARAMETER", "status must be one of planned, in_progress, on_hold, completed, cancelled", "status")),
	"Unauthorized", errorResponse("UNAUTHORIZED: no `Authorization` header, not `Bearer <key>`, or an unknown, revoked or expired key. Counts against no rate limit.",
		hs(plainHeaders, []string{"WWW-Authenticate"}), "UNAUTHORIZED", "the API key is invalid, revoked or expired"),
	"Forbidden", refHeader(errorResponse("FORBIDDEN: the key is valid but its account has no active retainer or API access is disabled, or the key is restricted and this server cannot enforce restrictions. INSUFFICIENT_SCOPE: the key is restricted to scopes that do not include the route's (see the operation's `x-scope`), named in `WWW-Authenticate`. Counts against no rate limit.",
		hs(plainHeaders, []string{"WWW-Authenticate"}), "FORBIDDEN", "API access needs an active retainer and API access enabled on the account; contact the service operator"),
		"WWW-Authenticate", "WWW-Authenticate-Scope"),
	"NotFound", errorResponse("NOT_FOUND: no such item for this organization (an id of another organization answers the same), or no such route under /v1.",
		orgErrorHeaders, "NOT_FOUND", "no such item"),
	"MethodNotAllowed", errorResponse("METHOD_NOT_ALLOWED: any method but GET or HEAD, on any route.",
		hs(plainHeaders, []string{"Allow"}), "METHOD_NOT_ALLOWED", "method POST is not allowed; use GET or HEAD"),
	"FileNotAvailable", errorResponse("FILE_NOT_AVAILABLE: the deliverable has no file attached, or its file is not available (the message says which).",
		orgErrorHeaders, "FILE_NOT_AVAILABLE", "this deliverable has no file attached"),
	"TooManyRequests", errorResponse("RATE_LIMITED: the organization's plan budget is spent for this window. Retry after `Retry-After` seconds.",
		hs(orgErrorHeaders, []string{"Retry-After"}), "RATE_LIMITED", "rate limit of 60 requests per minute reached; retry after the number of seconds in Retry-After"),
	"Internal", errorResponse("INTERNAL: an unexpected error. The message carries no internals; quote the request id.",
		orgErrorHeaders, "INTERNAL", "internal error"),
	"Unavailable", errorResponse("UNAVAILABLE: the store, the key store or the rate limiter is unreachable or timed out. Safe to retry, after `Retry-After` seconds (1).",
		hs(orgErrorHeaders, []string{"Retry-After"}), "UNAVAILABLE", "the service is temporarily unavailable; retry later"),
	"NotModifiedUsage", responseOf("Nothing changed since the `ETag` sent in `If-None-Match`. No body, and no rate-limit headers.",
		hs(plainHeaders, validatorHeaders), nil),
)
