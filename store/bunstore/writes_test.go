package bunstore_test

import (
	"errors"
	"testing"
	"time"

	"github.com/matryer/is"
	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/auth"
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

// TestRefusedInput checks that what bunstore refuses for what it holds, an
// invalid item or an impossible page, wraps store.ErrInvalid, and that no
// refusal is taken for an outage.
func TestRefusedInput(t *testing.T) {
	t.Parallel()
	st := bunstore.New(migrated(t))
	is.New(t).NoErr(st.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "Acme", Plan: "growth"}))
	zero := store.PageRequest{Page: 0, Limit: 20}
	tests := []struct {
		name string
		call func() error
	}{
		{"organization with unknown plan", func() error {
			return st.PutOrganization(ctx, store.Organization{ID: "org_b", Plan: "gold"})
		}},
		{"project with unknown status", func() error {
			return st.PutProject(ctx, store.Project{ID: "p1", OrgID: "org_a", Status: "done"})
		}},
		{"projects page 0", func() error {
			_, err := st.ListProjects(ctx, "org_a", store.ProjectQuery{PageRequest: zero})
			return err
		}},
		{"invoices limit 0", func() error {
			_, err := st.ListInvoices(ctx, "org_a", store.InvoiceQuery{PageRequest: store.PageRequest{Page: 1}})
			return err
		}},
		{"key record without hash", func() error {
			return st.CreateKey(ctx, auth.Key{ID: "key_1", OrgID: "org_a"})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			err := tt.call()
			is.True(errors.Is(err, store.ErrInvalid))      // refused for what it holds
			is.True(errors.Is(err, auth.ErrInvalidInput))  // which auth calls by its own name
			is.True(!errors.Is(err, store.ErrUnavailable)) // never an outage
		})
	}
}
