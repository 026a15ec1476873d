package bunstore

// InvoiceListText exposes the prepared statement of a page of invoices
// (invoiceListText) to the plan tests.
func InvoiceListText(s *Store, status, project bool) string {
	return s.invoiceListText(status, project)
}
