package statusapi

import (
	"strings"

	"github.com/clientstatus/clientstatus/internal/apidoc"
	"github.com/clientstatus/clientstatus/store"
)

// The parameters of the contract, each declared once: the handler
// parses them by these names and the document says them (in this order,
// then each resource's status). Routes name them by these values.
var (
	pID = &apidoc.Param{Component: "Id", Name: "id", In: "path", Required: true,
		Description: "Opaque identifier.", Schema: nonEmpty}
	pPage = &apidoc.Param{Component: "Page", Name: paramPage, In: "query",
		Description: "Page number, from 1. A page past the end is 200 with `data: []` and the true total.",
		Schema:      apidoc.Schema{Type: "integer", Minimum: 1, Default: 1}}
	pLimit = &apidoc.Param{Component: "Limit", Name: paramLimit, In: "query",
		Description: "Items per page. Over 100 is rejected (400), not clamped.",
		Schema:      apidoc.Schema{Type: "integer", Minimum: 1, Maximum: store.MaxLimit, Default: store.DefaultLimit}}
	pProjectID = &apidoc.Param{Component: "ProjectId", Name: paramProjectID, In: "query",
		Description: "Only items of this project. An unknown id gives 200 with an empty page.", Schema: nonEmpty}
	pIfNoneMatch = header("IfNoneMatch", "If-None-Match",
		"An `ETag` from an earlier response: 304 with no body when the representation has not changed.")
	pRequestID = header("RequestId", "X-Request-Id",
		"The client's own request id, echoed in the response when it is 1 to 128 characters of `A-Z a-z 0-9 . _ : -`; otherwise the server makes one.")
	pRange = header("Range", "Range",
		"A byte range of the file (RFC 9110), answered 206, or 416 when it cannot be served.")
	pIfRange = header("IfRange", "If-Range",
		"Serve the `Range` only if the file is unchanged (RFC 9110).")
	pIfMatch = header("IfMatch", "If-Match",
		"A precondition (RFC 9110); the file route sends no `ETag`, so only `*` holds.")
	pIfModifiedSince = header("IfModifiedSince", "If-Modified-Since",
		"304 when the file has not changed since (RFC 9110); needs a `Last-Modified`.")
	pIfUnmodifiedSince = header("IfUnmodifiedSince", "If-Unmodified-Since",
		"412 when the file has changed since (RFC 9110); needs a `Last-Modified`.")
	pFileIfNoneMatch = header("FileIfNoneMatch", "If-None-Match",
		"A condition (RFC 9110); the file route sends no `ETag`, so only `*` matches, answered 304.")
	pOrg = &apidoc.Param{Component: "Org", Name: "org", In: "query", Required: true,
		Description: "The organization the link was made for.", Schema: nonEmpty}
	pExpires = &apidoc.Param{Component: "Expires", Name: "expires", In: "query", Required: true,
		Description: "When the link expires, in Unix seconds.", Schema: apidoc.Schema{Type: "integer", Format: "int64"}}
	pSignature = &apidoc.Param{Component: "Signature", Name: "signature", In: "query", Required: true,
		Description: "The link's signature.", Schema: nonEmpty}
	pDueBefore = &apidoc.Param{Component: "DueBefore", Name: paramDueBefore, In: "query",
		Description: "Only items whose `dueAt` is before this time (exclusive), in the contract's format (`2026-03-01T09:00:00Z`); an item whose `dueAt` is `null` never matches. `status=open&dueBefore=<now>` lists the overdue invoices. It combines with the other filters, `updatedSince` and `after` included.",
		Schema:      timestampSchema}
	pUpdatedSince = &apidoc.Param{Component: "UpdatedSince", Name: paramUpdatedSince, In: "query",
		Description: "Only items whose `updatedAt` is at or after this time (inclusive), in the contract's format (`2026-03-01T09:00:00Z`); the list is then ordered by `updatedAt` ascending, then `id`, and `meta.total` counts those items, and `meta.syncedThrough` says from when to ask next (see `Meta`). It combines with the other filters.",
		Schema:      timestampSchema}
	pCursor = &apidoc.Param{Component: "Cursor", Name: paramAfter, In: "query",
		Description: "The `meta.next` of the page before, to walk a list of changes by cursor: the items that follow it, in the same order, with `meta.page` 1 and `meta.total` counting them. A list takes it with `updatedSince` only, never with `page`; a cursor is valid only for the route, filters and key that gave it. Anything else is 400 `INVALID_PARAMETER` naming `after`. A walk by `after` never skips an item that matched throughout, however others moved, arrived or left.",
		Schema:      nonEmpty}
	pSince = &apidoc.Param{Component: "Since", Name: paramSince, In: "query", Required: true,
		Description: "Required: list what disappeared at or after this time (inclusive), in the contract's format. Use the largest `deletedAt` (or `updatedAt`) you have seen. A time older than the records kept (at least 30 days; for an in-memory store, before it started) answers 400 `INVALID_PARAMETER` naming `since`: resync in full.",
		Schema:      timestampSchema}
	pDeletionType = &apidoc.Param{Component: "DeletionType", Name: paramType, In: "query",
		Description: "Only records of this kind. No filter when absent.", Schema: apidoc.Schema{Ref: "DeletionType"}}
	pThreadID = &apidoc.Param{Component: "ThreadId", Name: paramThreadID, In: "query",
		Description: "Only messages of this thread. An unknown id gives 200 with an empty page.", Schema: nonEmpty}
	pAfter = &apidoc.Param{Component: "After", Name: paramAfter, In: "query",
		Description: "The id of the last event you handled: the events after it. Absent: from the oldest event kept (for the stream: only new events). An id that is unknown or older than the events kept (at least 30 days) answers 400 `INVALID_PARAMETER` naming `after`: resync in full, then resume from the newest event.",
		Schema:      nonEmpty}
	pEventTypes = &apidoc.Param{Component: "EventTypes", Name: paramType, In: "query", Form: true,
		Description: "Only events of these types, as a comma-separated list (`invoice.paid,deliverable.in_review`). Each must be a valid type (see `EventTypeName`), else 400 naming `type`. No filter when absent.",
		Schema:      apidoc.Schema{Type: "array", MinItems: 1, Items: "EventTypeName"}}
	pLastEventID = &apidoc.Param{Component: "LastEventId", Name: "Last-Event-ID", In: "header",
		Description: "For the stream (`Accept: text/event-stream`): the id of the last event received, as a reconnecting Server-Sent Events client sends it. It wins over `after`.",
		Schema:      nonEmpty}
	pAcceptEvents = header("AcceptEvents", "Accept",
		"`text/event-stream` for the live stream; anything else (or none) for the JSON feed.")
	pExpand = &apidoc.Param{Component: "Expand", Name: paramExpand, In: "query", Optional: true,
		Description: "`project` embeds each item's project as `project`: `{\"id\", \"name\", \"status\"}`, or `null` for an item of no project or of one the key may not see (a key without `projects:read`, or restricted to other projects, sees none). The projects of a page are read at once. Without it the item has no `project` key. Any other value is 400 `INVALID_PARAMETER`.",
		Schema:      apidoc.Schema{Type: "string", Enum: []string{expandProject}}}
	pRequestLogStatus = &apidoc.Param{Component: "RequestLogStatus", Name: paramStatus, In: "query",
		Description: "Only requests answered with this status (`404`), or with a status of this class (`4xx`, `5xx`). No filter when absent; anything else answers 400 `INVALID_PARAMETER` naming `status`.",
		Schema:      apidoc.Schema{Type: "string", Pattern: "^([1-5][0-9]{2}|4xx|5xx)$"},
		Examples:    []apidoc.Example{{Name: "status", Value: "404"}, {Name: "class", Value: "4xx"}}}
	pWebhookEndpointStatus = &apidoc.Param{Component: "WebhookEndpointStatus", Name: paramStatus, In: "query",
		Description: "Only webhook endpoints in this state (case-sensitive). No filter when absent.",
		Schema:      apidoc.Schema{Ref: "WebhookEndpointStatus"}}
)

