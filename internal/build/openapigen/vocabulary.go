package openapigen

import "slices"

// The shared vocabulary of the document, said once: what no route, wire
// type or kind implies. A route names these components (Route.Params,
// Route.Responses); what the table and the wire types make is added to
// them by Generate.

// info is the document's title, version and conventions.
var info = O(
	"title", "Client Project Status API",
	"version", "1.0.0",
	"description", "A read-only JSON API through which clients on an active retainer read their projects, milestones, deliverables and invoices. The data a key can see is that of the organization that owns the key.\n\nConventions:\n\n- Every route answers `GET` and `HEAD`; `HEAD` gives the same status and headers as `GET` and no body, and is documented as its own operation (`listProjectsHead` beside `listProjects`), with responses that have no body. Any other method answers 405 `METHOD_NOT_ALLOWED` with `Allow: GET, HEAD` (the response `MethodNotAllowed` in the components); an unknown path under `/v1` answers 404 `NOT_FOUND`.\n- Every body is JSON (`application/json; charset=utf-8`) in an envelope: `{\"data\": ...}`, `{\"data\": [...], \"meta\": {...}}` or `{\"error\": {...}}`. The signed file route serves the file itself.\n- Every item of a type has the same keys: absent values are `null`, never omitted. Timestamps are RFC 3339 in UTC, to the second. Money is integer minor units with an ISO 4217 `currency`.\n- List routes take `page`, `limit`, `status`, `updatedSince`, for deliverables and invoices `projectId` and, for projects, milestones and invoices, `dueBefore`. Any other query parameter, a repeated or empty one, or a bad value answers 400 `INVALID_PARAMETER` naming it.\n- Rate limits are per organization and plan: starter 60 and growth 300 requests a minute, enterprise unlimited. Limited responses carry `X-RateLimit-*` and `RateLimit*` headers; a refused request is 429 `RATE_LIMITED` with `Retry-After`. `GET /v1/rate_limit` reads the budget without spending it.\n- Restricted keys: a key may be limited to some scopes (`projects:read`, `deliverables:read`, `invoices:read`, `threads:read`, `webhooks:read`, `logs:read`; each operation's `x-scope` names the one it needs) and to some projects. A route outside its scopes answers 403 `INSUFFICIENT_SCOPE` with `WWW-Authenticate: Bearer error=\"insufficient_scope\", scope=\"...\"`; an item outside its projects answers 404 as another organization's id, and lists, totals and deletions hold only what it may see (never a retainer invoice).\n- Sandbox keys (`csk_test_...`) read a sandbox copy of their organization: demo data that changes by itself, never mixed with live data; every route behaves the same, and answers to them carry `X-Sandbox: true`.\n- Every response carries `X-Request-Id`.",
)

// servers is the one server, whose URL the handler replaces when serving the document.
var servers = A(
	O(
		"url", "{baseUrl}",
		"description", "Where the handler is mounted: the portal's origin plus its prefix, without `/v1`.",
		"variables", O(
			"baseUrl", O(
				"default", "http://localhost:8080",
				"description", "For example `https://portal.example.com/api` when the handler is mounted under `/api`.",
			),
		),
	),
)

// tags are the operations' groups, in the reference's order.
var tags = A(
	O(
		"name", "Projects",
		"description", "Projects and their milestones.",
	),
	O(
		"name", "Deliverables",
		"description", "Deliverables and their files.",
	),
	O(
		"name", "Invoices",
		"description", "Invoices.",
	),
	O(
		"name", "Threads",
		"description", "The conversation between the agency and the client: threads, their messages and attachments. Internal notes of the agency are never shown.",
	),
	O(
		"name", "Meta",
		"description", "This document.",
	),
	O(
		"name", "Sync",
		"description", "Keeping a copy in sync by polling: `updatedSince` on every list, and the deletions feed.",
	),
	O(
		"name", "Events",
		"description", "What changed, as a feed to resume from and a live stream (Server-Sent Events).",
	),
	O(
		"name", "Webhooks",
		"description", "The organization's webhook endpoints, which the agency registers, and their deliveries.",
	),
	O(
		"name", "Logs",
		"description", "The organization's own requests of the last 7 days.",
	),
)

