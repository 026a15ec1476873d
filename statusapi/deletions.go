package statusapi

import (
	"errors"
	"net/http"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/envelope"
	"github.com/clientstatus/clientstatus/internal/apidoc"
	"github.com/clientstatus/clientstatus/store"
)

// deletion is a Deletion on the wire.
type deletion struct {
	Type      string `json:"type" oa:"ref=DeletionType"`
	ID        string `json:"id" oa:"minLength=1"`
	DeletedAt string `json:"deletedAt" oa:"time"`
}

var deletionWire = describeWire[deletion](apidoc.Wire{
	Name:        "Deletion",
	Description: "Something that disappeared from the caller's view: deleted, deleted with its project, or (threads and messages) made internal, which looks exactly the same.",
	Examples:    `[{"type": "project", "id": "prj_acme_2", "deletedAt": "2026-03-01T09:12:44Z"}]`,
	Fields: map[string]string{
		"type":      "",
		"id":        "The id the item had.",
		"deletedAt": "When it disappeared.",
	},
})

func deletionOut(d store.Deletion) deletion {
	return deletion{Type: string(d.Kind), ID: d.ID, DeletedAt: timestamp(d.DeletedAt)}
}

// deletionRoutes is the deletion feed (store.Changes).
func (h *handler) deletionRoutes() []route {
	// No scope: each key reads the deletions of the kinds its scopes
	// cover (see deletionKinds).
	return []route{h.keyedRoute("/v1/deletions", "", h.listDeletions, "/v1/deletions?since=2026-03-01T09:00:00Z").answers(listAnswer[deletion]()).describe(operation{
		ID: "listDeletions", Tag: "Sync",
		Summary:     "List deletions",
		Description: "What disappeared from the caller's view at or after `since`, so that a client keeping a copy can remove it: deleted items, items deleted with their project (a project takes its milestones, deliverables and threads with it), and threads or messages made internal. Records are kept at least 30 days, and a record is dropped when an item of the same type and id is put again. A sync client applies deletions, then changes (every list's `updatedSince`), then asks again from the smallest `meta.syncedThrough` of the pages it walked (not from the largest `deletedAt` or `updatedAt` it saw: a transaction that committed late may carry an earlier one); it never misses a write, and an item may come twice (upsert by id). Every page carries `meta.syncedThrough`. A restricted key reads only the records of the types its scopes cover (`project` and `milestone` with `projects:read`, `deliverable` with `deliverables:read`, `invoice` with `invoices:read`, `thread` and `message` with `threads:read`) and of its projects; a `type` it may not read gives an empty list. A key restricted to projects also sees here an item that left its projects while it still exists (an invoice moved to another project or to none, the invoices of a deleted project), dated when it left.",
		Responses:   map[int]string{200: "DeletionListResponse", 304: "NotModified"},
	}, deletionParams...)}
}

// deletionParams are the parameters of the deletion feed, as parsed and
// documented.
var deletionParams = []*param{params.Page, params.Limit, params.Since, params.Cursor, params.DeletionType, params.IfNoneMatch}

// listDeletions serves GET /v1/deletions?since&type&page&limit: what
// disappeared from the caller's view at or after since. A since before
// what the store still knows is 400 naming since: the client must resync
// in full. A restricted key reads only the records of the kinds its
// scopes cover and of its projects; a type it may not read is an empty
// list, as its view holds none.
func (h *handler) listDeletions(r *http.Request, c caller) (response, error) {
	q, err := listParamsOf(r, listSpec{filters: deletionParams, cursor: true})
	if err != nil {
		return response{}, err
	}
	v, ok := q.given[paramSince]
	if !ok {
		return response{}, envelope.InvalidParam(paramSince, "since is required: the time of the last deletion you saw, such as 2026-03-01T09:00:00Z")
	}
	since, err := parseTimestamp(paramSince, v)
	if err != nil {
		return response{}, err
	}
	q.sync = true // every page of deletions carries syncedThrough and next
	if err := q.walk(r, c); err != nil {
		return response{}, err
	}
	kind := store.Kind(q.given[paramType])
	if kind != "" && !kind.Valid() {
		return response{}, envelope.InvalidParam(paramType, "type must be one of "+joinKinds())
	}
	p, err := h.st.ListDeletions(r.Context(), c.Org.ID, store.DeletionQuery{PageRequest: q.PageRequest, Since: since, Kind: kind, After: q.After,
		OnlyKinds: deletionKinds(c.Principal), OnlyProjects: c.ProjectIDs})
	if errors.Is(err, store.ErrSinceTooOld) {
		return response{}, envelope.InvalidParam(paramSince, "since is older than the deletions kept (at least 30 days): resync in full, then ask again from the smallest meta.syncedThrough of its pages")
	}
	if err != nil {
		return response{}, err
	}
	return page(q, p, deletionOut), nil
}

// deletionKinds returns the kinds of deletion records p may read: nil for
// all, when its scopes cover every kind (auth.Restriction.Kinds).
func deletionKinds(p auth.Principal) []store.Kind { return p.Kinds() }

func joinKinds() string {
	out := ""
	for i, k := range store.Kinds {
		if i > 0 {
			out += ", "
		}
		out += string(k)
	}
	return out
}
