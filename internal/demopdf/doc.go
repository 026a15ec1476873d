// Package demopdf writes the small PDF documents of demo data (the
// example server's invoices, the sandbox's files).
package demopdf
