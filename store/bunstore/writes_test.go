package bunstore_test

import (
	"testing"
	"time"

	"github.com/matryer/is"
	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/store"
	"github.com/clientstatus/clientstatus/store/bunstore"
)

// versions returns the transaction id that wrote each row of the store's
// tables (xmin): it changes whenever a row is rewritten.
func versions(t *testing.T, db *bun.DB) []string {
	t.Helper()
	var out []string
	for _, table := range []string{"organizations", "projects", "milestones", "deliverables", "invoices"} {
		var xmins []string
		err := db.NewSelect().TableExpr("?", bun.Ident(table)).
			ColumnExpr("? || ':' || id || ':' || xmin::text", table).
			OrderExpr("id").
			Scan(ctx, &xmins)
		if err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		out = append(out, xmins...)
	}
	return out
}

// TestPutSameTwice checks that writing the same items again, as loading a
// data file twice does, leaves every row as it was: not even rewritten.
func TestPutSameTwice(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db := migrated(t)
	st := bunstore.New(db)
	day := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	size := int64(3)
	name, ctype := "a.pdf", "application/pdf"
	put := func() {
		is.NoErr(st.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "Acme", Plan: "growth", RetainerActive: true, APIEnabled: true}))
		is.NoErr(st.PutProject(ctx, store.Project{ID: "p1", OrgID: "org_a", Name: "Site", Status: store.ProjectInProgress, StartedAt: &day, UpdatedAt: day}))
		is.NoErr(st.PutMilestone(ctx, store.Milestone{ID: "m1", OrgID: "org_a", ProjectID: "p1", Name: "Design", Status: store.MilestoneCompleted, DueAt: day, CompletedAt: &day}))
		is.NoErr(st.PutDeliverable(ctx, store.Deliverable{ID: "d1", OrgID: "org_a", ProjectID: "p1", Name: "Mockups", Status: store.DeliverableApproved,
			FileName: &name, ContentType: &ctype, SizeBytes: &size, FileKey: "d1", CreatedAt: day, UpdatedAt: day}))
		is.NoErr(st.PutInvoice(ctx, store.Invoice{ID: "i1", OrgID: "org_a", Number: "INV-1", Status: store.InvoicePaid, Currency: "EUR",
			Total: 100, AmountDue: 0, IssuedAt: day, DueAt: day, PaidAt: &day}))
	}
	put()
	before := versions(t, db)
	is.Equal(len(before), 5) // one row of each kind
	put()
	is.Equal(versions(t, db), before) // the same data again rewrites nothing

	is.NoErr(st.PutProject(ctx, store.Project{ID: "p1", OrgID: "org_a", Name: "New site", Status: store.ProjectInProgress, StartedAt: &day, UpdatedAt: day}))
	p, err := st.GetProject(ctx, "org_a", "p1")
	is.NoErr(err)
	is.Equal(p.Name, "New site") // while a change is written
}
