package statusapi

import (
	"context"
	"net/http"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/envelope"
	"github.com/clientstatus/clientstatus/store"
)

// invoice is an Invoice on the wire. Amounts are integer minor units of
// currency (ISO 4217); projectId is null for a retainer invoice and paidAt
// until it is paid.
type invoice struct {
	ID        string  `json:"id"`
	Number    string  `json:"number"`
	ProjectID *string `json:"projectId"`
	Status    string  `json:"status"`
	Currency  string  `json:"currency"`
	Total     int64   `json:"total"`
	AmountDue int64   `json:"amountDue"`
	IssuedAt  string  `json:"issuedAt"`
	DueAt     string  `json:"dueAt"`
	PaidAt    *string `json:"paidAt"`
	// DocumentAvailable says whether GET /v1/invoices/{id}/document has
	// a document to link to.
	DocumentAvailable bool     `json:"documentAvailable"`
	UpdatedAt         string   `json:"updatedAt"`
	Project           expanded `json:"project,omitzero"` // expand=project only
}

func invoiceOut(i store.Invoice) invoice {
	return invoice{
		ID:        i.ID,
		Number:    i.Number,
		ProjectID: i.ProjectID,
		Status:    string(i.Status),
		Currency:  i.Currency,
		Total:     i.Total,
		AmountDue: i.AmountDue,
		IssuedAt:  timestamp(i.IssuedAt),
		DueAt:     timestamp(i.DueAt),
		PaidAt:    nullTime(i.PaidAt),

		DocumentAvailable: i.HasDocument(),
		UpdatedAt:         timestamp(i.UpdatedAt),
	}
}

// invoiceExpanded is invoiceOut with the project of expand=project.
func invoiceExpanded(i store.Invoice, project expanded) invoice {
	out := invoiceOut(i)
	out.Project = project
	return out
}

// invoices are an organization's invoices: of its projects, or
// retainer invoices of none, which a key restricted to projects never
// sees.
var invoices = declare(resource[store.Invoice, invoice]{
	kind:      store.KindInvoice,
	statuses:  strs(store.InvoiceStatuses),
	wire:      invoiceExpanded,
	projectOf: func(v store.Invoice) string { return deref(v.ProjectID) },
})

var _ = registerRoutes(invoiceRoutes)

// invoiceRoutes are GET
// /v1/invoices?page&limit&status&projectId&updatedSince&expand, GET
// /v1/invoices/{id}?expand, and the document's signed link.
func invoiceRoutes(h *handler) []route {
	return []route{
		invoices.listRoute(h, "/v1/invoices", "/v1/invoices", listSpec{project: true, since: true},
			func(r *http.Request, c caller, q listParams) (store.Page[store.Invoice], error) {
				return h.st.ListInvoices(r.Context(), c.Org.ID, store.InvoiceQuery{
					PageRequest:  q.PageRequest,
					UpdatedSince: q.UpdatedSince,
					After:        q.After,
					Status:       store.InvoiceStatus(q.Status),
					ProjectID:    q.ProjectID,
					OnlyProjects: c.ProjectIDs,
				})
			}),
		invoices.itemRoute(h, "/v1/invoices/{id}", "/v1/invoices/i24", inOrg(h.st.GetInvoice)),
		h.keyedRoute("/v1/invoices/{id}/document", auth.ScopeInvoices, h.invoiceDocumentLink, "/v1/invoices/i24/document"),
		publicRoute("/v1/invoices/{id}/file", h.serveInvoiceDocument, "the signed link, as a deliverable's: items_test.go"),
	}
}

// visibleInvoice reads the invoice of the path that the caller may see.
func (h *handler) visibleInvoice(r *http.Request, c caller) (store.Invoice, error) {
	i, err := h.st.GetInvoice(r.Context(), c.Org.ID, r.PathValue("id"))
	if err == nil {
		err = c.seesOptional(i.ProjectID)
	}
	return i, err
}

// errNoDocument answers an invoice without a document, as errNoFile a
// deliverable without a file.
var errNoDocument = envelope.New(envelope.FileNotAvailable, "this invoice has no document")

// invoiceDocumentLink serves GET /v1/invoices/{id}/document: a signed
// link to the invoice's document, exactly as a deliverable's download
// (download.go).
func (h *handler) invoiceDocumentLink(r *http.Request, c caller) (response, error) {
	if err := noParams(r); err != nil {
		return response{}, err
	}
	i, err := h.visibleInvoice(r, c)
	if err != nil {
		return response{}, err
	}
	if !i.HasDocument() {
		return response{}, errNoDocument
	}
	return h.link(r, invoiceDocuments, c.Org.ID, i.ID), nil
}

// serveInvoiceDocument serves GET /v1/invoices/{id}/file, the signed
// link: the document as a PDF named after the invoice's number. An
// invoice deleted since the link was made is 404, one whose document was
// taken away 409.
func (h *handler) serveInvoiceDocument(w http.ResponseWriter, r *http.Request) {
	h.serveSigned(w, r, invoiceDocuments, func(ctx context.Context, org, id string) (servedFile, error) {
		i, err := h.st.GetInvoice(ctx, org, id)
		if err != nil {
			return servedFile{}, err
		}
		if !i.HasDocument() {
			return servedFile{}, errNoDocument
		}
		return servedFile{key: i.DocumentKey, name: "invoice-" + i.Number + ".pdf", contentType: "application/pdf"}, nil
	})
}
