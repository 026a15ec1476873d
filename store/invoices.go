package store

import (
	"strings"
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

// InvoiceStatuses lists every invoice state.
var InvoiceStatuses = []InvoiceStatus{InvoiceDraft, InvoiceOpen, InvoicePaid, InvoiceVoid}

// Valid reports whether s is one of InvoiceStatuses.
func (s InvoiceStatus) Valid() bool { return oneOf(s, InvoiceStatuses) }

// KindInvoice is the kind of an invoice: a thread may be about one (Ref).
const KindInvoice Kind = "invoice"

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
	// DocumentKey says where the invoice's document (its PDF) lives in
	// the file source, as a deliverable's FileKey; "" when it has none.
	// Never sent to clients.
	DocumentKey string
	UpdatedAt   time.Time // set by a store that tracks changes (see Changes)
}

// HasDocument reports whether the invoice has a document.
func (i Invoice) HasDocument() bool { return i.DocumentKey != "" }

// InvoiceQuery selects invoices. They are ordered by IssuedAt descending,
// then by ID ascending.
type InvoiceQuery struct {
	PageRequest
	Status InvoiceStatus // "" for any
	ListFilter
}

// Validate reports the first problem that makes i unfit to be stored: an
// empty id or organization id, a ProjectID that points at "", any of them
// or the document key not Storable, an unknown
// status, a currency that is not three upper-case letters, or a negative
// amount. Whether the project exists is for the Writer to check.
func (i Invoice) Validate() error {
	if err := checkOwned("invoice", i.ID, i.OrgID); err != nil {
		return err
	}
	if i.ProjectID != nil && *i.ProjectID == "" {
		return Invalid("invoice", i.ID, "empty project id (use nil for a retainer invoice)")
	}
	if i.ProjectID != nil {
		if err := checkStorable("invoice", i.ID, "project id", *i.ProjectID); err != nil {
			return err
		}
	}
	if err := checkStorable("invoice", i.ID, "document key", i.DocumentKey); err != nil {
		return err
	}
	if !i.Status.Valid() {
		return Invalid("invoice", i.ID, "status %q is not one of %v", i.Status, InvoiceStatuses)
	}
	if !isCurrency(i.Currency) {
		return Invalid("invoice", i.ID, "currency %q is not an ISO 4217 code (three upper-case letters)", i.Currency)
	}
	if i.Total < 0 {
		return Invalid("invoice", i.ID, "negative total %d", i.Total)
	}
	if i.AmountDue < 0 {
		return Invalid("invoice", i.ID, "negative amount due %d", i.AmountDue)
	}
	return nil
}

func isCurrency(c string) bool {
	return len(c) == 3 && !strings.ContainsFunc(c, func(r rune) bool { return r < 'A' || r > 'Z' })
}
