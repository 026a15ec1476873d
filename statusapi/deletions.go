package statusapi

import (
	"errors"
	"net/http"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/envelope"
	"github.com/clientstatus/clientstatus/store"
)

// deletion is a Deletion on the wire.
type deletion struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	DeletedAt string `json:"deletedAt"`
}

func deletionOut(d store.Deletion) deletion {
	return deletion{Type: string(d.Kind), ID: d.ID, DeletedAt: timestamp(d.DeletedAt)}
}

var _ = registerRoutes(deletionRoutes)

// deletionRoutes is the deletion feed (store.Changes).
func deletionRoutes(h *handler) []route {
	// No scope: each key reads the deletions of the kinds its scopes
	// cover (see deletionKinds).
	return []route{h.keyedRoute("/v1/deletions", "", h.listDeletions, "/v1/deletions?since=2026-03-01T09:00:00Z")}
}

// listDeletions serves GET /v1/deletions?since&type&page&limit: what
// disappeared from the caller's view at or after since. A since before
// what the store still knows is 400 naming since: the client must resync
// in full. A restricted key reads only the records of the kinds its
// scopes cover and of its projects; a type it may not read is an empty
// list, as its view holds none.
func (h *handler) listDeletions(r *http.Request, c caller) (response, error) {
	q, err := listParamsOf(r, listSpec{extra: []string{paramSince, paramType}, cursor: true})
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
