package statusapi

import (
	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/envelope"
	"github.com/clientstatus/clientstatus/internal/apidoc"
	"github.com/clientstatus/clientstatus/store"
)

// invoice is an Invoice on the wire. Amounts are integer minor units of
// currency (ISO 4217); projectId is null for a retainer invoice and paidAt
// until it is paid.
type invoice struct {
	ID        string  `json:"id" oa:"minLength=1"`
	Number    string  `json:"number"`
	ProjectID *string `json:"projectId" oa:"minLength=1"`
	Status    string  `json:"status" oa:"ref=InvoiceStatus"`
	Currency  string  `json:"currency" oa:"pattern=^[A-Z]{3}$"`
	Total     int64   `json:"total" oa:"format=int64"`
	AmountDue int64   `json:"amountDue" oa:"format=int64"`
	IssuedAt  string  `json:"issuedAt" oa:"time"`
	DueAt     string  `json:"dueAt" oa:"time"`
	PaidAt    *string `json:"paidAt" oa:"time"`
	// DocumentAvailable says whether GET /v1/invoices/{id}/document has
	// a document to link to.
	DocumentAvailable bool     `json:"documentAvailable"`
	UpdatedAt         string   `json:"updatedAt" oa:"time"`
	Project           expanded `json:"project,omitzero" oa:"null,ref=ExpandedProject"` // expand=project only
}

// invoiceOut is i on the wire, with the project of expand=project.
func invoiceOut(i store.Invoice, project expanded) invoice {
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
		Project:           project,
	}
}

// invoices are an organization's invoices: of its projects, or
// retainer invoices of none, which a key restricted to projects never
// sees.
var invoices = declare(resource[store.Invoice, invoice]{
	schema: apidoc.Wire{
		Description: "A bill to the organization. Amounts are integers in minor units (cents) of `currency`. Every key is always present; absent values are `null`.",
		Examples:    `[{"id": "inv_acme_007", "number": "INV-2026-007", "projectId": "prj_acme_1", "status": "open", "currency": "EUR", "total": 480000, "amountDue": 240000, "issuedAt": "2026-02-28T00:00:00Z", "dueAt": "2026-03-30T00:00:00Z", "paidAt": null, "documentAvailable": true, "updatedAt": "2026-02-28T00:00:00Z"}, {"id": "inv_acme_006", "number": "INV-2026-006", "projectId": null, "status": "paid", "currency": "EUR", "total": 150000, "amountDue": 0, "issuedAt": "2026-02-01T00:00:00Z", "dueAt": "2026-03-03T00:00:00Z", "paidAt": "2026-02-10T14:03:22Z", "documentAvailable": true, "updatedAt": "2026-02-10T14:03:22Z"}]`,
		Fields: map[string]string{
			"id":                "Opaque invoice identifier.",
			"number":            "The invoice number as printed on it.",
			"projectId":         "The project billed; `null` for retainer invoices, which belong to no project.",
			"status":            "",
			"currency":          "ISO 4217 currency code, such as `EUR`.",
			"total":             "Invoice total, in minor units of `currency`.",
			"amountDue":         "Amount still due, in minor units of `currency`.",
			"issuedAt":          "When the invoice was issued.",
			"dueAt":             "When payment is due.",
			"paidAt":            "When the invoice was paid; `null` until paid.",
			"documentAvailable": "Whether the invoice has a document (its PDF), served through `getInvoiceDocument`.",
			"updatedAt":         "When the invoice last changed, set by the store whenever a change is visible to clients (a project deleted from under it included).",
			"project":           "Only with `expand=project`: the item's project, or `null` for an item of no project or of one the key may not see.",
		},
	},
	kind:      store.KindInvoice,
	statuses:  strs(store.InvoiceStatuses),
	filters:   []*param{params.DueBefore},
	wire:      invoiceOut,
	projectOf: func(v store.Invoice) string { return deref(v.ProjectID) },
})

// invoiceRoutes are GET
// /v1/invoices?page&limit&status&projectId&dueBefore&updatedSince&expand, GET
// /v1/invoices/{id}?expand, and the document's signed link.
func (h *handler) invoiceRoutes() []route {
	return []route{
		invoices.listRoute(h, "/v1/invoices", "/v1/invoices", listSpec{filters: []*param{params.ProjectID, params.UpdatedSince}},
			orgList(h, store.Store.ListInvoices)).describe(operation{
			ID: "listInvoices", Tag: "Invoices", Tool: "list_invoices",
			Summary:     "List invoices",
			Description: "The organization's invoices, ordered by `issuedAt` descending, then `id`. A restricted key needs the scope `invoices:read`.",
		}),
		invoices.itemRoute(h, "/v1/invoices/{id}", "/v1/invoices/i24", inOrg(h, store.Store.GetInvoice)).describe(operation{
			ID: "getInvoice", Tag: "Invoices", Tool: "get_invoice",
			Summary:     "Get an invoice",
			Description: "One invoice of the organization, exactly as it appears in its list (the same keys). An id of another organization, or outside a restricted key's projects, answers 404 like one that does not exist, and so does a deleted one. A key restricted to projects never sees a retainer invoice.",
		}),
		h.keyedRoute("/v1/invoices/{id}/document", auth.ScopeInvoices, h.linkTo(invoiceDocuments), "/v1/invoices/i24/document").answers(itemAnswer[downloadLink]()).describe(operation{
			ID: "getInvoiceDocument", Tag: "Invoices", Tool: "get_invoice_document",
			Summary:     "Get a link to an invoice document",
			Description: "A signed URL to the invoice's document (its PDF), valid for 15 minutes, from any replica, exactly as a deliverable's download. The URL needs no `Authorization` header. An invoice without a document (`documentAvailable` false) is 409 `FILE_NOT_AVAILABLE`. A restricted key needs the scope `invoices:read`.",
			Responses:   map[int]string{200: "DownloadLinkResponse", 409: "FileNotAvailable"},
		}),
		fileRoute("/v1/invoices/{id}/file", h.serveSigned(invoiceDocuments), "the signed link, as a deliverable's: items_test.go", operation{
			ID: "getInvoiceDocumentFile", Tag: "Invoices",
			Summary:     "Fetch an invoice document through a signed link",
			Description: "Serves the invoice's document, as `application/pdf`, to whoever holds a signed link made by `getInvoiceDocument`" + signedLinkRules,
		}),
	}
}

// errNoDocument answers an invoice without a document, as errNoFile a
// deliverable without a file.
var errNoDocument = envelope.New(envelope.FileNotAvailable, "this invoice has no document")
