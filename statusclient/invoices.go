package statusclient

import (
	"context"
	"iter"
	"time"
)

// InvoiceStatus is the state of an invoice.
type InvoiceStatus string

// The states of an invoice.
const (
	InvoiceDraft InvoiceStatus = "draft"
	InvoiceOpen  InvoiceStatus = "open"
	InvoicePaid  InvoiceStatus = "paid"
	InvoiceVoid  InvoiceStatus = "void"
)

// Invoice is a bill to the organization. Total and AmountDue are integer
// minor units (cents) of Currency, an ISO 4217 code: 123456 "EUR" is
// EUR 1,234.56.
type Invoice struct {
	ID        string        `json:"id"`
	Number    string        `json:"number"`
	ProjectID *string       `json:"projectId"` // nil for retainer invoices, which belong to no project
	Status    InvoiceStatus `json:"status"`
	Currency  string        `json:"currency"`
	Total     int64         `json:"total"`
	AmountDue int64         `json:"amountDue"`
	IssuedAt  time.Time     `json:"issuedAt"`
	DueAt     time.Time     `json:"dueAt"`
	PaidAt    *time.Time    `json:"paidAt"` // nil until paid
	// DocumentAvailable says whether InvoiceDocument has a document (the
	// invoice's PDF) to link to.
	DocumentAvailable bool      `json:"documentAvailable"`
	UpdatedAt         time.Time `json:"updatedAt"`
	// Project is the invoice's project, asked with ExpandProject; nil
	// otherwise, for a retainer invoice, or for a project the key may
	// not see.
	Project *ProjectRef `json:"project,omitempty"`
}

// InvoiceListOptions selects invoices. Zero values leave the server's
// defaults: page 1, 20 a page, any status, any project. An unknown ProjectID
// gives an empty list, not an error.
type InvoiceListOptions struct {
	ListOptions
	Status    InvoiceStatus `url:"status"`
	ProjectID string        `url:"projectId"`
	// DueBefore, when not zero, keeps only the invoices due before it
	// (exclusive), sent in UTC whole seconds: with Status InvoiceOpen
	// and the time now, the overdue ones.
	DueBefore time.Time `url:"dueBefore"`
	// UpdatedSince keeps those updated at or after it (see ListOptions).
	UpdatedSince time.Time `url:"updatedSince"`
	// IfNoneMatch makes the call conditional (see ListOptions).
	IfNoneMatch string `header:"If-None-Match"`
	// Expand, when ExpandProject, fills each invoice's Project.
	Expand Expand `url:"expand"`
}

var invoices = collection[Invoice, InvoiceListOptions]{path: "/invoices"}

// ListInvoices returns one page of the organization's invoices, ordered by
// IssuedAt descending, then by ID; with UpdatedSince, by UpdatedAt
// ascending, then ID.
func (c *Client) ListInvoices(ctx context.Context, opts InvoiceListOptions) ([]Invoice, *Response, error) {
	return invoices.list(ctx, c, opts)
}

// AllInvoices walks every page of ListInvoices and yields each invoice once
// (see ListOptions).
func (c *Client) AllInvoices(ctx context.Context, opts InvoiceListOptions) iter.Seq2[Invoice, error] {
	return invoices.all(ctx, c, opts)
}

// GetInvoice returns one invoice, exactly as ListInvoices has it. An id
// of no invoice the key can see is an *Error with Code CodeNotFound.
// opts, when given, may ask for its project (ExpandProject).
func (c *Client) GetInvoice(ctx context.Context, id string, opts ...ItemOptions) (Invoice, *Response, error) {
	return invoices.get(ctx, c, id, opts)
}

// InvoiceDocument returns a fresh signed link to an invoice's document
// (its PDF), exactly as DownloadDeliverable does for a deliverable's
// file. An invoice without one (DocumentAvailable false) is an *Error
// with Code CodeFileNotAvailable (409); an unknown one, CodeNotFound.
func (c *Client) InvoiceDocument(ctx context.Context, id string) (DownloadLink, *Response, error) {
	return c.downloadLink(ctx, invoices.path, id, "/document")
}
