package openapigen

// errorResponses are the standard responses: 304 and the errors, each an Error body.
var errorResponses = O(
	"NotModified", O(
		"description", "Nothing changed since the `ETag` sent in `If-None-Match`. No body.",
		"headers", O(
			"X-Request-Id", O(
				"$ref", "#/components/headers/X-Request-Id",
			),
			"X-Sandbox", O(
				"$ref", "#/components/headers/X-Sandbox",
			),
			"X-Content-Type-Options", O(
				"$ref", "#/components/headers/X-Content-Type-Options",
			),
			"Cache-Control", O(
				"$ref", "#/components/headers/Cache-Control",
			),
			"ETag", O(
				"$ref", "#/components/headers/ETag",
			),
			"Vary", O(
				"$ref", "#/components/headers/Vary",
			),
			"X-RateLimit-Limit", O(
				"$ref", "#/components/headers/X-RateLimit-Limit",
			),
			"X-RateLimit-Remaining", O(
				"$ref", "#/components/headers/X-RateLimit-Remaining",
			),
			"X-RateLimit-Reset", O(
				"$ref", "#/components/headers/X-RateLimit-Reset",
			),
			"RateLimit-Policy", O(
				"$ref", "#/components/headers/RateLimit-Policy",
			),
			"RateLimit", O(
				"$ref", "#/components/headers/RateLimit",
			),
		),
	),
	"BadRequest", O(
		"description", "INVALID_PARAMETER: a query parameter is unknown, repeated, empty, malformed or out of range; `error.param` names it.",
		"headers", O(
			"X-Request-Id", O(
				"$ref", "#/components/headers/X-Request-Id",
			),
			"X-Sandbox", O(
				"$ref", "#/components/headers/X-Sandbox",
			),
			"X-Content-Type-Options", O(
				"$ref", "#/components/headers/X-Content-Type-Options",
			),
			"Cache-Control", O(
				"$ref", "#/components/headers/Cache-Control",
			),
			"X-RateLimit-Limit", O(
				"$ref", "#/components/headers/X-RateLimit-Limit",
			),
			"X-RateLimit-Remaining", O(
				"$ref", "#/components/headers/X-RateLimit-Remaining",
			),
			"X-RateLimit-Reset", O(
				"$ref", "#/components/headers/X-RateLimit-Reset",
			),
			"RateLimit-Policy", O(
				"$ref", "#/components/headers/RateLimit-Policy",
			),
			"RateLimit", O(
				"$ref", "#/components/headers/RateLimit",
			),
		),
		"content", O(
			"application/json", O(
				"schema", O(
					"$ref", "#/components/schemas/Error",
				),
				"example", O(
					"error", O(
						"code", "INVALID_PARAMETER",
						"message", "status must be one of planned, in_progress, on_hold, completed, cancelled",
						"param", "status",
						"request_id", "7f3a9c2e4b1d4e6f8a0b2c4d6e8f0a1b",
					),
				),
			),
		),
	),
	"Unauthorized", O(
		"description", "UNAUTHORIZED: no `Authorization` header, not `Bearer <key>`, or an unknown, revoked or expired key. Counts against no rate limit.",
		"headers", O(
			"X-Request-Id", O(
				"$ref", "#/components/headers/X-Request-Id",
			),
			"X-Content-Type-Options", O(
				"$ref", "#/components/headers/X-Content-Type-Options",
			),
			"Cache-Control", O(
				"$ref", "#/components/headers/Cache-Control",
			),
			"WWW-Authenticate", O(
				"$ref", "#/components/headers/WWW-Authenticate",
			),
		),
		"content", O(
			"application/json", O(
				"schema", O(
					"$ref", "#/components/schemas/Error",
				),
				"example", O(
					"error", O(
						"code", "UNAUTHORIZED",
						"message", "the API key is invalid, revoked or expired",
						"request_id", "7f3a9c2e4b1d4e6f8a0b2c4d6e8f0a1b",
					),
				),
			),
		),
	),
	"Forbidden", O(
		"description", "FORBIDDEN: the key is valid but its account has no active retainer or API access is disabled, or the key is restricted and this server cannot enforce restrictions. INSUFFICIENT_SCOPE: the key is restricted to scopes that do not include the route's (see the operation's `x-scope`), named in `WWW-Authenticate`. Counts against no rate limit.",
		"headers", O(
			"X-Request-Id", O(
				"$ref", "#/components/headers/X-Request-Id",
			),
			"X-Content-Type-Options", O(
				"$ref", "#/components/headers/X-Content-Type-Options",
			),
			"Cache-Control", O(
				"$ref", "#/components/headers/Cache-Control",
			),
			"WWW-Authenticate", O(
				"$ref", "#/components/headers/WWW-Authenticate-Scope",
			),
		),
		"content", O(
			"application/json", O(
				"schema", O(
					"$ref", "#/components/schemas/Error",
				),
				"example", O(
					"error", O(
						"code", "FORBIDDEN",
						"message", "API access needs an active retainer and API access enabled on the account; contact the service operator",
						"request_id", "7f3a9c2e4b1d4e6f8a0b2c4d6e8f0a1b",
					),
				),
			),
		),
	),
	"NotFound", O(
		"description", "NOT_FOUND: no such item for this organization (an id of another organization answers the same), or no such route under /v1.",
		"headers", O(
			"X-Request-Id", O(
				"$ref", "#/components/headers/X-Request-Id",
			),
			"X-Sandbox", O(
				"$ref", "#/components/headers/X-Sandbox",
			),
			"X-Content-Type-Options", O(
				"$ref", "#/components/headers/X-Content-Type-Options",
			),
			"Cache-Control", O(
				"$ref", "#/components/headers/Cache-Control",
			),
			"X-RateLimit-Limit", O(
				"$ref", "#/components/headers/X-RateLimit-Limit",
			),
			"X-RateLimit-Remaining", O(
				"$ref", "#/components/headers/X-RateLimit-Remaining",
			),
			"X-RateLimit-Reset", O(
				"$ref", "#/components/headers/X-RateLimit-Reset",
			),
			"RateLimit-Policy", O(
				"$ref", "#/components/headers/RateLimit-Policy",
			),
			"RateLimit", O(
				"$ref", "#/components/headers/RateLimit",
			),
		),
		"content", O(
			"application/json", O(
				"schema", O(
					"$ref", "#/components/schemas/Error",
				),
				"example", O(
					"error", O(
						"code", "NOT_FOUND",
						"message", "no such item",
						"request_id", "7f3a9c2e4b1d4e6f8a0b2c4d6e8f0a1b",
					),
				),
			),
		),
	),
	"MethodNotAllowed", O(
		"description", "METHOD_NOT_ALLOWED: any method but GET or HEAD, on any route.",
		"headers", O(
			"X-Request-Id", O(
				"$ref", "#/components/headers/X-Request-Id",
			),
			"X-Content-Type-Options", O(
				"$ref", "#/components/headers/X-Content-Type-Options",
			),
			"Cache-Control", O(
				"$ref", "#/components/headers/Cache-Control",
			),
			"Allow", O(
				"$ref", "#/components/headers/Allow",
			),
		),
		"content", O(
			"application/json", O(
				"schema", O(
					"$ref", "#/components/schemas/Error",
				),
				"example", O(
					"error", O(
						"code", "METHOD_NOT_ALLOWED",
						"message", "method POST is not allowed; use GET or HEAD",
						"request_id", "7f3a9c2e4b1d4e6f8a0b2c4d6e8f0a1b",
					),
				),
			),
		),
	),
	"FileNotAvailable", O(
		"description", "FILE_NOT_AVAILABLE: the deliverable has no file attached, or its file is not available (the message says which).",
		"headers", O(
			"X-Request-Id", O(
				"$ref", "#/components/headers/X-Request-Id",
			),
			"X-Sandbox", O(
				"$ref", "#/components/headers/X-Sandbox",
			),
			"X-Content-Type-Options", O(
				"$ref", "#/components/headers/X-Content-Type-Options",
			),
			"Cache-Control", O(
				"$ref", "#/components/headers/Cache-Control",
			),
			"X-RateLimit-Limit", O(
				"$ref", "#/components/headers/X-RateLimit-Limit",
			),
			"X-RateLimit-Remaining", O(
				"$ref", "#/components/headers/X-RateLimit-Remaining",
			),
			"X-RateLimit-Reset", O(
				"$ref", "#/components/headers/X-RateLimit-Reset",
			),
			"RateLimit-Policy", O(
				"$ref", "#/components/headers/RateLimit-Policy",
			),
			"RateLimit", O(
				"$ref", "#/components/headers/RateLimit",
			),
		),
		"content", O(
			"application/json", O(
				"schema", O(
					"$ref", "#/components/schemas/Error",
				),
				"example", O(
					"error", O(
						"code", "FILE_NOT_AVAILABLE",
						"message", "this deliverable has no file attached",
						"request_id", "7f3a9c2e4b1d4e6f8a0b2c4d6e8f0a1b",
					),
				),
			),
		),
	),
	"TooManyRequests", O(
		"description", "RATE_LIMITED: the organization's plan budget is spent for this window. Retry after `Retry-After` seconds.",
		"headers", O(
			"X-Request-Id", O(
				"$ref", "#/components/headers/X-Request-Id",
			),
			"X-Sandbox", O(
				"$ref", "#/components/headers/X-Sandbox",
			),
			"X-Content-Type-Options", O(
				"$ref", "#/components/headers/X-Content-Type-Options",
			),
			"Cache-Control", O(
				"$ref", "#/components/headers/Cache-Control",
			),
			"X-RateLimit-Limit", O(
				"$ref", "#/components/headers/X-RateLimit-Limit",
			),
			"X-RateLimit-Remaining", O(
				"$ref", "#/components/headers/X-RateLimit-Remaining",
			),
			"X-RateLimit-Reset", O(
				"$ref", "#/components/headers/X-RateLimit-Reset",
			),
			"RateLimit-Policy", O(
				"$ref", "#/components/headers/RateLimit-Policy",
			),
			"RateLimit", O(
				"$ref", "#/components/headers/RateLimit",
			),
			"Retry-After", O(
				"$ref", "#/components/headers/Retry-After",
			),
		),
		"content", O(
			"application/json", O(
				"schema", O(
					"$ref", "#/components/schemas/Error",
				),
				"example", O(
					"error", O(
						"code", "RATE_LIMITED",
						"message", "rate limit of 60 requests per minute reached; retry after the number of seconds in Retry-After",
						"request_id", "7f3a9c2e4b1d4e6f8a0b2c4d6e8f0a1b",
					),
				),
			),
		),
	),
	"Internal", O(
		"description", "INTERNAL: an unexpected error. The message carries no internals; quote the request id.",
		"headers", O(
			"X-Request-Id", O(
				"$ref", "#/components/headers/X-Request-Id",
			),
			"X-Sandbox", O(
				"$ref", "#/components/headers/X-Sandbox",
			),
			"X-Content-Type-Options", O(
				"$ref", "#/components/headers/X-Content-Type-Options",
			),
			"Cache-Control", O(
				"$ref", "#/components/headers/Cache-Control",
			),
			"X-RateLimit-Limit", O(
				"$ref", "#/components/headers/X-RateLimit-Limit",
			),
			"X-RateLimit-Remaining", O(
				"$ref", "#/components/headers/X-RateLimit-Remaining",
			),
			"X-RateLimit-Reset", O(
				"$ref", "#/components/headers/X-RateLimit-Reset",
			),
			"RateLimit-Policy", O(
				"$ref", "#/components/headers/RateLimit-Policy",
			),
			"RateLimit", O(
				"$ref", "#/components/headers/RateLimit",
			),
		),
		"content", O(
			"application/json", O(
				"schema", O(
					"$ref", "#/components/schemas/Error",
				),
				"example", O(
					"error", O(
						"code", "INTERNAL",
						"message", "internal error",
						"request_id", "7f3a9c2e4b1d4e6f8a0b2c4d6e8f0a1b",
					),
				),
			),
		),
	),
	"Unavailable", O(
		"description", "UNAVAILABLE: the store, the key store or the rate limiter is unreachable or timed out. Safe to retry, after `Retry-After` seconds (1).",
		"headers", O(
			"X-Request-Id", O(
				"$ref", "#/components/headers/X-Request-Id",
			),
			"X-Sandbox", O(
				"$ref", "#/components/headers/X-Sandbox",
			),
			"X-Content-Type-Options", O(
				"$ref", "#/components/headers/X-Content-Type-Options",
			),
			"Cache-Control", O(
				"$ref", "#/components/headers/Cache-Control",
			),
			"X-RateLimit-Limit", O(
				"$ref", "#/components/headers/X-RateLimit-Limit",
			),
			"X-RateLimit-Remaining", O(
				"$ref", "#/components/headers/X-RateLimit-Remaining",
			),
			"X-RateLimit-Reset", O(
				"$ref", "#/components/headers/X-RateLimit-Reset",
			),
			"RateLimit-Policy", O(
				"$ref", "#/components/headers/RateLimit-Policy",
			),
			"RateLimit", O(
				"$ref", "#/components/headers/RateLimit",
			),
			"Retry-After", O(
				"$ref", "#/components/headers/Retry-After",
			),
		),
		"content", O(
			"application/json", O(
				"schema", O(
					"$ref", "#/components/schemas/Error",
				),
				"example", O(
					"error", O(
						"code", "UNAVAILABLE",
						"message", "the service is temporarily unavailable; retry later",
						"request_id", "7f3a9c2e4b1d4e6f8a0b2c4d6e8f0a1b",
					),
				),
			),
		),
	),
	"NotModifiedUsage", O(
		"description", "Nothing changed since the `ETag` sent in `If-None-Match`. No body, and no rate-limit headers.",
		"headers", O(
			"X-Request-Id", O(
				"$ref", "#/components/headers/X-Request-Id",
			),
			"X-Content-Type-Options", O(
				"$ref", "#/components/headers/X-Content-Type-Options",
			),
			"Cache-Control", O(
				"$ref", "#/components/headers/Cache-Control",
			),
			"ETag", O(
				"$ref", "#/components/headers/ETag",
			),
			"Vary", O(
				"$ref", "#/components/headers/Vary",
			),
		),
	),
)
