package main

import (
	"fmt"
	"strings"

	"github.com/clientstatus/clientstatus/store"
)

// Invoice documents: a data file's invoices[].document is the invoice's
// PDF, as a string, served through GET /v1/invoices/{id}/document as a
// deliverable's content is through its download. The demo data gives a
// document to every issued invoice (not the draft).

// demoDocument returns a small, valid PDF of one page that shows the
// invoice's number, amount and dates: enough for a client's developer to
// see a real document behind the link.
func demoDocument(inv store.Invoice) []byte {
	lines := []string{
		"Invoice " + inv.Number,
		fmt.Sprintf("Total: %d.%02d %s", inv.Total/100, inv.Total%100, inv.Currency),
		"Issued: " + inv.IssuedAt.Format("2006-01-02") + "   Due: " + inv.DueAt.Format("2006-01-02"),
		"Demo data of the clientstatus example server.",
	}
	var text strings.Builder
	text.WriteString("BT /F1 14 Tf 72 760 Td 20 TL\n")
	for _, l := range lines {
		text.WriteString("(" + pdfEscape(l) + ") Tj T*\n")
	}
	text.WriteString("ET")
	objects := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", text.Len(), text.String()),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}
	var b strings.Builder
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objects))
	for i, o := range objects {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objects)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objects)+1, xref)
	return []byte(b.String())
}

// pdfEscape escapes a string for a PDF literal string.
func pdfEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`).Replace(s)
}
