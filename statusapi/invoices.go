package statusapi

import (
	"net/http"

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
	UpdatedAt string  `json:"updatedAt"`
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
		UpdatedAt: timestamp(i.UpdatedAt),
	}
}

// listInvoices serves GET /v1/invoices?page&limit&status&projectId.
func (h *handler) listInvoices(r *http.Request, c caller) (response, error) {
	q, err := listParamsOf(r, listSpec{statuses: strs(store.InvoiceStatuses), project: true, since: h.changes != nil})
	if err != nil {
		return response{}, err
	}
	p, err := h.st.ListInvoices(r.Context(), c.Org.ID, store.InvoiceQuery{
		PageRequest:  q.PageRequest,
		UpdatedSince: q.UpdatedSince,
		Status:       store.InvoiceStatus(q.Status),
		ProjectID:    q.ProjectID,
		OnlyProjects: c.ProjectIDs,
	})
	if err != nil {
		return response{}, err
	}
	return page(q, p, invoiceOut), nil
}
