package bunstore

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/store"
)

type invoiceRow struct {
	bun.BaseModel `bun:"table:invoices,alias:i"`
	total

	OrgID     string     `bun:"org_id,pk"`
	ID        string     `bun:"id,pk"`
	Number    string     `bun:"number,notnull"`
	ProjectID *string    `bun:"project_id"`
	Status    string     `bun:"status,notnull"`
	Currency  string     `bun:"currency,notnull"`
	Total     int64      `bun:"total,notnull"`
	AmountDue int64      `bun:"amount_due,notnull"`
	IssuedAt  time.Time  `bun:"issued_at,notnull"`
	DueAt     time.Time  `bun:"due_at,notnull"`
	PaidAt    *time.Time `bun:"paid_at"`
	// DocumentKey is where the invoice's document lives in the file
	// source, '' for none (migration 20261002000001_invoice_documents).
	DocumentKey string    `bun:"document_key,notnull"`
	UpdatedAt   time.Time `bun:"updated_at,notnull"` // the database's: never written
}

// invoiceTable is the table of invoices, for the generic list and get
// (resource), and the pgx statements of prepared.go, which follow its
// order and filters.
var invoiceTable = resource[invoiceRow, store.Invoice]{
	kind: "invoice", plural: "invoices", alias: "i",
	order:   "i.issued_at DESC, i.id",
	project: "i.project_id", status: "i.status",
	counted: true,
	item:    invoiceRow.invoice,
	rowOf:   invoiceRowOf,
}

func (row invoiceRow) key() [2]string { return [2]string{row.OrgID, row.ID} }

func (row invoiceRow) invoice() store.Invoice {
	return store.Invoice{
		ID:          row.ID,
		OrgID:       row.OrgID,
		Number:      row.Number,
		ProjectID:   row.ProjectID,
		Status:      store.InvoiceStatus(row.Status),
		Currency:    row.Currency,
		Total:       row.Total,
		AmountDue:   row.AmountDue,
		IssuedAt:    row.IssuedAt.UTC(),
		DueAt:       row.DueAt.UTC(),
		PaidAt:      utc(row.PaidAt),
		DocumentKey: row.DocumentKey,
		UpdatedAt:   row.UpdatedAt.UTC(),
	}
}

func invoiceRowOf(i store.Invoice) invoiceRow {
	return invoiceRow{
		OrgID:       i.OrgID,
		ID:          i.ID,
		Number:      i.Number,
		ProjectID:   i.ProjectID,
		Status:      string(i.Status),
		Currency:    i.Currency,
		Total:       i.Total,
		AmountDue:   i.AmountDue,
		IssuedAt:    i.IssuedAt,
		DueAt:       i.DueAt,
		PaidAt:      i.PaidAt,
		DocumentKey: i.DocumentKey,
	}
}

// PutInvoice inserts or replaces an invoice, with where its document
// lives (DocumentKey); the error wraps store.ErrNotFound when its
// organization, or the project it names, does not exist. Its UpdatedAt is
// the database's clock, moved only when a field (DocumentKey included)
// changes.
func (s *Store) PutInvoice(ctx context.Context, i store.Invoice) error {
	return putItems(ctx, s, invoiceTable, i)
}

// PutInvoices puts many invoices as PutInvoice does, in one statement per
// thousand: either all of them or, on an error, none. It validates every
// one first, and returns the first invalid one's error without writing
// any. Of two with the same organization and id, the later wins.
func (s *Store) PutInvoices(ctx context.Context, invoices []store.Invoice) error {
	return putItems(ctx, s, invoiceTable, invoices...)
}

// ListInvoices returns a page of the organization's invoices, latest issued
// first, through the index invoices_list or, with filters,
// invoices_list_status, invoices_list_project or
// invoices_list_project_status; with UpdatedSince, the changed ones,
// oldest change first, through the invoices_changes indexes of the same
// shapes. Its total is summed from item_counts, or with UpdatedSince or
// DueBefore counted (see selectPage). On pgx (Open's db), a list of no
// filter but status and project carries its data version
// (store.Page.Version), and concurrent ones of the same filters are
// answered together, by one statement that starts after each of them was
// asked (prepared.go, batch.go).
func (s *Store) ListInvoices(ctx context.Context, orgID string, q store.InvoiceQuery) (store.Page[store.Invoice], error) {
	if storable(orgID, q.ProjectID) { // else no query at all: the generic list's answer
		if p, ok, err := s.preparedInvoices(ctx, orgID, q); ok {
			return p, err
		}
	}
	return s.listInvoicesGeneric(ctx, orgID, q)
}

// listInvoicesGeneric is ListInvoices through the generic list
// (invoiceTable), the answer the prepared page must give.
func (s *Store) listInvoicesGeneric(ctx context.Context, orgID string, q store.InvoiceQuery) (store.Page[store.Invoice], error) {
	return invoiceTable.list(ctx, s, orgID, listing{PageRequest: q.PageRequest, ListFilter: q.ListFilter, status: string(q.Status)})
}

// GetInvoice returns one of the organization's invoices, with where its
// document lives; the error wraps store.ErrNotFound when it has none with
// that id.
func (s *Store) GetInvoice(ctx context.Context, orgID, id string) (store.Invoice, error) {
	return invoiceTable.get(ctx, s, orgID, id, nil)
}

// DeleteInvoice deletes one of the organization's invoices, leaving a
// deletion record; the error wraps store.ErrNotFound when it has none with
// that id.
func (s *Store) DeleteInvoice(ctx context.Context, orgID, id string) error {
	return remove[invoiceRow](ctx, s, "invoice", "i", orgID, id)
}
