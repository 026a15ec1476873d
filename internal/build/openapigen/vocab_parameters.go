package openapigen

// parameters are the parameters that routes name, beside each resource's status (derived).
var parameters = O(
	"Id", O(
		"name", "id",
		"in", "path",
		"required", true,
		"description", "Opaque identifier.",
		"schema", O(
			"type", "string",
			"minLength", 1,
		),
	),
	"Page", O(
		"name", "page",
		"in", "query",
		"description", "Page number, from 1. A page past the end is 200 with `data: []` and the true total.",
		"schema", O(
			"type", "integer",
			"minimum", 1,
			"default", 1,
		),
	),
	"Limit", O(
		"name", "limit",
		"in", "query",
		"description", "Items per page. Over 100 is rejected (400), not clamped.",
		"schema", O(
			"type", "integer",
			"minimum", 1,
			"maximum", 100,
			"default", 20,
		),
	),
	"ProjectId", O(
		"name", "projectId",
		"in", "query",
		"description", "Only items of this project. An unknown id gives 200 with an empty page.",
		"schema", O(
			"type", "string",
			"minLength", 1,
		),
	),
	"IfNoneMatch", O(
		"name", "If-None-Match",
		"in", "header",
		"description", "An `ETag` from an earlier response: 304 with no body when the representation has not changed.",
		"schema", O(
			"type", "string",
		),
	),
	"RequestId", O(
		"name", "X-Request-Id",
		"in", "header",
		"description", "The client's own request id, echoed in the response when it is 1 to 128 characters of `A-Z a-z 0-9 . _ : -`; otherwise the server makes one.",
		"schema", O(
			"type", "string",
		),
	),
	"Range", O(
		"name", "Range",
		"in", "header",
		"description", "A byte range of the file (RFC 9110), answered 206, or 416 when it cannot be served.",
		"schema", O(
			"type", "string",
		),
	),
	"IfRange", O(
		"name", "If-Range",
		"in", "header",
		"description", "Serve the `Range` only if the file is unchanged (RFC 9110).",
		"schema", O(
			"type", "string",
		),
	),
	"IfMatch", O(
		"name", "If-Match",
		"in", "header",
		"description", "A precondition (RFC 9110); the file route sends no `ETag`, so only `*` holds.",
		"schema", O(
			"type", "string",
		),
	),
	"IfModifiedSince", O(
		"name", "If-Modified-Since",
		"in", "header",
		"description", "304 when the file has not changed since (RFC 9110); needs a `Last-Modified`.",
		"schema", O(
			"type", "string",
		),
	),
	"IfUnmodifiedSince", O(
		"name", "If-Unmodified-Since",
		"in", "header",
		"description", "412 when the file has changed since (RFC 9110); needs a `Last-Modified`.",
		"schema", O(
			"type", "string",
		),
	),
	"FileIfNoneMatch", O(
		"name", "If-None-Match",
		"in", "header",
		"description", "A condition (RFC 9110); the file route sends no `ETag`, so only `*` matches, answered 304.",
		"schema", O(
			"type", "string",
		),
	),
	"Org", O(
		"name", "org",
		"in", "query",
		"required", true,
		"description", "The organization the link was made for.",
		"schema", O(
			"type", "string",
			"minLength", 1,
		),
	),
	"Expires", O(
		"name", "expires",
		"in", "query",
		"required", true,
		"description", "When the link expires, in Unix seconds.",
		"schema", O(
			"type", "integer",
			"format", "int64",
		),
	),
	"Signature", O(
		"name", "signature",
		"in", "query",
		"required", true,
		"description", "The link's signature.",
		"schema", O(
			"type", "string",
			"minLength", 1,
		),
	),
	"UpdatedSince", O(
		"name", "updatedSince",
		"in", "query",
		"description", "Only items whose `updatedAt` is at or after this time (inclusive), in the contract's format (`2026-03-01T09:00:00Z`); the list is then ordered by `updatedAt` ascending, then `id`, and `meta.total` counts those items, and `meta.syncedThrough` says from when to ask next (see `Meta`). It combines with the other filters.",
		"schema", O(
			"type", "string",
			"format", "date-time",
			"pattern", "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$",
		),
	),
	"Cursor", O(
		"name", "after",
		"in", "query",
		"description", "The `meta.next` of the page before, to walk a list of changes by cursor: the items that follow it, in the same order, with `meta.page` 1 and `meta.total` counting them. A list takes it with `updatedSince` only, never with `page`; a cursor is valid only for the route, filters and key that gave it. Anything else is 400 `INVALID_PARAMETER` naming `after`. A walk by `after` never skips an item that matched throughout, however others moved, arrived or left.",
		"schema", O(
			"type", "string",
			"minLength", 1,
		),
	),
	"Since", O(
		"name", "since",
		"in", "query",
		"required", true,
		"description", "Required: list what disappeared at or after this time (inclusive), in the contract's format. Use the largest `deletedAt` (or `updatedAt`) you have seen. A time older than the records kept (at least 30 days; for an in-memory store, before it started) answers 400 `INVALID_PARAMETER` naming `since`: resync in full.",
		"schema", O(
			"type", "string",
			"format", "date-time",
			"pattern", "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$",
		),
	),
	"DeletionType", O(
		"name", "type",
		"in", "query",
		"description", "Only records of this kind. No filter when absent.",
		"schema", O(
			"$ref", "#/components/schemas/DeletionType",
		),
	),
	"ThreadId", O(
		"name", "threadId",
		"in", "query",
		"description", "Only messages of this thread. An unknown id gives 200 with an empty page.",
		"schema", O(
			"type", "string",
			"minLength", 1,
		),
	),
	"After", O(
		"name", "after",
		"in", "query",
		"description", "The id of the last event you handled: the events after it. Absent: from the oldest event kept (for the stream: only new events). An id that is unknown or older than the events kept (at least 30 days) answers 400 `INVALID_PARAMETER` naming `after`: resync in full, then resume from the newest event.",
		"schema", O(
			"type", "string",
			"minLength", 1,
		),
	),
	"EventTypes", O(
		"name", "type",
		"in", "query",
		"description", "Only events of these types, as a comma-separated list (`invoice.paid,deliverable.in_review`). Each must be a valid type (see `EventTypeName`), else 400 naming `type`. No filter when absent.",
		"style", "form",
		"explode", false,
		"schema", O(
			"type", "array",
			"minItems", 1,
			"items", O(
				"$ref", "#/components/schemas/EventTypeName",
			),
		),
	),
	"LastEventId", O(
		"name", "Last-Event-ID",
		"in", "header",
		"description", "For the stream (`Accept: text/event-stream`): the id of the last event received, as a reconnecting Server-Sent Events client sends it. It wins over `after`.",
		"schema", O(
			"type", "string",
			"minLength", 1,
		),
	),
	"AcceptEvents", O(
		"name", "Accept",
		"in", "header",
		"description", "`text/event-stream` for the live stream; anything else (or none) for the JSON feed.",
		"schema", O(
			"type", "string",
		),
	),
	"Expand", O(
		"name", "expand",
		"in", "query",
		"required", false,
		"description", "`project` embeds each item's project as `project`: `{\"id\", \"name\", \"status\"}`, or `null` for an item of no project or of one the key may not see (a key without `projects:read`, or restricted to other projects, sees none). The projects of a page are read at once. Without it the item has no `project` key. Any other value is 400 `INVALID_PARAMETER`.",
		"schema", O(
			"type", "string",
			"enum", A(
				"project",
			),
		),
	),
	"RequestLogStatus", O(
		"name", "status",
		"in", "query",
		"description", "Only requests answered with this status (`404`), or with a status of this class (`4xx`, `5xx`). No filter when absent; anything else answers 400 `INVALID_PARAMETER` naming `status`.",
		"schema", O(
			"type", "string",
			"pattern", "^([1-5][0-9]{2}|4xx|5xx)$",
		),
		"examples", O(
			"status", O(
				"value", "404",
			),
			"class", O(
				"value", "4xx",
			),
		),
	),
	"WebhookEndpointStatus", O(
		"name", "status",
		"in", "query",
		"description", "Only webhook endpoints in this state (case-sensitive). No filter when absent.",
		"schema", Ref("schemas", "WebhookEndpointStatus"),
	),
)
