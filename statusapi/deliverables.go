package statusapi

import (
	"net/http"

	"github.com/clientstatus/clientstatus/store"
)

// deliverable is a Deliverable on the wire. fileName, contentType and
// sizeBytes are null until a file is attached; where the file is stored
// (FileKey) is never sent.
type deliverable struct {
	ID          string   `json:"id"`
	ProjectID   string   `json:"projectId"`
	Name        string   `json:"name"`
	Status      string   `json:"status"`
	FileName    *string  `json:"fileName"`
	ContentType *string  `json:"contentType"`
	SizeBytes   *int64   `json:"sizeBytes"`
	CreatedAt   string   `json:"createdAt"`
	UpdatedAt   string   `json:"updatedAt"`
	Project     expanded `json:"project,omitzero"` // expand=project only
}

func deliverableOut(d store.Deliverable) deliverable {
	return deliverable{
		ID:          d.ID,
		ProjectID:   d.ProjectID,
		Name:        d.Name,
		Status:      string(d.Status),
		FileName:    d.FileName,
		ContentType: d.ContentType,
		SizeBytes:   d.SizeBytes,
		CreatedAt:   timestamp(d.CreatedAt),
		UpdatedAt:   timestamp(d.UpdatedAt),
	}
}

// deliverableExpanded is deliverableOut with the project of
// expand=project.
func deliverableExpanded(d store.Deliverable, project expanded) deliverable {
	out := deliverableOut(d)
	out.Project = project
	return out
}

// listDeliverables serves GET
// /v1/deliverables?page&limit&status&projectId&updatedSince&expand.
func (h *handler) listDeliverables(r *http.Request, c caller) (response, error) {
	q, asked, err := expandableList(r, listSpec{statuses: strs(store.DeliverableStatuses), project: true, since: true})
	if err != nil {
		return response{}, err
	}
	p, err := h.st.ListDeliverables(r.Context(), c.Org.ID, store.DeliverableQuery{
		PageRequest:  q.PageRequest,
		UpdatedSince: q.UpdatedSince,
		Status:       store.DeliverableStatus(q.Status),
		ProjectID:    q.ProjectID,
		OnlyProjects: c.ProjectIDs,
	})
	if err != nil {
		return response{}, err
	}
	return expandedPage(h, r, c, asked, q, p, deliverableProject, deliverableExpanded)
}

// getDeliverable serves GET /v1/deliverables/{id}?expand; one of a
// project the key may not see is 404.
func (h *handler) getDeliverable(r *http.Request, c caller) (response, error) {
	asked, err := itemExpand(r)
	if err != nil {
		return response{}, err
	}
	d, err := h.st.GetDeliverable(r.Context(), c.Org.ID, r.PathValue("id"))
	if err == nil {
		err = c.sees(d.ProjectID)
	}
	if err != nil {
		return response{}, err
	}
	return expandedItem(h, r, c, asked, d, deliverableProject, deliverableExpanded)
}
