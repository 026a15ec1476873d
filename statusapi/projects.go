package statusapi

import (
	"context"

	"github.com/clientstatus/clientstatus/internal/apidoc"
	"github.com/clientstatus/clientstatus/store"
)

// project is a Project on the wire. Every key is always present; a
// project not started or open-ended has null startedAt or dueAt.
type project struct {
	ID        string  `json:"id" oa:"minLength=1"`
	Name      string  `json:"name"`
	Status    string  `json:"status" oa:"ref=ProjectStatus"`
	StartedAt *string `json:"startedAt" oa:"time"`
	DueAt     *string `json:"dueAt" oa:"time"`
	UpdatedAt string  `json:"updatedAt" oa:"time"`
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
	schema: apidoc.Wire{
		Description: "A piece of work the agency does for the organization. Every key is always present; absent values are `null`.",
		Examples:    `[{"id": "prj_acme_1", "name": "Website relaunch", "status": "in_progress", "startedAt": "2026-01-12T09:00:00Z", "dueAt": "2026-04-30T17:00:00Z", "updatedAt": "2026-02-27T15:42:10Z"}, {"id": "prj_acme_2", "name": "Spring catalogue", "status": "planned", "startedAt": null, "dueAt": null, "updatedAt": "2026-02-20T11:05:00Z"}]`,
		Fields: map[string]string{
			"id":        "Opaque project identifier, used as `{id}` in paths.",
			"name":      "Project name.",
			"status":    "",
			"startedAt": "When work started; `null` until started.",
			"dueAt":     "When the project is due; `null` when open-ended.",
			"updatedAt": "When the project last changed.",
		},
	},
	kind:     store.KindProject,
	statuses: strs(store.ProjectStatuses),
	filters:  []*param{params.DueBefore},
	wire:     plain(projectOut),
})

// projectRoutes are GET
// /v1/projects?page&limit&status&dueBefore&updatedSince and
// GET /v1/projects/{id}.
func (h *handler) projectRoutes() []route {
	return []route{
		projects.listRoute(h, "/v1/projects", "/v1/projects", listSpec{filters: []*param{params.UpdatedSince}},
			orgList(h, store.Store.ListProjects)).describe(operation{
			ID: "listProjects", Tag: "Projects", Tool: "list_projects",
			Summary:     "List projects",
			Description: "The organization's projects, ordered by `startedAt` descending (not started last), then `id`. A restricted key needs the scope `projects:read`.",
		}),
		// A project the key may not see is 404 without reading the store.
		projects.itemRoute(h, "/v1/projects/{id}", "/v1/projects/p1", func(ctx context.Context, c caller, id string) (store.Project, error) {
			if err := c.sees(id); err != nil {
				return store.Project{}, err
			}
			return h.st.GetProject(ctx, c.Org.ID, id)
		}).describe(operation{
			ID: "getProject", Tag: "Projects", Tool: "get_project",
			Summary:     "Get a project",
			Description: "One project of the organization. An id of another organization answers 404, as one that does not exist. A restricted key needs the scope `projects:read`.",
		}),
	}
}
