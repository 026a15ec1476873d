package statusapi

import (
	"net/http"

	"github.com/clientstatus/clientstatus/store"
)

// project is a Project on the wire. Every key is always present; a
// project not started or open-ended has null startedAt or dueAt.
type project struct {
	ID        string  `json:"id"`
	Name      string  `json:"name"`
	Status    string  `json:"status"`
	StartedAt *string `json:"startedAt"`
	DueAt     *string `json:"dueAt"`
	UpdatedAt string  `json:"updatedAt"`
}

func projectOut(p store.Project) project {
	return project{
		ID:        p.ID,
		Name:      p.Name,
		Status:    string(p.Status),
		StartedAt: nullTime(p.StartedAt),
		DueAt:     nullTime(p.DueAt),
		UpdatedAt: timestamp(p.UpdatedAt),
	}
}

// listProjects serves GET /v1/projects?page&limit&status.
func (h *handler) listProjects(r *http.Request, c caller) (response, error) {
	q, err := listParamsOf(r, listSpec{statuses: strs(store.ProjectStatuses), since: true})
	if err != nil {
		return response{}, err
	}
	p, err := h.st.ListProjects(r.Context(), c.Org.ID, store.ProjectQuery{
		PageRequest:  q.PageRequest,
		UpdatedSince: q.UpdatedSince,
		Status:       store.ProjectStatus(q.Status),
		OnlyProjects: c.ProjectIDs,
	})
	if err != nil {
		return response{}, err
	}
	return page(q, p, projectOut), nil
}

// getProject serves GET /v1/projects/{id}.
func (h *handler) getProject(r *http.Request, c caller) (response, error) {
	if err := noParams(r); err != nil {
		return response{}, err
	}
	id := r.PathValue("id")
	if err := c.sees(id); err != nil {
		return response{}, err
	}
	pr, err := h.st.GetProject(r.Context(), c.Org.ID, id)
	if err != nil {
		return response{}, err
	}
	return item(projectOut(pr)), nil
}
