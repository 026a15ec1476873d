package bunstore

import (
	"context"

	"github.com/clientstatus/clientstatus/store"
)

// ListInvoicesGeneric is ListInvoices through the generic list only
// (listInvoicesGeneric), never the prepared page: the differential test's
// reference.
func ListInvoicesGeneric(ctx context.Context, s *Store, orgID string, q store.InvoiceQuery) (store.Page[store.Invoice], error) {
	return s.listInvoicesGeneric(ctx, orgID, q)
}

// InvoiceListText exposes the prepared statement of a page of invoices
// (invoiceListText) to the plan tests.
func InvoiceListText(s *Store, status, project bool) string {
	return s.invoiceListText(status, project)
}

// StoreTables exposes the tables Migrate makes (storeTables), which it
// refuses to find in a schema it did not migrate, to the migration tests.
var StoreTables = storeTables
