package statusapi

import (
	"reflect"
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

// params are the parameters of the contract, each declared once: the
// handler parses them by these names and the document says them (in this
// order, then each resource's status). Routes name them by these fields;
// a field's name is the parameter's component in the document, "ID"
// written "Id" (ProjectID: ProjectId), and a parameter of values (an
// enum) refers to the schema of that name. parameters are them in order.
var params, parameters = declareParams(struct {
	ID, Page, Limit, ProjectID, IfNoneMatch, RequestID, Range, IfRange, IfMatch,
	IfModifiedSince, IfUnmodifiedSince, FileIfNoneMatch, Org, Expires, Signature,
	DueBefore, UpdatedSince, Cursor, Since, DeletionType, ThreadID, After,
	EventTypes, LastEventID, AcceptEvents, Expand, RequestLogStatus,
	WebhookEndpointStatus *param
}{
	ID: &param{Param: apidoc.Param{Name: "id", In: "path", Required: true,
		Description: "Opaque identifier.", Schema: nonEmpty}},
	Page: &param{Param: apidoc.Param{Name: paramPage, In: "query",
		Description: "Page number, from 1. A page past the end is 200 with `data: []` and the true total.",
		Schema:      apidoc.Schema{Type: "integer", Minimum: 1, Default: 1}}},
	Limit: &param{Param: apidoc.Param{Name: paramLimit, In: "query",
		Description: "Items per page. Over 100 is rejected (400), not clamped.",
		Schema:      apidoc.Schema{Type: "integer", Minimum: 1, Maximum: store.MaxLimit, Default: store.DefaultLimit}}},
	ProjectID: &param{Param: apidoc.Param{Name: paramProjectID, In: "query",
		Description: "Only items of this project. An unknown id gives 200 with an empty page.", Schema: nonEmpty},
		parse: func(_ *param, q *listParams, v string) error { q.ProjectID = v; return nil }},
	IfNoneMatch: header("If-None-Match",
		"An `ETag` from an earlier response: 304 with no body when the representation has not changed."),
	RequestID: header("X-Request-Id",
		"The client's own request id, echoed in the response when it is 1 to 128 characters of `A-Z a-z 0-9 . _ : -`; otherwise the server makes one."),
	Range: header("Range",
		"A byte range of the file (RFC 9110), answered 206, or 416 when it cannot be served."),
	IfRange: header("If-Range",
		"Serve the `Range` only if the file is unchanged (RFC 9110)."),
	IfMatch: header("If-Match",
		"A precondition (RFC 9110); the file route sends no `ETag`, so only `*` holds."),
	IfModifiedSince: header("If-Modified-Since",
		"304 when the file has not changed since (RFC 9110); needs a `Last-Modified`."),
	IfUnmodifiedSince: header("If-Unmodified-Since",
		"412 when the file has changed since (RFC 9110); needs a `Last-Modified`."),
	FileIfNoneMatch: header("If-None-Match",
		"A condition (RFC 9110); the file route sends no `ETag`, so only `*` matches, answered 304."),
	Org: &param{Param: apidoc.Param{Name: "org", In: "query", Required: true,
		Description: "The organization the link was made for.", Schema: nonEmpty}},
	Expires: &param{Param: apidoc.Param{Name: "expires", In: "query", Required: true,
		Description: "When the link expires, in Unix seconds.", Schema: apidoc.Schema{Type: "integer", Format: "int64"}}},
	Signature: &param{Param: apidoc.Param{Name: "signature", In: "query", Required: true,
		Description: "The link's signature.", Schema: nonEmpty}},
	DueBefore: &param{Param: apidoc.Param{Name: paramDueBefore, In: "query",
		Description: "Only items whose `dueAt` is before this time (exclusive), in the contract's format (`2026-03-01T09:00:00Z`); an item whose `dueAt` is `null` never matches. `status=open&dueBefore=<now>` lists the overdue invoices. It combines with the other filters, `updatedSince` and `after` included.",
		Schema:      timestampSchema},
		parse: timeFilter(func(q *listParams) *time.Time { return &q.DueBefore })},
	UpdatedSince: &param{Param: apidoc.Param{Name: paramUpdatedSince, In: "query",
		Description: "Only items whose `updatedAt` is at or after this time (inclusive), in the contract's format (`2026-03-01T09:00:00Z`); the list is then ordered by `updatedAt` ascending, then `id`, and `meta.total` counts those items, and `meta.syncedThrough` says from when to ask next (see `Meta`). It combines with the other filters.",
		Schema:      timestampSchema},
		parse: timeFilter(func(q *listParams) *time.Time { q.sync = true; return &q.UpdatedSince })},
	Cursor: &param{Param: apidoc.Param{Name: paramAfter, In: "query",
		Description: "The `meta.next` of the page before, to walk a list of changes by cursor: the items that follow it, in the same order, with `meta.page` 1 and `meta.total` counting them. A list takes it with `updatedSince` only, never with `page`; a cursor is valid only for the route, filters and key that gave it. Anything else is 400 `INVALID_PARAMETER` naming `after`. A walk by `after` never skips an item that matched throughout, however others moved, arrived or left.",
		Schema:      nonEmpty}},
	Since: &param{Param: apidoc.Param{Name: paramSince, In: "query", Required: true,
		Description: "Required: list what disappeared at or after this time (inclusive), in the contract's format. Use the largest `deletedAt` (or `updatedAt`) you have seen. A time older than the records kept (at least 30 days; for an in-memory store, before it started) answers 400 `INVALID_PARAMETER` naming `since`: resync in full.",
		Schema:      timestampSchema}},
	DeletionType: &param{Param: apidoc.Param{Name: paramType, In: "query",
		Description: "Only records of this kind. No filter when absent."},
		values: strs(store.Kinds)},
	ThreadID: &param{Param: apidoc.Param{Name: paramThreadID, In: "query",
		Description: "Only messages of this thread. An unknown id gives 200 with an empty page.", Schema: nonEmpty}},
	After: &param{Param: apidoc.Param{Name: paramAfter, In: "query",
		Description: "The id of the last event you handled: the events after it. Absent: from the oldest event kept (for the stream: only new events). An id that is unknown or older than the events kept (at least 30 days) answers 400 `INVALID_PARAMETER` naming `after`: resync in full, then resume from the newest event.",
		Schema:      nonEmpty}},
	EventTypes: &param{Param: apidoc.Param{Name: paramType, In: "query", Form: true,
		Description: "Only events of these types, as a comma-separated list (`invoice.paid,deliverable.in_review`). Each must be a valid type (see `EventTypeName`), else 400 naming `type`. No filter when absent.",
		Schema:      apidoc.Schema{Type: "array", MinItems: 1, Items: "EventTypeName"}}},
	LastEventID: &param{Param: apidoc.Param{Name: "Last-Event-ID", In: "header",
		Description: "For the stream (`Accept: text/event-stream`): the id of the last event received, as a reconnecting Server-Sent Events client sends it. It wins over `after`.",
		Schema:      nonEmpty}},
	AcceptEvents: header("Accept",
		"`text/event-stream` for the live stream; anything else (or none) for the JSON feed."),
	Expand: &param{Param: apidoc.Param{Name: paramExpand, In: "query", Optional: true,
		Description: "`project` embeds each item's project as `project`: `{\"id\", \"name\", \"status\"}`, or `null` for an item of no project or of one the key may not see (a key without `projects:read`, or restricted to other projects, sees none). The projects of a page are read at once. Without it the item has no `project` key. Any other value is 400 `INVALID_PARAMETER`.",
		Schema:      apidoc.Schema{Type: "string", Enum: []string{expandProject}}}},
	RequestLogStatus: &param{Param: apidoc.Param{Name: paramStatus, In: "query",
		Description: "Only requests answered with this status (`404`), or with a status of this class (`4xx`, `5xx`). No filter when absent; anything else answers 400 `INVALID_PARAMETER` naming `status`.",
		Schema:      apidoc.Schema{Type: "string", Pattern: "^([1-5][0-9]{2}|4xx|5xx)$"},
		Examples:    []apidoc.Example{{Name: "status", Value: "404"}, {Name: "class", Value: "4xx"}}}},
	WebhookEndpointStatus: &param{Param: apidoc.Param{Name: paramStatus, In: "query",
		Description: "Only webhook endpoints in this state (case-sensitive). No filter when absent."},
		parse: enumFilter, values: strs(store.WebhookEndpointStatuses)},
})

var (
	nonEmpty        = apidoc.Schema{Type: "string", MinLength: 1}
	timestampSchema = apidoc.Schema{Type: "string", Format: "date-time", Pattern: apidoc.TimePattern}
)

// header is an optional string header.
func header(name, description string) *param {
	return &param{Param: apidoc.Param{Name: name, In: "header", Description: description, Schema: apidoc.Schema{Type: "string"}}}
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

// declareParams names the parameters that are the fields of ps (see params)
// and returns them, also in order.
func declareParams[T any](ps T) (T, []*param) {
	v := reflect.ValueOf(ps)
	var all []*param
	for i := range v.NumField() {
		p := v.Field(i).Interface().(*param)
		p.Component = strings.ReplaceAll(v.Type().Field(i).Name, "ID", "Id")
		if p.values != nil {
			p.Schema = apidoc.Schema{Ref: p.Component}
		}
		all = append(all, p)
	}
	return ps, all
}
