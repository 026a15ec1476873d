package statusapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/envelope"
	"github.com/clientstatus/clientstatus/internal/apidoc"
	"github.com/clientstatus/clientstatus/store"
)

// expand=project: the milestone, deliverable, invoice and thread routes,
// lists and single items, embed each item's project as "project": {"id",
// "name", "status"}, or null for an item of no project or of one the key
// may not see. The projects of a page are read in one store call
// (store.Store.GetProjects), never one per item. Without expand the
// bodies are unchanged: no project key at all.

// paramExpand is the expand query parameter; expandProject its one value.
const (
	paramExpand   = "expand"
	expandProject = "project"
)

// projectRef is a project as expand=project embeds it.
type projectRef struct {
	ID     string `json:"id" oa:"minLength=1"`
	Name   string `json:"name"`
	Status string `json:"status" oa:"ref=ProjectStatus"`
}

var projectRefWire = describeWire[projectRef](apidoc.Wire{
	Name:        "ExpandedProject",
	Description: "An item's project, embedded by `expand=project`.",
	Examples:    `[{"id": "prj_acme_1", "name": "Website relaunch", "status": "in_progress"}]`,
	Fields: map[string]string{
		"id":     "Opaque project identifier.",
		"name":   "Project name.",
		"status": "",
	},
})

// expanded is the project key of an item on the wire: absent unless
// expand=project was asked (omitzero), then the project or null.
type expanded struct {
	asked   bool
	project *projectRef
}

// IsZero reports that expand=project was not asked, so that omitzero
// leaves the key out.
func (e expanded) IsZero() bool { return !e.asked }

// MarshalJSON writes the project, or null.
func (e expanded) MarshalJSON() ([]byte, error) {
	if e.project == nil {
		return []byte("null"), nil
	}
	return json.Marshal(e.project)
}

// expandOf reads the expand parameter of a parsed query: absent, or
// exactly "project"; anything else is 400 INVALID_PARAMETER naming it.
func expandOf(given map[string]string) (bool, error) {
	v, ok := given[paramExpand]
	if !ok {
		return false, nil
	}
	if v != expandProject {
		return false, envelope.InvalidParam(paramExpand,
			fmt.Sprintf("expand must be %q; no other expansion exists", expandProject))
	}
	return true, nil
}

// expandableList is listParamsOf for a list route that also takes expand.
func expandableList(r *http.Request, spec listSpec) (listParams, bool, error) {
	spec.filters = append(slices.Clip(spec.filters), params.Expand)
	q, err := listParamsOf(r, spec)
	if err != nil {
		return listParams{}, false, err
	}
	asked, err := expandOf(q.given)
	return q, asked, err
}

// itemExpand parses the query of a single-item route that takes expand
// and nothing else.
func itemExpand(r *http.Request) (bool, error) {
	q, err := query(r.URL.RawQuery, paramExpand)
	if err != nil {
		return false, err
	}
	return expandOf(q)
}

// expansion gives each project id its expanded value: the zero value
// (no key) when expand was not asked.
type expansion func(projectID string) expanded

// projects reads, when asked, the projects of ids (the items' projects,
// "" for none) that c may see, in one store call, and returns their
// expansion. A key sees a project when it may read projects at all
// (projects:read) and the project is one of its own: a key restricted to
// invoices learns no project's name through expand.
func (h *handler) projects(ctx context.Context, c caller, asked bool, ids []string) (expansion, error) {
	if !asked {
		return func(string) expanded { return expanded{} }, nil
	}
	var want []string
	if c.Allows(auth.ScopeProjects) {
		seen := make(map[string]bool, len(ids))
		for _, id := range ids {
			if id != "" && !seen[id] && c.AllowsProject(id) {
				seen[id] = true
				want = append(want, id)
			}
		}
	}
	byID := make(map[string]*projectRef, len(want))
	if len(want) > 0 {
		ps, err := h.st.GetProjects(ctx, c.Org.ID, want)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			byID[p.ID] = &projectRef{ID: p.ID, Name: p.Name, Status: string(p.Status)}
		}
	}
	return func(id string) expanded { return expanded{asked: true, project: byID[id]} }, nil
}

// projectIDs lists the projects of items, "" for an item of none.
func projectIDs[T any](items []T, of func(T) string) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = of(it)
	}
	return out
}

// expandedPage is page for a list route that takes expand: with asked,
// each item's wire form carries its project, read in one batch for the
// page.
func expandedPage[T, W any](h *handler, r *http.Request, c caller, asked bool, q listParams, p store.Page[T],
	projectOf func(T) string, wire func(T, expanded) W) (response, error) {
	exp, err := h.projects(r.Context(), c, asked, projectIDs(p.Items, projectOf))
	if err != nil {
		return response{}, err
	}
	return page(q, p, func(v T) W { return wire(v, exp(projectOf(v))) }), nil
}

// expandedItem is item for a single-item route that takes expand.
func expandedItem[T, W any](h *handler, r *http.Request, c caller, asked bool, v T,
	projectOf func(T) string, wire func(T, expanded) W) (response, error) {
	exp, err := h.projects(r.Context(), c, asked, []string{projectOf(v)})
	if err != nil {
		return response{}, err
	}
	return item(wire(v, exp(projectOf(v)))), nil
}