// securitySchemes is the bearer API key.
var securitySchemes = O(
	"bearerAuth", O(
		"type", "http",
		"scheme", "bearer",
		"description", "`Authorization: Bearer <API_KEY>`. Keys are created in the client portal and belong to one organization; the scheme is case-insensitive.",
	),
)

// headers are the response headers that responses name.
var headers = O(
	"X-Request-Id", requiredHeader("The request id: the client's own `X-Request-Id` when it sent a sane one, else one the server made. Quote it to the operator.",
		patternSchema("^[A-Za-z0-9._:-]{1,128}$")),
	"X-Sandbox", header("`true` on every answer to a sandbox key (`csk_test_...`), which reads its organization's sandbox, never its live data; absent for live keys.",
		oneValueSchema("true")),
	"X-RateLimit-Limit", header("Requests the organization's plan allows per window. Present on rate-limited plans (starter, growth); enterprise responses carry no rate-limit headers.", countSchema),
	"X-RateLimit-Remaining", header("Requests left in the current window.", countSchema),
	"X-RateLimit-Reset", header("When the current window ends, in Unix seconds.", countSchema),
	"RateLimit-Policy", header("The plan's quota and window in seconds, as in draft-ietf-httpapi-ratelimit-headers: `\"plan\";q=60;w=60`.", stringSchema()),
	"RateLimit", header("Requests left and seconds until the window ends, as in draft-ietf-httpapi-ratelimit-headers: `\"plan\";r=59;t=42`.", stringSchema()),
	"Retry-After", requiredHeader("Seconds to wait before retrying.", O("type", "integer", "minimum", 1)),
	"ETag", header("Entity tag of the representation; send it back in `If-None-Match` to get 304 when nothing changed.", stringSchema()),
	"Link", header("RFC 8288 links to the `first`, `prev`, `next` and `last` pages of the list, each keeping the request's filters and limit; `prev` and `next` only where such a page exists.", stringSchema()),
	"Cache-Control", header("`private, no-cache` on successful JSON responses: a client's own cache may keep them but must revalidate each use, a shared cache never stores them. `no-store` on errors, download links and files. On the reference page `no-cache`, on its script `public, max-age=86400`: both are the same for every caller.", stringSchema()),
	"Vary", header("`Authorization`: the representation depends on the caller's key.", stringSchema()),
	"Accept-Ranges", header("`bytes` when the file can be served in ranges (`Range` requests).", stringSchema()),
	"Last-Modified", header("When the file last changed, when its source knows.", stringSchema()),
	"Content-Range", header("The one range served, as `bytes 4-14/1234`. Absent from a `multipart/byteranges` answer to several ranges, whose parts carry their own.",
		patternSchema("^bytes [0-9]+-[0-9]+/[0-9]+$")),
	"Content-Range-Unsatisfied", requiredHeader("`bytes */<size>`: the file's size, which the `Range` does not fit.",
		patternSchema("^bytes \\*/[0-9]+$")),
	"X-Content-Type-Options", header("Always `nosniff`.", oneValueSchema("nosniff")),
	"Content-Security-Policy", header("The reference page's policy: scripts, styles, images, fonts and connections from the handler's own origin only (plus inline styles, `data:` images and fonts, and a `blob:` web worker, which the renderer uses); no plugin, no `<base>`, no form, and no framing by another page. For example `default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`.", stringSchema()),
	"WWW-Authenticate", requiredHeader("The authentication scheme to use: `Bearer`.", stringSchema()),
	"Allow", requiredHeader("The methods every route supports: `GET, HEAD`.", stringSchema()),
	"Content-Disposition", requiredHeader("`attachment` with the deliverable's file name.", stringSchema()),
	"WWW-Authenticate-Scope", header("On `INSUFFICIENT_SCOPE` only: the scope the route needs, as RFC 6750 says, `Bearer error=\"insufficient_scope\", scope=\"invoices:read\"`.",
		patternSchema("^Bearer error=\"insufficient_scope\", scope=\"[a-z]+:read\"$")),
	"X-Accel-Buffering", header("`no` on the live stream (`text/event-stream`), so that a proxy such as nginx does not buffer it.",
		oneValueSchema("no")),
)

