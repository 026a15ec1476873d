package bunstore_test

import (
	"errors"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/store"
)

// TestCollidingIDs gives two organizations items with the same ids and
// checks that every read of one returns only its own.
func TestCollidingIDs(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	st := bunstore.New(migrated(t))
	day := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	for _, org := range []string{"org_a", "org_b"} {
		is.NoErr(st.PutOrganization(ctx, store.Organization{ID: org, Name: org, Plan: "growth", RetainerActive: true, APIEnabled: true}))
		is.NoErr(st.PutProject(ctx, store.Project{ID: "p1", OrgID: org, Name: org, Status: store.ProjectInProgress, StartedAt: &day, UpdatedAt: day}))
		is.NoErr(st.PutMilestone(ctx, store.Milestone{ID: "m1", OrgID: org, ProjectID: "p1", Name: org, Status: store.MilestonePending, DueAt: day}))
		is.NoErr(st.PutDeliverable(ctx, store.Deliverable{ID: "d1", OrgID: org, ProjectID: "p1", Name: org, Status: store.DeliverablePending, FileKey: org + "/d1", CreatedAt: day, UpdatedAt: day}))
		p1 := "p1"
		is.NoErr(st.PutInvoice(ctx, store.Invoice{ID: "i1", OrgID: org, Number: org, ProjectID: &p1, Status: store.InvoiceOpen, Currency: "EUR", Total: 1, AmountDue: 1, IssuedAt: day, DueAt: day}))
	}
	// A project of org_b only.
	is.NoErr(st.PutProject(ctx, store.Project{ID: "pb", OrgID: "org_b", Name: "org_b", Status: store.ProjectPlanned, UpdatedAt: day}))

	page := store.PageRequest{Page: 1, Limit: store.MaxLimit}
	owner := func(orgID, name string) { is.Helper(); is.Equal(orgID, "org_a"); is.Equal(name, "org_a") }

	projects, err := st.ListProjects(ctx, "org_a", store.ProjectQuery{PageRequest: page})
	is.NoErr(err)
	is.Equal(projects.Total, 1) // org_b's projects are not counted
	for _, p := range projects.Items {
		owner(p.OrgID, p.Name)
	}
	p, err := st.GetProject(ctx, "org_a", "p1")
	is.NoErr(err)
	owner(p.OrgID, p.Name)
	_, err = st.GetProject(ctx, "org_a", "pb")
	is.True(errors.Is(err, store.ErrNotFound)) // another organization's project does not exist

	milestones, err := st.ListMilestones(ctx, "org_a", "p1", store.MilestoneQuery{PageRequest: page})
	is.NoErr(err)
	is.Equal(milestones.Total, 1) // only org_a's milestone of p1
	owner(milestones.Items[0].OrgID, milestones.Items[0].Name)
	_, err = st.ListMilestones(ctx, "org_a", "pb", store.MilestoneQuery{PageRequest: page})
	is.True(errors.Is(err, store.ErrNotFound)) // nor do its milestones

	deliverables, err := st.ListDeliverables(ctx, "org_a", store.DeliverableQuery{PageRequest: page})
	is.NoErr(err)
	is.Equal(deliverables.Total, 1) // org_b's deliverables are not counted
	owner(deliverables.Items[0].OrgID, deliverables.Items[0].Name)
	d, err := st.GetDeliverable(ctx, "org_a", "d1")
	is.NoErr(err)
	owner(d.OrgID, d.Name)
	is.Equal(d.FileKey, "org_a/d1") // the file of org_a's deliverable
	deliverables, err = st.ListDeliverables(ctx, "org_a", store.DeliverableQuery{PageRequest: page, ListFilter: store.ListFilter{ProjectID: "pb"}})
	is.NoErr(err)
	is.Equal(deliverables.Total, 0) // another organization's project filters to nothing

	invoices, err := st.ListInvoices(ctx, "org_a", store.InvoiceQuery{PageRequest: page})
	is.NoErr(err)
	is.Equal(invoices.Total, 1) // org_b's invoices are not counted
	owner(invoices.Items[0].OrgID, invoices.Items[0].Number)

	// org_a cannot attach items to org_b's project either.
	err = st.PutMilestone(ctx, store.Milestone{ID: "m2", OrgID: "org_a", ProjectID: "pb", Status: store.MilestonePending, DueAt: day})
	is.True(errors.Is(err, store.ErrNotFound)) // the composite reference refuses it
	pb := "pb"
	err = st.PutInvoice(ctx, store.Invoice{ID: "i2", OrgID: "org_a", ProjectID: &pb, Status: store.InvoiceOpen, Currency: "EUR", IssuedAt: day, DueAt: day})
	is.True(errors.Is(err, store.ErrNotFound)) // for invoices too
}