// parameters are the parameters above, in the document's order.
var parameters = []*apidoc.Param{pID, pPage, pLimit, pProjectID, pIfNoneMatch, pRequestID,
	pRange, pIfRange, pIfMatch, pIfModifiedSince, pIfUnmodifiedSince, pFileIfNoneMatch,
	pOrg, pExpires, pSignature, pDueBefore, pUpdatedSince, pCursor, pSince, pDeletionType,
	pThreadID, pAfter, pEventTypes, pLastEventID, pAcceptEvents, pExpand, pRequestLogStatus,
	pWebhookEndpointStatus}

// fileParams are the parameters of a signed link to a file.
var fileParams = []*apidoc.Param{pOrg, pExpires, pSignature, pRange, pIfRange, pIfMatch, pFileIfNoneMatch, pIfModifiedSince, pIfUnmodifiedSince}

var (
	nonEmpty        = apidoc.Schema{Type: "string", MinLength: 1}
	timestampSchema = apidoc.Schema{Type: "string", Format: "date-time", Pattern: apidoc.TimePattern}
)

// header is an optional string header.
func header(component, name, description string) *apidoc.Param {
	return &apidoc.Param{Component: component, Name: name, In: "header", Description: description, Schema: apidoc.Schema{Type: "string"}}
}

// statusParam is the status filter of the list of resource (its name, as
// "Milestone"), whose schema of states the document derives.
func statusParam(resource string) *apidoc.Param {
	plural := strings.ToLower(resource[:1]) + resource[1:] + "s"
	return &apidoc.Param{Component: resource + "Status", Name: paramStatus, In: "query",
		Description: "Only " + plural + " in this state (case-sensitive). No filter when absent.",
		Schema:      apidoc.Schema{Ref: resource + "Status"}}
}
