package statusapi

import (
	"context"
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

// projects are an organization's projects: a key restricted to projects
// sees its own only.
var projects = declare(resource[store.Project, project]{
	kind:     store.KindProject,
	statuses: strs(store.ProjectStatuses),
	wire:     plain(projectOut),
})

var _ = registerRoutes(projectRoutes)

// projectRoutes are GET /v1/projects?page&limit&status&updatedSince and
// GET /v1/projects/{id}.
func projectRoutes(h *handler) []route {
	return []route{
		projects.listRoute(h, "/v1/projects", "/v1/projects", listSpec{since: true},
			func(r *http.Request, c caller, q listParams) (store.Page[store.Project], error) {
				return h.st.ListProjects(r.Context(), c.Org.ID, store.ProjectQuery{
					PageRequest:  q.PageRequest,
					UpdatedSince: q.UpdatedSince,
					After:        q.After,
					Status:       store.ProjectStatus(q.Status),
					OnlyProjects: c.ProjectIDs,
				})
			}),
		// A project the key may not see is 404 without reading the store.
		projects.itemRoute(h, "/v1/projects/{id}", "/v1/projects/p1", func(ctx context.Context, c caller, id string) (store.Project, error) {
			if err := c.sees(id); err != nil {
				return store.Project{}, err
			}
			return h.st.GetProject(ctx, c.Org.ID, id)
		}),
	}
}
