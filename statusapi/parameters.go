package statusapi

import (
	"slices"
	"strings"
	"time"

	"github.com/clientstatus/clientstatus/envelope"
	"github.com/clientstatus/clientstatus/internal/apidoc"
	"github.com/clientstatus/clientstatus/store"
)

// param is a parameter of the contract. parse, for a list's filter
// (see listSpec), checks its value v and fills q: the store's ListFilter
// that the list's read passes on, or Status; nil for a parameter its
// route reads itself; values are the values of a parameter whose schema
// the document names (a status), none for any.
type param struct {
	apidoc.Param
	parse  func(p *param, q *listParams, v string) error
	values []string
}

// The parameters of the contract, each declared once: the handler
// parses them by these names and the document says them (in this order,
// then each resource's status). Routes name them by these values.
var (
	pID = &param{Param: apidoc.Param{Component: "Id", Name: "id", In: "path", Required: true,
		Description: "Opaque identifier.", Schema: nonEmpty}}
	pPage = &param{Param: apidoc.Param{Component: "Page", Name: paramPage, In: "query",
		Description: "Page number, from 1. A page past the end is 200 with `data: []` and the true total.",
		Schema:      apidoc.Schema{Type: "integer", Minimum: 1, Default: 1}}}
	pLimit = &param{Param: apidoc.Param{Component: "Limit", Name: paramLimit, In: "query",
		Description: "Items per page. Over 100 is rejected (400), not clamped.",
		Schema:      apidoc.Schema{Type: "integer", Minimum: 1, Maximum: store.MaxLimit, Default: store.DefaultLimit}}}
	pProjectID = &param{Param: apidoc.Param{Component: "ProjectId", Name: paramProjectID, In: "query",
		Description: "Only items of this project. An unknown id gives 200 with an empty page.", Schema: nonEmpty},
		parse: func(_ *param, q *listParams, v string) error { q.ProjectID = v; return nil }}
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
	pOrg = &param{Param: apidoc.Param{Component: "Org", Name: "org", In: "query", Required: true,
		Description: "The organization the link was made for.", Schema: nonEmpty}}
	pExpires = &param{Param: apidoc.Param{Component: "Expires", Name: "expires", In: "query", Required: true,
		Description: "When the link expires, in Unix seconds.", Schema: apidoc.Schema{Type: "integer", Format: "int64"}}}
	pSignature = &param{Param: apidoc.Param{Component: "Signature", Name: "signature", In: "query", Required: true,
		Description: "The link's signature.", Schema: nonEmpty}}
	pDueBefore = &param{Param: apidoc.Param{Component: "DueBefore", Name: paramDueBefore, In: "query",
		Description: "Only items whose `dueAt` is before this time (exclusive), in the contract's format (`2026-03-01T09:00:00Z`); an item whose `dueAt` is `null` never matches. `status=open&dueBefore=<now>` lists the overdue invoices. It combines with the other filters, `updatedSince` and `after` included.",
		Schema:      timestampSchema},
		parse: timeFilter(func(q *listParams) *time.Time { return &q.DueBefore })}
	pUpdatedSince = &param{Param: apidoc.Param{Component: "UpdatedSince", Name: paramUpdatedSince, In: "query",
		Description: "Only items whose `updatedAt` is at or after this time (inclusive), in the contract's format (`2026-03-01T09:00:00Z`); the list is then ordered by `updatedAt` ascending, then `id`, and `meta.total` counts those items, and `meta.syncedThrough` says from when to ask next (see `Meta`). It combines with the other filters.",
		Schema:      timestampSchema},
		parse: timeFilter(func(q *listParams) *time.Time { q.sync = true; return &q.UpdatedSince })}
	pCursor = &param{Param: apidoc.Param{Component: "Cursor", Name: paramAfter, In: "query",
		Description: "The `meta.next` of the page before, to walk a list of changes by cursor: the items that follow it, in the same order, with `meta.page` 1 and `meta.total` counting them. A list takes it with `updatedSince` only, never with `page`; a cursor is valid only for the route, filters and key that gave it. Anything else is 400 `INVALID_PARAMETER` naming `after`. A walk by `after` never skips an item that matched throughout, however others moved, arrived or left.",
		Schema:      nonEmpty}}
	pSince = &param{Param: apidoc.Param{Component: "Since", Name: paramSince, In: "query", Required: true,
		Description: "Required: list what disappeared at or after this time (inclusive), in the contract's format. Use the largest `deletedAt` (or `updatedAt`) you have seen. A time older than the records kept (at least 30 days; for an in-memory store, before it started) answers 400 `INVALID_PARAMETER` naming `since`: resync in full.",
		Schema:      timestampSchema}}
	pDeletionType = &param{Param: apidoc.Param{Component: "DeletionType", Name: paramType, In: "query",
		Description: "Only records of this kind. No filter when absent.", Schema: apidoc.Schema{Ref: "DeletionType"}},
		values: strs(store.Kinds)}
	pThreadID = &param{Param: apidoc.Param{Component: "ThreadId", Name: paramThreadID, In: "query",
		Description: "Only messages of this thread. An unknown id gives 200 with an empty page.", Schema: nonEmpty}}
	pAfter = &param{Param: apidoc.Param{Component: "After", Name: paramAfter, In: "query",
		Description: "The id of the last event you handled: the events after it. Absent: from the oldest event kept (for the stream: only new events). An id that is unknown or older than the events kept (at least 30 days) answers 400 `INVALID_PARAMETER` naming `after`: resync in full, then resume from the newest event.",
		Schema:      nonEmpty}}
	pEventTypes = &param{Param: apidoc.Param{Component: "EventTypes", Name: paramType, In: "query", Form: true,
		Description: "Only events of these types, as a comma-separated list (`invoice.paid,deliverable.in_review`). Each must be a valid type (see `EventTypeName`), else 400 naming `type`. No filter when absent.",
		Schema:      apidoc.Schema{Type: "array", MinItems: 1, Items: "EventTypeName"}}}
	pLastEventID = &param{Param: apidoc.Param{Component: "LastEventId", Name: "Last-Event-ID", In: "header",
		Description: "For the stream (`Accept: text/event-stream`): the id of the last event received, as a reconnecting Server-Sent Events client sends it. It wins over `after`.",
		Schema:      nonEmpty}}
	pAcceptEvents = header("AcceptEvents", "Accept",
		"`text/event-stream` for the live stream; anything else (or none) for the JSON feed.")
	pExpand = &param{Param: apidoc.Param{Component: "Expand", Name: paramExpand, In: "query", Optional: true,
		Description: "`project` embeds each item's project as `project`: `{\"id\", \"name\", \"status\"}`, or `null` for an item of no project or of one the key may not see (a key without `projects:read`, or restricted to other projects, sees none). The projects of a page are read at once. Without it the item has no `project` key. Any other value is 400 `INVALID_PARAMETER`.",
		Schema:      apidoc.Schema{Type: "string", Enum: []string{expandProject}}}}
	pRequestLogStatus = &param{Param: apidoc.Param{Component: "RequestLogStatus", Name: paramStatus, In: "query",
		Description: "Only requests answered with this status (`404`), or with a status of this class (`4xx`, `5xx`). No filter when absent; anything else answers 400 `INVALID_PARAMETER` naming `status`.",
		Schema:      apidoc.Schema{Type: "string", Pattern: "^([1-5][0-9]{2}|4xx|5xx)$"},
		Examples:    []apidoc.Example{{Name: "status", Value: "404"}, {Name: "class", Value: "4xx"}}}}
	pWebhookEndpointStatus = &param{Param: apidoc.Param{Component: "WebhookEndpointStatus", Name: paramStatus, In: "query",
		Description: "Only webhook endpoints in this state (case-sensitive). No filter when absent.",
		Schema:      apidoc.Schema{Ref: "WebhookEndpointStatus"}},
		parse: enumFilter, values: strs(store.WebhookEndpointStatuses)}
)