// responses are the standard responses and those of the routes that are
// not a resource's list or item (a resource's are derived).
var responses = slices.Concat(standardResponses, fileResponses, routeResponses)

// headOf is the HEAD twin of each GET response with a body: the same
// headers, no body. An error response's is its name and Head (Generate).
var headOf = map[string]string{
	"DownloadLinkResponse":        "DownloadLinkHead",
	"File":                        "FileHead",
	"FilePart":                    "FilePartHead",
	"FileRange":                   "FileRangeHead",
	"OpenAPIDocument":             "OpenAPIDocumentHead",
	"DocsPage":                    "DocsPageHead",
	"DocsScript":                  "DocsScriptHead",
	"DeletionListResponse":        "ListHead",
	"UsageResponse":               "UsageHead",
	"EventListResponse":           "EventListHead",
	"WebhookEndpointListResponse": "ListHead",
	"WebhookDeliveryListResponse": "ListHead",
	"RequestLogListResponse":      "ListHead",
}

// headDescriptions are the HEAD twins' descriptions that are not their
// GET response's and headOnly (see headResponse).
var headDescriptions = map[string]string{
	"UsageHead":            "The budget. `HEAD`: the same headers, no body.",
	"DocsScriptHead":       "The renderer of the reference page. `HEAD`: the same headers, no body.",
	"FileNotAvailableHead": "FILE_NOT_AVAILABLE: the deliverable has no file attached. `HEAD`: the same headers, no body.",
	"DocsPageHead":         "The reference page. `HEAD`: the same headers, no body.",
	"UnavailableHead":      "UNAVAILABLE: the store, the key store or the rate limiter is unreachable or timed out. Safe to retry after `Retry-After` seconds. `HEAD`: the same headers, no body.",
	"ListHead":             "The headers of one page of a list, without its body (`HEAD`).",
	"ProjectHead":          "The project. `HEAD`: the same headers, no body.",
	"EventListHead":        "The headers of `listEvents`'s 200, without the body (a HEAD never streams).",
}

