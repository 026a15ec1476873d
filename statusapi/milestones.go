package statusapi

import (
	"net/http"

	"github.com/clientstatus/clientstatus/store"
)

// milestone is a Milestone on the wire; completedAt is null until it is
// completed.
type milestone struct {
	ID          string   `json:"id"`
	ProjectID   string   `json:"projectId"`
	Name        string   `json:"name"`
	Status      string   `json:"status"`
	DueAt       string   `json:"dueAt"`
	CompletedAt *string  `json:"completedAt"`
	UpdatedAt   string   `json:"updatedAt"`
	Project     expanded `json:"project,omitzero"` // expand=project only
}

func milestoneOut(m store.Milestone) milestone {
	return milestone{
		ID:          m.ID,
		ProjectID:   m.ProjectID,
		Name:        m.Name,
		Status:      string(m.Status),
		DueAt:       timestamp(m.DueAt),
		CompletedAt: nullTime(m.CompletedAt),
		UpdatedAt:   timestamp(m.UpdatedAt),
	}
}

// milestoneExpanded is milestoneOut with the project of expand=project.
func milestoneExpanded(m store.Milestone, project expanded) milestone {
	out := milestoneOut(m)
	out.Project = project
	return out
}

// milestones are a project's milestones.
var milestones = declare(resource[store.Milestone, milestone]{
	kind:      store.KindMilestone,
	statuses:  strs(store.MilestoneStatuses),
	wire:      milestoneExpanded,
	projectOf: func(v store.Milestone) string { return v.ProjectID },
})

var _ = registerRoutes(milestoneRoutes)

// milestoneRoutes are GET
// /v1/projects/{id}/milestones?page&limit&status&updatedSince&expand,
// where a project the organization does not have, or the key may not
// see, is 404; GET
// /v1/milestones?page&limit&projectId&status&updatedSince&expand, the
// organization's milestones of every project the key may see; and GET
// /v1/milestones/{id}?expand.
func milestoneRoutes(h *handler) []route {
	return []route{
		milestones.listRoute(h, "/v1/projects/{id}/milestones", "/v1/projects/p1/milestones", listSpec{since: true},
			func(r *http.Request, c caller, q listParams) (store.Page[store.Milestone], error) {
				project := r.PathValue("id")
				if err := c.sees(project); err != nil {
					return store.Page[store.Milestone]{}, err
				}
				return h.st.ListMilestones(r.Context(), c.Org.ID, project, store.MilestoneQuery{
					PageRequest:  q.PageRequest,
					UpdatedSince: q.UpdatedSince,
					After:        q.After,
					Status:       store.MilestoneStatus(q.Status),
				})
			}),
		milestones.listRoute(h, "/v1/milestones", "/v1/milestones", listSpec{since: true, project: true},
			func(r *http.Request, c caller, q listParams) (store.Page[store.Milestone], error) {
				return h.st.ListAllMilestones(r.Context(), c.Org.ID, store.AllMilestoneQuery{
					PageRequest:  q.PageRequest,
					ProjectID:    q.ProjectID,
					Status:       store.MilestoneStatus(q.Status),
					UpdatedSince: q.UpdatedSince,
					After:        q.After,
					OnlyProjects: c.ProjectIDs,
				})
			}),
		milestones.itemRoute(h, "/v1/milestones/{id}", "/v1/milestones/m1", inOrg(h.st.GetMilestone)),
	}
}
