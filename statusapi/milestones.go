package statusapi

import (
	"net/http"

	"github.com/clientstatus/clientstatus/internal/apidoc"
	"github.com/clientstatus/clientstatus/store"
)

// milestone is a Milestone on the wire; completedAt is null until it is
// completed.
type milestone struct {
	ID          string   `json:"id" oa:"minLength=1"`
	ProjectID   string   `json:"projectId" oa:"minLength=1"`
	Name        string   `json:"name"`
	Status      string   `json:"status" oa:"ref=MilestoneStatus"`
	DueAt       string   `json:"dueAt" oa:"time"`
	CompletedAt *string  `json:"completedAt" oa:"time"`
	UpdatedAt   string   `json:"updatedAt" oa:"time"`
	Project     expanded `json:"project,omitzero" oa:"null,ref=ExpandedProject"` // expand=project only
}

// milestoneOut is m on the wire, with the project of expand=project.
func milestoneOut(m store.Milestone, project expanded) milestone {
	return milestone{
		ID:          m.ID,
		ProjectID:   m.ProjectID,
		Name:        m.Name,
		Status:      string(m.Status),
		DueAt:       timestamp(m.DueAt),
		CompletedAt: nullTime(m.CompletedAt),
		UpdatedAt:   timestamp(m.UpdatedAt),
		Project:     project,
	}
}

// milestones are a project's milestones.
var milestones = declare(resource[store.Milestone, milestone]{
	schema: apidoc.Wire{
		Description: "A dated step of a project. Every key is always present; absent values are `null`.",
		Examples:    `[{"id": "ms_acme_1_2", "projectId": "prj_acme_1", "name": "Design sign-off", "status": "completed", "dueAt": "2026-02-13T17:00:00Z", "completedAt": "2026-02-12T16:20:00Z", "updatedAt": "2026-02-12T16:20:00Z"}, {"id": "ms_acme_1_3", "projectId": "prj_acme_1", "name": "Content migration", "status": "in_progress", "dueAt": "2026-03-20T17:00:00Z", "completedAt": null, "updatedAt": "2026-02-20T10:00:00Z"}]`,
		Fields: map[string]string{
			"id":          "Opaque milestone identifier.",
			"projectId":   "The project the milestone belongs to.",
			"name":        "Milestone name.",
			"status":      "",
			"dueAt":       "When the milestone is due.",
			"completedAt": "When the milestone was completed; `null` until then.",
			"updatedAt":   "When the milestone last changed, set by the store whenever a change is visible to clients.",
			"project":     "Only with `expand=project`: the item's project, or `null` for an item of no project or of one the key may not see.",
		},
	},
	kind:      store.KindMilestone,
	statuses:  strs(store.MilestoneStatuses),
	filters:   []*param{params.DueBefore},
	wire:      milestoneOut,
	projectOf: func(v store.Milestone) string { return v.ProjectID },
})

// milestoneRoutes are GET
// /v1/projects/{id}/milestones?page&limit&status&dueBefore&updatedSince&expand,
// where a project the organization does not have, or the key may not
// see, is 404; GET
// /v1/milestones?page&limit&projectId&status&dueBefore&updatedSince&expand, the
// organization's milestones of every project the key may see; and GET
// /v1/milestones/{id}?expand.
func (h *handler) milestoneRoutes() []route {
	return []route{
		milestones.listRoute(h, "/v1/projects/{id}/milestones", "/v1/projects/p1/milestones", listSpec{filters: []*param{params.UpdatedSince}},
			func(r *http.Request, c caller, q listParams) (store.Page[store.Milestone], error) {
				project := r.PathValue("id")
				if err := c.sees(project); err != nil {
					return store.Page[store.Milestone]{}, err
				}
				return h.st.ListMilestones(r.Context(), c.Org.ID, project, store.MilestoneQuery{
					PageRequest: q.PageRequest,
					Status:      store.MilestoneStatus(q.Status),
					ListFilter:  q.ListFilter,
				})
			}).describe(operation{
			ID: "listMilestones", Tag: "Projects",
			Summary:     "List a project's milestones",
			Description: "The project's milestones, ordered by `dueAt` ascending, then `id`. An unknown project answers 404. A restricted key needs the scope `projects:read`.",
		}),
		milestones.listRoute(h, "/v1/milestones", "/v1/milestones", listSpec{filters: []*param{params.ProjectID, params.UpdatedSince}},
			orgList(h, store.Store.ListAllMilestones)).describe(operation{
			ID: "listAllMilestones", Tag: "Projects", Tool: "list_milestones",
			Summary:     "List the organization's milestones",
			Description: "The organization's milestones of every project, ordered by `dueAt` ascending, then `projectId`, then `id`, so that a client syncs them in pages rather than one request per project. A restricted key needs the scope `projects:read`, and sees the milestones of its projects only.",
		}),
		milestones.itemRoute(h, "/v1/milestones/{id}", "/v1/milestones/m1", inOrg(h, store.Store.GetMilestone)).describe(operation{
			ID: "getMilestone", Tag: "Projects",
			Summary:     "Get a milestone",
			Description: "One milestone of the organization, exactly as it appears in its list (the same keys). An id of another organization, or outside a restricted key's projects, answers 404 like one that does not exist, and so does a deleted one.",
		}),
	}
}
