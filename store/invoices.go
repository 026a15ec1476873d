package store

import "time"

// InvoiceStatus is the state of an invoice.
type InvoiceStatus string

// The states of an invoice.
const (
	InvoiceDraft InvoiceStatus = "draft"
	InvoiceOpen  InvoiceStatus = "open"
	InvoicePaid  InvoiceStatus = "paid"
	InvoiceVoid  InvoiceStatus = "void"
)

// InvoiceStatuses lists every invoice state.
var InvoiceStatuses = []InvoiceStatus{InvoiceDraft, InvoiceOpen, InvoicePaid, InvoiceVoid}

// Valid reports whether s is one of InvoiceStatuses.
func (s InvoiceStatus) Valid() bool { return oneOf(s, InvoiceStatuses) }

// Invoice is a bill to the organization. Amounts are integer minor units
// (cents) of Currency, an ISO 4217 code.
type Invoice struct {
	ID        string
	OrgID     string
	Number    string
	ProjectID *string // nil for retainer invoices, which belong to no project
	Status    InvoiceStatus
	Currency  string
	Total     int64
	AmountDue int64
	IssuedAt  time.Time
	DueAt     time.Time
	PaidAt    *time.Time // nil until paid
}

// InvoiceQuery selects invoices. They are ordered by IssuedAt descending,
// then by ID ascending.
type InvoiceQuery struct {
	PageRequest
	Status    InvoiceStatus // "" for any
	ProjectID string        // "" for any
}
