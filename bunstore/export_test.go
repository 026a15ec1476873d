package bunstore

// InvoiceListText exposes the prepared statement of a page of invoices
// (invoiceListText) to the plan tests.
func InvoiceListText(s *Store, status, project bool) string {
	return s.invoiceListText(status, project)
}

// StoreTables exposes the tables Migrate makes (storeTables), which it
// refuses to find in a schema it did not migrate, to the migration tests.
var StoreTables = storeTables