// parameters are the parameters above, in the document's order.
var parameters = []*param{pID, pPage, pLimit, pProjectID, pIfNoneMatch, pRequestID,
	pRange, pIfRange, pIfMatch, pIfModifiedSince, pIfUnmodifiedSince, pFileIfNoneMatch,
	pOrg, pExpires, pSignature, pDueBefore, pUpdatedSince, pCursor, pSince, pDeletionType,
	pThreadID, pAfter, pEventTypes, pLastEventID, pAcceptEvents, pExpand, pRequestLogStatus,
	pWebhookEndpointStatus}

// fileParams are the parameters of a signed link to a file.
var fileParams = []*param{pOrg, pExpires, pSignature, pRange, pIfRange, pIfMatch, pFileIfNoneMatch, pIfModifiedSince, pIfUnmodifiedSince}

var (
	nonEmpty        = apidoc.Schema{Type: "string", MinLength: 1}
	timestampSchema = apidoc.Schema{Type: "string", Format: "date-time", Pattern: apidoc.TimePattern}
)

// header is an optional string header.
func header(component, name, description string) *param {
	return &param{Param: apidoc.Param{Component: component, Name: name, In: "header", Description: description, Schema: apidoc.Schema{Type: "string"}}}
}

// statusParam is the status filter of the list of resource (its name, as
// "Milestone"), one of statuses, whose schema the document derives.
func statusParam(resource string, statuses []string) *param {
	plural := strings.ToLower(resource[:1]) + resource[1:] + "s"
	return &param{Param: apidoc.Param{Component: resource + "Status", Name: paramStatus, In: "query",
		Description: "Only " + plural + " in this state (case-sensitive). No filter when absent.",
		Schema:      apidoc.Schema{Ref: resource + "Status"}},
		parse: enumFilter, values: statuses}
}

// enumFilter parses a status, one of p.values exactly, into q.Status.
func enumFilter(p *param, q *listParams, v string) error {
	if !slices.Contains(p.values, v) {
		return envelope.InvalidParam(p.Name, p.Name+" must be one of "+strings.Join(p.values, ", "))
	}
	q.Status = v
	return nil
}

// timeFilter parses a timestamp into the field of q that field returns.
func timeFilter(field func(q *listParams) *time.Time) func(*param, *listParams, string) error {
	return func(p *param, q *listParams, v string) (err error) {
		*field(q), err = parseTimestamp(p.Name, v)
		return err
	}
}

// byDeclaration sorts ps in the order of parameters, a resource's status
// first.
func byDeclaration(ps []*param) {
	slices.SortStableFunc(ps, func(a, b *param) int {
		return slices.Index(parameters, a) - slices.Index(parameters, b)
	})
}
