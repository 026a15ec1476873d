package openapigen

// fileResponses are a signed link's and the signed file routes' responses.
var fileResponses = O(
	"DownloadLinkResponse", O(
		"description", "A signed link to the deliverable's file, valid for 15 minutes. Never cached (`Cache-Control: no-store`): the link is a credential.",
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
					"$ref", "#/components/schemas/DownloadLinkEnvelope",
				),
				"example", O(
					"data", O(
						"url", "https://portal.example.com/api/v1/deliverables/dlv_acme_1_2/file?expires=1772356500&org=org_acme&signature=r5btJXmjjeFW_azDmHB9O8W4Wwaz-79mgDUxLT9cat0",
						"expiresAt", "2026-03-01T09:15:00Z",
					),
				),
			),
		),
	),
	"LinkRejected", O(
		"description", "LINK_EXPIRED: the signed link is past its expiry; INVALID_SIGNATURE: the link was changed or is incomplete.",
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
		),
		"content", O(
			"application/json", O(
				"schema", O(
					"$ref", "#/components/schemas/Error",
				),
				"example", O(
					"error", O(
						"code", "LINK_EXPIRED",
						"message", "the download link has expired; ask for a new one",
						"request_id", "7f3a9c2e4b1d4e6f8a0b2c4d6e8f0a1b",
					),
				),
			),
		),
	),
	"File", O(
		"description", "The deliverable's file, with its own media type (`application/octet-stream` when it has none).",
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
			"Content-Disposition", O(
				"$ref", "#/components/headers/Content-Disposition",
			),
			"Accept-Ranges", O(
				"$ref", "#/components/headers/Accept-Ranges",
			),
			"Last-Modified", O(
				"$ref", "#/components/headers/Last-Modified",
			),
		),
		"content", O(
			"*/*", O(),
		),
	),
	"FilePart", O(
		"description", "The requested ranges of the file (`Range` request, RFC 9110). One range is served with the file's own media type and a `Content-Range`; several ranges as one `multipart/byteranges` body, whose parts each carry their own `Content-Type` and `Content-Range`, with no `Content-Range` on the response itself. (Ranges that together cover more than the file are answered 200 with the whole file.)",
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
			"Content-Disposition", O(
				"$ref", "#/components/headers/Content-Disposition",
			),
			"Accept-Ranges", O(
				"$ref", "#/components/headers/Accept-Ranges",
			),
			"Last-Modified", O(
				"$ref", "#/components/headers/Last-Modified",
			),
			"Content-Range", O(
				"$ref", "#/components/headers/Content-Range",
			),
		),
		"content", O(
			"*/*", O(),
		),
	),
	"FileNotModified", O(
		"description", "The file has not changed since the validator sent in `If-None-Match` or `If-Modified-Since`. No body.",
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
			"Content-Disposition", O(
				"$ref", "#/components/headers/Content-Disposition",
			),
			"Accept-Ranges", O(
				"$ref", "#/components/headers/Accept-Ranges",
			),
			"Last-Modified", O(
				"$ref", "#/components/headers/Last-Modified",
			),
		),
	),
	"FilePrecondition", O(
		"description", "An `If-Match` or `If-Unmodified-Since` precondition failed. No body.",
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
			"Content-Disposition", O(
				"$ref", "#/components/headers/Content-Disposition",
			),
		),
	),
	"FileRange", O(
		"description", "The `Range` cannot be served from the file. Plain text, from Go's `net/http`.",
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
			"Content-Disposition", O(
				"$ref", "#/components/headers/Content-Disposition",
			),
			"Content-Range", O(
				"$ref", "#/components/headers/Content-Range-Unsatisfied",
			),
		),
		"content", O(
			"text/plain", O(
				"schema", O(
					"type", "string",
				),
			),
		),
	),
)
