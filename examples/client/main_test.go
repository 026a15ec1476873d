package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/internal/test/apitest"
	"github.com/clientstatus/clientstatus/statusclient"
	"github.com/clientstatus/clientstatus/store"
)

// TestRun runs the command's body against the real handler, mounted under
// /api as in a portal.
func TestRun(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	api := apitest.New(t)
	st, src := api.Store, api.Files
	api.Org("org_a", store.PlanStarter)
	key := api.Mint("test", "org_a")

	day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	pid := "p1"
	name, ctype, size := "mockups.pdf", "application/pdf", int64(3)
	is.NoErr(st.PutProject(ctx, store.Project{ID: "p1", OrgID: "org_a", Name: "Website relaunch", Status: store.ProjectInProgress, StartedAt: &day, DueAt: &day, UpdatedAt: day}))
	is.NoErr(st.PutInvoice(ctx, store.Invoice{ID: "i1", OrgID: "org_a", Number: "INV-0001", ProjectID: &pid, Status: store.InvoiceOpen, Currency: "EUR", Total: 123456, AmountDue: 123456, IssuedAt: day, DueAt: day}))
	is.NoErr(st.PutInvoice(ctx, store.Invoice{ID: "i2", OrgID: "org_a", Number: "INV-0002", Status: store.InvoicePaid, Currency: "EUR", Total: 100, IssuedAt: day, DueAt: day}))
	is.NoErr(st.PutDeliverable(ctx, store.Deliverable{ID: "d1", OrgID: "org_a", ProjectID: "p1", Name: "Mockups", Status: store.DeliverableApproved, FileName: &name, ContentType: &ctype, SizeBytes: &size, FileKey: "d1", CreatedAt: day, UpdatedAt: day}))
	is.NoErr(st.PutDeliverable(ctx, store.Deliverable{ID: "d2", OrgID: "org_a", ProjectID: "p1", Name: "Copy", Status: store.DeliverablePending, CreatedAt: day, UpdatedAt: day}))
	src.Put("d1", []byte("pdf"))

	srv := api.Server("/api", nil) // mounted as in a portal

	var out bytes.Buffer
	is.NoErr(run(ctx, statusclient.New(srv.URL+"/api/v1", key), &out))
	rows := map[string][]string{} // first column -> the row's columns
	for _, line := range strings.Split(out.String(), "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			rows[f[0]] = f
		}
	}
	is.Equal(rows["p1"], []string{"p1", "in_progress", "2026-03-01", "Website", "relaunch"}) // the project
	is.Equal(rows["INV-0001"], []string{"INV-0001", "2026-03-01", "1234.56", "EUR", "p1"})   // the open invoice
	is.Equal(rows["INV-0002"], nil)                                                          // not the paid one
	is.Equal(len(rows["d1"]), 4)                                                             // a link for the file
	is.True(strings.HasPrefix(rows["d1"][3], srv.URL+"/api/v1/"))                            // under the public URL
	is.Equal(rows["d2"], nil)                                                                // no link without a file
	is.Equal(len(rows["60"]), 3)                                                             // the starter plan's budget
	is.Equal(rows["60"][1], "56")                                                            // four requests spent, as the last answer said

	err := run(ctx, statusclient.New(srv.URL+"/api/v1", "wrong"), io.Discard)
	is.True(err != nil) // a bad key is an error, not an empty listing
}