// schemas are the schemas that no wire type reflects: the envelope's, the error's and the routes' own bodies.
var schemas = O(
	"Meta", O(
		"type", "object",
		"description", "Paging information of a list; on a page of changes (`updatedSince`, `listDeletions`) also `syncedThrough` and `next`.",
		"examples", A(
			O(
				"page", 1,
				"per_page", 20,
				"total", 2,
			),
			O(
				"page", 1,
				"per_page", 100,
				"total", 1,
				"syncedThrough", "2026-03-01T09:00:00Z",
				"next", nil,
			),
		),
		"additionalProperties", false,
		"required", A(
			"page",
			"per_page",
			"total",
		),
		"properties", O(
			"page", O(
				"type", "integer",
				"minimum", 1,
				"description", "The page served, from 1.",
			),
			"per_page", O(
				"type", "integer",
				"minimum", 1,
				"maximum", 100,
				"description", "The effective `limit`.",
			),
			"total", O(
				"type", "integer",
				"minimum", 0,
				"description", "The count of all items matching the filters, whatever the page.",
			),
			"syncedThrough", O(
				"type", "string",
				"format", "date-time",
				"pattern", "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$",
				"description", "Present on every list answered with `updatedSince` and on every page of `listDeletions`, and left out of every other list (it is paging information, not an item field, so it is omitted rather than null): every write that this answer could not see yet has, or will get, an `updatedAt` (or `deletedAt`) at or after it, whatever its transaction's length or the locks it waited on. With nothing in flight it is the current second. A sync client asks again from the smallest `syncedThrough` of the pages it walked, not from the largest `updatedAt` it saw.",
			),
			"next", O(
				"oneOf", A(
					O(
						"type", "string",
						"minLength", 1,
					),
					O(
						"type", "null",
					),
				),
				"description", "Present on every list answered with `updatedSince` and on every page of `listDeletions`, left out of every other list: the `after` that continues the walk by cursor, `null` when no matching item follows.",
			),
		),
	),
	"DownloadLinkEnvelope", envelopeSchema("A single downloadLink.", "DownloadLink"),
	"ErrorCode", O(
		"type", "string",
		"enum", A(
			"INVALID_PARAMETER",
			"UNAUTHORIZED",
			"FORBIDDEN",
			"INSUFFICIENT_SCOPE",
			"LINK_EXPIRED",
			"INVALID_SIGNATURE",
			"NOT_FOUND",
			"METHOD_NOT_ALLOWED",
			"FILE_NOT_AVAILABLE",
			"RATE_LIMITED",
			"INTERNAL",
			"UNAVAILABLE",
		),
		"description", "Machine-readable error code; clients branch on it. Each code has one HTTP status: INVALID_PARAMETER 400; UNAUTHORIZED 401; FORBIDDEN, INSUFFICIENT_SCOPE, LINK_EXPIRED, INVALID_SIGNATURE 403; NOT_FOUND 404 (also unknown routes under /v1); METHOD_NOT_ALLOWED 405; FILE_NOT_AVAILABLE 409; RATE_LIMITED 429; INTERNAL 500; UNAVAILABLE 503.",
	),
	"Error", O(
		"type", "object",
		"description", "The body of every error response.",
		"examples", A(
			errorExample("INVALID_PARAMETER", "limit must be a whole number from 1 to 100", "limit"),
			errorExample("NOT_FOUND", "no such item", ""),
			errorExample("INSUFFICIENT_SCOPE", "this key may not read this route: it needs the scope invoices:read", ""),
		),
		"additionalProperties", false,
		"required", A(
			"error",
		),
		"properties", O(
			"error", O(
				"type", "object",
				"description", "What went wrong.",
				"additionalProperties", false,
				"required", A(
					"code",
					"message",
				),
				"properties", O(
					"code", O(
						"$ref", "#/components/schemas/ErrorCode",
					),
					"message", O(
						"type", "string",
						"description", "Human-readable text. Never carries internals.",
					),
					"param", O(
						"type", "string",
						"description", "The offending query parameter, for INVALID_PARAMETER.",
					),
					"request_id", O(
						"type", "string",
						"description", "The response's `X-Request-Id`, so a client that logs only the body can quote it.",
					),
				),
			),
		),
	),
	"DeletionType", O(
		"type", "string",
		"description", "The kind of item that disappeared.",
		"enum", A(), // the kinds, in their order (Generate)
	),
	"DeletionList", listSchema("One page of deletion records.", "Deletion",
		"The page's records, ordered by `deletedAt` ascending, then `type`, then `id`; `[]` past the last page."),
	"UsageEnvelope", envelopeSchema("The key's budget.", "Usage"),
	"WebhookEndpointStatus", O(
		"type", "string",
		"description", "The state of a webhook endpoint: `enabled` (delivered to) or `disabled`.",
		"enum", A("enabled", "disabled"),
	),
	"AuthorSide", O(
		"type", "string",
		"description", "Which side of the conversation wrote a message.",
		"enum", A(
			"agency",
			"client",
		),
		"x-enum-varnames", A(
			"AuthorSideAgency",
			"AuthorSideClient",
		),
	),
	"EventList", listSchema("A page of events.", "Event",
		"The events after `after`, oldest first; `[]` when there are none yet."),
	"WebhookEndpointList", listSchema("One page of webhook endpoints.", "WebhookEndpoint",
		"The page's endpoints, oldest first; `[]` past the last page."),
	"WebhookDeliveryList", listSchema("One page of delivery attempts.", "WebhookDelivery",
		"The page's attempts, newest first; `[]` past the last page."),
	"RequestLogList", listSchema("One page of the request log.", "RequestLog",
		"The page's requests, newest first (`createdAt` descending), then `id`; `[]` past the last page."),
)
