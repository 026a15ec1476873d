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

// listMilestones serves GET /v1/projects/{id}/milestones?page&limit&status&expand;
// a project the organization does not have, or the key may not see, is
// 404.
func (h *handler) listMilestones(r *http.Request, c caller) (response, error) {
	q, asked, err := expandableList(r, listSpec{statuses: strs(store.MilestoneStatuses), since: true})
	if err != nil {
		return response{}, err
	}
	project := r.PathValue("id")
	if err := c.sees(project); err != nil {
		return response{}, err
	}
	p, err := h.st.ListMilestones(r.Context(), c.Org.ID, project, store.MilestoneQuery{
		PageRequest:  q.PageRequest,
		UpdatedSince: q.UpdatedSince,
		Status:       store.MilestoneStatus(q.Status),
	})
	if err != nil {
		return response{}, err
	}
	return expandedPage(h, r, c, asked, q, p, milestoneProject, milestoneExpanded)
}

// getMilestone serves GET /v1/milestones/{id}?expand; one of a project
// the key may not see is 404.
func (h *handler) getMilestone(r *http.Request, c caller) (response, error) {
	asked, err := itemExpand(r)
	if err != nil {
		return response{}, err
	}
	m, err := h.st.GetMilestone(r.Context(), c.Org.ID, r.PathValue("id"))
	if err == nil {
		err = c.sees(m.ProjectID)
	}
	if err != nil {
		return response{}, err
	}
	return expandedItem(h, r, c, asked, m, milestoneProject, milestoneExpanded)
}
