package statusapi

import (
	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/internal/apidoc"
	"github.com/clientstatus/clientstatus/store"
)

// deliverable is a Deliverable on the wire. fileName, contentType and
// sizeBytes are null until a file is attached; where the file is stored
// (FileKey) is never sent.
type deliverable struct {
	ID          string   `json:"id" oa:"minLength=1"`
	ProjectID   string   `json:"projectId" oa:"minLength=1"`
	Name        string   `json:"name"`
	Status      string   `json:"status" oa:"ref=DeliverableStatus"`
	FileName    *string  `json:"fileName"`
	ContentType *string  `json:"contentType"`
	SizeBytes   *int64   `json:"sizeBytes" oa:"format=int64,minimum=0"`
	CreatedAt   string   `json:"createdAt" oa:"time"`
	UpdatedAt   string   `json:"updatedAt" oa:"time"`
	Project     expanded `json:"project,omitzero" oa:"null,ref=ExpandedProject"` // expand=project only
}

// deliverableOut is d on the wire, with the project of expand=project.
func deliverableOut(d store.Deliverable, project expanded) deliverable {
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
		Project:     project,
	}
}

// deliverables are the deliverables of an organization's projects.
var deliverables = declare(resource[store.Deliverable, deliverable]{
	schema: apidoc.Wire{
		Description: "Something the agency hands over. Its file, once attached, is downloaded through a signed link. Every key is always present; absent values are `null`.",
		Examples:    `[{"id": "dlv_acme_1_3", "projectId": "prj_acme_1", "name": "Website relaunch: final build", "status": "pending", "fileName": null, "contentType": null, "sizeBytes": null, "createdAt": "2026-02-26T09:00:00Z", "updatedAt": "2026-02-26T09:00:00Z"}, {"id": "dlv_acme_1_2", "projectId": "prj_acme_1", "name": "Website relaunch: prototype", "status": "in_review", "fileName": "prototype-v3.pdf", "contentType": "application/pdf", "sizeBytes": 4718592, "createdAt": "2026-02-24T10:15:00Z", "updatedAt": "2026-02-25T08:30:00Z"}]`,
		Fields: map[string]string{
			"id":          "Opaque deliverable identifier, used as `{id}` in the download path.",
			"projectId":   "The project the deliverable belongs to.",
			"name":        "Deliverable name.",
			"status":      "",
			"fileName":    "The attached file's name; `null` until a file is attached.",
			"contentType": "The attached file's media type; `null` until a file is attached.",
			"sizeBytes":   "The attached file's size in bytes; `null` until a file is attached.",
			"createdAt":   "When the deliverable was created.",
			"updatedAt":   "When the deliverable last changed.",
			"project":     "Only with `expand=project`: the item's project, or `null` for an item of no project or of one the key may not see.",
		},
	},
	kind:      store.KindDeliverable,
	statuses:  strs(store.DeliverableStatuses),
	wire:      deliverableOut,
	projectOf: func(v store.Deliverable) string { return v.ProjectID },
})

// deliverableRoutes are GET
// /v1/deliverables?page&limit&status&projectId&updatedSince&expand, GET
// /v1/deliverables/{id}?expand, and the file's signed link (download.go).
func (h *handler) deliverableRoutes() []route {
	return []route{
		deliverables.listRoute(h, "/v1/deliverables", "/v1/deliverables", listSpec{filters: []*param{params.ProjectID, params.UpdatedSince}},
			orgList(h, store.Store.ListDeliverables)).describe(operation{
			ID: "listDeliverables", Tag: "Deliverables", Tool: "list_deliverables",
			Summary:     "List deliverables",
			Description: "The organization's deliverables, ordered by `createdAt` descending, then `id`. A restricted key needs the scope `deliverables:read`.",
		}),
		deliverables.itemRoute(h, "/v1/deliverables/{id}", "/v1/deliverables/d1", inOrg(h, store.Store.GetDeliverable)).describe(operation{
			ID: "getDeliverable", Tag: "Deliverables",
			Summary:     "Get a deliverable",
			Description: "One deliverable of the organization, exactly as it appears in its list (the same keys). An id of another organization, or outside a restricted key's projects, answers 404 like one that does not exist, and so does a deleted one.",
		}),
		h.keyedRoute("/v1/deliverables/{id}/download", auth.ScopeDeliverables, h.linkTo(deliverableFiles), "/v1/deliverables/d1/download").answers(itemAnswer[downloadLink]()).describe(operation{
			ID: "downloadDeliverable", Tag: "Deliverables", Tool: "get_deliverable_download",
			Summary:     "Get a download link",
			Description: "A signed URL to the deliverable's file, valid for 15 minutes, from any replica. The URL needs no `Authorization` header. A restricted key needs the scope `deliverables:read`.",
			Responses:   map[int]string{200: "DownloadLinkResponse", 409: "FileNotAvailable"},
		}),
		// The signed link: no key and no rate limit, the signature is
		// the credential (see download.go).
		fileRoute("/v1/deliverables/{id}/file", h.serveSigned(deliverableFiles), "the signed link: download_test.go", operation{
			ID: "getDeliverableFile", Tag: "Deliverables",
			Summary:     "Fetch a file through a signed link",
			Description: "Serves the deliverable's file to whoever holds a signed link made by `downloadDeliverable`" + signedLinkRules,
		}),
	}
}
