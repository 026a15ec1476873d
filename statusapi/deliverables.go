package statusapi

import (
	"net/http"

	"github.com/clientstatus/clientstatus/auth"
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

// deliverables are the deliverables of an organization's projects.
var deliverables = declare(resource[store.Deliverable, deliverable]{
	kind:      store.KindDeliverable,
	statuses:  strs(store.DeliverableStatuses),
	wire:      deliverableExpanded,
	projectOf: func(v store.Deliverable) string { return v.ProjectID },
})

var _ = registerRoutes(deliverableRoutes)

// deliverableRoutes are GET
// /v1/deliverables?page&limit&status&projectId&updatedSince&expand, GET
// /v1/deliverables/{id}?expand, and the file's signed link (download.go).
func deliverableRoutes(h *handler) []route {
	return []route{
		deliverables.listRoute(h, "/v1/deliverables", "/v1/deliverables", listSpec{project: true, since: true},
			func(r *http.Request, c caller, q listParams) (store.Page[store.Deliverable], error) {
				return h.st.ListDeliverables(r.Context(), c.Org.ID, store.DeliverableQuery{
					PageRequest:  q.PageRequest,
					UpdatedSince: q.UpdatedSince,
					After:        q.After,
					Status:       store.DeliverableStatus(q.Status),
					ProjectID:    q.ProjectID,
					OnlyProjects: c.ProjectIDs,
				})
			}),
		deliverables.itemRoute(h, "/v1/deliverables/{id}", "/v1/deliverables/d1", inOrg(h.st.GetDeliverable)),
		h.keyedRoute("/v1/deliverables/{id}/download", auth.ScopeDeliverables, h.downloadLink, "/v1/deliverables/d1/download"),
		// The signed link: no key and no rate limit, the signature is
		// the credential (see download.go).
		publicRoute("/v1/deliverables/{id}/file", h.serveFile, "the signed link: download_test.go"),
	}
}
