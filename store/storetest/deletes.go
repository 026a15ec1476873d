package storetest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/clientstatus/clientstatus/store"
	"github.com/matryer/is"
)

func testDelete(t *testing.T, open func(t *testing.T) Subject) {
	s := open(t)
	d := s
	f := seedData()
	f.put(t, s)
	is := is.New(t)

	// org_a's m1, d1 and i1; org_b has items with the same ids.
	is.NoErr(d.DeleteMilestone(ctx, orgA, "m1"))   // deleting a milestone
	is.NoErr(d.DeleteDeliverable(ctx, orgA, "d1")) // deleting a deliverable
	is.NoErr(d.DeleteInvoice(ctx, orgA, "i1"))     // deleting an invoice
	is.NoErr(d.DeleteInvoice(ctx, orgA, "i5"))     // deleting a retainer invoice
	is.NoErr(d.DeleteMilestone(ctx, orgB, "mb"))   // deleting org_b's milestone

	_, err := s.GetDeliverable(ctx, orgA, "d1")
	is.True(errors.Is(err, store.ErrNotFound)) // a deleted deliverable is not found
	checkLists(t, s, []list{
		{"milestones of org_a p1", milestones(orgA, "p1", store.MilestoneQuery{}), []string{"m2", "m3", "m4"}},
		{"milestones of org_a p1 pending", milestones(orgA, "p1", store.MilestoneQuery{Status: store.MilestonePending}), []string{"m4"}},
		{"deliverables of org_a", deliverables(orgA, store.DeliverableQuery{}), []string{"d4", "d2", "d3", "d5"}},
		{"deliverables of org_a approved", deliverables(orgA, store.DeliverableQuery{Status: store.DeliverableApproved}), []string{"d5"}},
		{"invoices of org_a", invoices(orgA, store.InvoiceQuery{}), []string{"i6", "i2", "i3", "i4"}},
		{"invoices of org_a p1", invoices(orgA, store.InvoiceQuery{ProjectID: "p1"}), []string{"i3"}},
		{"projects of org_a (none deleted)", projects(orgA, store.ProjectQuery{}), []string{"p4", "p1", "p2", "p5", "p0", "p3"}},
		{"milestones of org_b p1 (its m1 stays)", milestones(orgB, "p1", store.MilestoneQuery{}), []string{"m1"}},
		{"milestones of org_b pb", milestones(orgB, "pb", store.MilestoneQuery{}), []string{}},
		{"deliverables of org_b (its d1 stays)", deliverables(orgB, store.DeliverableQuery{}), []string{"d1"}},
		{"invoices of org_b (its i1 stays)", invoices(orgB, store.InvoiceQuery{}), []string{"ib", "i1"}},
	})
	same(is, getDeliverable(t, s, orgB, "d1"), want(f.deliverables, orgB, "d1", deliverableKey)) // org_b's d1 is untouched

	// A deleted item may be put again.
	is.NoErr(s.PutMilestone(ctx, want(f.milestones, orgA, "m1", milestoneKey)))       // putting a deleted milestone again
	is.NoErr(s.PutDeliverable(ctx, want(f.deliverables, orgA, "d1", deliverableKey))) // putting a deleted deliverable again
	checkLists(t, s, []list{
		{"milestones of org_a p1, m1 put again", milestones(orgA, "p1", store.MilestoneQuery{}), []string{"m2", "m1", "m3", "m4"}},
		{"deliverables of org_a, d1 put again", deliverables(orgA, store.DeliverableQuery{}), []string{"d4", "d2", "d1", "d3", "d5"}},
	})
	same(is, getDeliverable(t, s, orgA, "d1"), want(f.deliverables, orgA, "d1", deliverableKey)) // a deliverable put again is as put
}

// testDeleteProject checks the cascade of a project: its milestones and
// deliverables go with it, the invoices that named it stay without a
// project (and, on a store that tracks changes, with a new UpdatedAt).
func testDeleteProject(t *testing.T, open func(t *testing.T) Subject) {
	s := open(t)
	d := s
	f := seedData()
	f.put(t, s)
	is := is.New(t)
	i1, i3 := getInvoice(t, s, orgA, "i1"), getInvoice(t, s, orgA, "i3")
	i4 := getInvoice(t, s, orgA, "i4")
	s.Advance(tick)

	from := s.Now()
	is.NoErr(d.DeleteProject(ctx, orgA, "p1")) // deleting a project
	to := s.Now()

	_, err := s.GetProject(ctx, orgA, "p1")
	is.True(errors.Is(err, store.ErrNotFound)) // a deleted project is not found
	_, err = s.ListMilestones(ctx, orgA, "p1", store.MilestoneQuery{PageRequest: all})
	is.True(errors.Is(err, store.ErrNotFound)) // the milestones of a deleted project are not found
	for _, id := range []string{"d1", "d2", "d4"} {
		_, err := s.GetDeliverable(ctx, orgA, id)
		is.True(errors.Is(err, store.ErrNotFound)) // the deliverables of a deleted project go with it
	}
	checkLists(t, s, []list{
		{"projects of org_a", projects(orgA, store.ProjectQuery{}), []string{"p4", "p2", "p5", "p0", "p3"}},
		{"projects of org_a in_progress", projects(orgA, store.ProjectQuery{Status: store.ProjectInProgress}), []string{}},
		{"milestones of org_a p2 (untouched)", milestones(orgA, "p2", store.MilestoneQuery{}), []string{"m5"}},
		{"deliverables of org_a", deliverables(orgA, store.DeliverableQuery{}), []string{"d3", "d5"}},
		{"deliverables of p1", deliverables(orgA, store.DeliverableQuery{ProjectID: "p1"}), []string{}},
		{"invoices of org_a (all stay)", invoices(orgA, store.InvoiceQuery{}), []string{"i6", "i2", "i3", "i1", "i4", "i5"}},
		{"invoices of p1", invoices(orgA, store.InvoiceQuery{ProjectID: "p1"}), []string{}},
		{"invoices of p2 (untouched)", invoices(orgA, store.InvoiceQuery{ProjectID: "p2"}), []string{"i6", "i4"}},
		{"projects of org_b (its p1 stays)", projects(orgB, store.ProjectQuery{}), []string{"p1", "pb"}},
		{"milestones of org_b p1", milestones(orgB, "p1", store.MilestoneQuery{}), []string{"m1"}},
		{"deliverables of org_b", deliverables(orgB, store.DeliverableQuery{}), []string{"d1"}},
		{"invoices of org_b p1", invoices(orgB, store.InvoiceQuery{ProjectID: "p1"}), []string{"i1"}},
	})

	// The invoices that named it stay, without a project.
	for _, before := range []store.Invoice{i1, i3} {
		got := getInvoice(t, s, orgA, before.ID)
		wantI := want(f.invoices, orgA, before.ID, invoiceKey)
		wantI.ProjectID = nil
		same(is, got, wantI)                           // an invoice of a deleted project stays, with a nil ProjectID
		is.True(got.UpdatedAt.After(before.UpdatedAt)) // taking the project from an invoice is a change
		within(is, got.UpdatedAt, from, to)
	}
	is.True(getInvoice(t, s, orgA, "i4").UpdatedAt.Equal(i4.UpdatedAt)) // an invoice of another project keeps its UpdatedAt

	// A project put again with the same id is a new project: nothing of
	// the old one comes back.
	is.NoErr(s.PutProject(ctx, want(f.projects, orgA, "p1", projectKey))) // putting a deleted project again
	checkLists(t, s, []list{
		{"milestones of p1 put again", milestones(orgA, "p1", store.MilestoneQuery{}), []string{}},
		{"deliverables of p1 put again", deliverables(orgA, store.DeliverableQuery{ProjectID: "p1"}), []string{}},
		{"invoices of p1 put again", invoices(orgA, store.InvoiceQuery{ProjectID: "p1"}), []string{}},
	})
	is.NoErr(s.PutMilestone(ctx, want(f.milestones, orgA, "m4", milestoneKey))) // a project put again takes new milestones
}

func testDeleteOrganization(t *testing.T, open func(t *testing.T) Subject) {
	s := open(t)
	d := s
	f := seedData()
	f.put(t, s)
	is := is.New(t)

	is.NoErr(d.DeleteOrganization(ctx, orgA)) // deleting an organization
	gone := []list{
		{"projects of a deleted organization", projects(orgA, store.ProjectQuery{}), []string{}},
		{"deliverables of a deleted organization", deliverables(orgA, store.DeliverableQuery{}), []string{}},
		{"invoices of a deleted organization", invoices(orgA, store.InvoiceQuery{}), []string{}},
	}
	checkLists(t, s, gone)
	_, err := s.GetProject(ctx, orgA, "p1")
	is.True(errors.Is(err, store.ErrNotFound)) // a deleted organization's projects are not found
	_, err = s.GetDeliverable(ctx, orgA, "d1")
	is.True(errors.Is(err, store.ErrNotFound)) // a deleted organization's deliverables are not found
	_, err = s.ListMilestones(ctx, orgA, "p1", store.MilestoneQuery{PageRequest: all})
	is.True(errors.Is(err, store.ErrNotFound)) // a deleted organization's milestones are not found
	_, err = s.Organization(ctx, orgA)
	is.True(errors.Is(err, store.ErrNotFound)) // a deleted organization is not found
	err = s.PutProject(ctx, want(f.projects, orgA, "p3", projectKey))
	is.True(errors.Is(err, store.ErrNotFound)) // a deleted organization takes no items
	err = d.DeleteOrganization(ctx, orgA)
	is.True(errors.Is(err, store.ErrNotFound)) // an organization is deleted once

	// The other organization is untouched.
	for _, l := range orderLists {
		if strings.Contains(l.name, orgB) {
			checkLists(t, s, []list{l})
		}
	}

	// An organization put again with the same id is a new one: nothing of
	// the old one comes back.
	is.NoErr(s.PutOrganization(ctx, f.orgs[0])) // putting a deleted organization again
	checkLists(t, s, gone)
	_, err = s.ListMilestones(ctx, orgA, "p1", store.MilestoneQuery{PageRequest: all})
	is.True(errors.Is(err, store.ErrNotFound)) // nothing of a deleted organization comes back
}

// testDeleteNotFound deletes what an organization does not have: unknown
// ids, ids of another kind, and the other organization's items.
func testDeleteNotFound(t *testing.T, open func(t *testing.T) Subject) {
	s := open(t)
	d := s
	seedData().put(t, s)

	tests := []struct {
		name string
		del  func() error
	}{
		{"unknown organization", func() error { return d.DeleteOrganization(ctx, "org_unknown") }},
		{"organization without id", func() error { return d.DeleteOrganization(ctx, "") }},
		{"unknown project", func() error { return d.DeleteProject(ctx, orgA, "nope") }},
		{"project of an unknown organization", func() error { return d.DeleteProject(ctx, "org_unknown", "p1") }},
		{"project of the other organization", func() error { return d.DeleteProject(ctx, orgB, "p2") }},
		{"project by a milestone's id", func() error { return d.DeleteProject(ctx, orgA, "m1") }},
		{"unknown milestone", func() error { return d.DeleteMilestone(ctx, orgA, "nope") }},
		{"milestone of the other organization", func() error { return d.DeleteMilestone(ctx, orgB, "m2") }},
		{"milestone by its project's id", func() error { return d.DeleteMilestone(ctx, orgA, "p1") }},
		{"unknown deliverable", func() error { return d.DeleteDeliverable(ctx, orgA, "nope") }},
		{"deliverable of the other organization", func() error { return d.DeleteDeliverable(ctx, orgB, "d4") }},
		{"deliverable of an unknown organization", func() error { return d.DeleteDeliverable(ctx, "org_unknown", "d1") }},
		{"unknown invoice", func() error { return d.DeleteInvoice(ctx, orgA, "nope") }},
		{"invoice of the other organization", func() error { return d.DeleteInvoice(ctx, orgA, "ib") }},
		{"invoice by a deliverable's id", func() error { return d.DeleteInvoice(ctx, orgA, "d1") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			is.True(errors.Is(tt.del(), store.ErrNotFound)) // deleting what the organization does not have wraps store.ErrNotFound
		})
	}
	checkLists(t, s, orderLists) // deleting nothing changes nothing

	is := is.New(t)
	is.NoErr(d.DeleteInvoice(ctx, orgA, "i4"))
	is.True(errors.Is(d.DeleteInvoice(ctx, orgA, "i4"), store.ErrNotFound)) // an item is deleted once
	is.NoErr(d.DeleteProject(ctx, orgA, "p2"))
	is.True(errors.Is(d.DeleteMilestone(ctx, orgA, "m5"), store.ErrNotFound))   // a milestone deleted with its project is gone
	is.True(errors.Is(d.DeleteDeliverable(ctx, orgA, "d3"), store.ErrNotFound)) // a deliverable deleted with its project is gone
}

func testDeleteCancelled(t *testing.T, open func(t *testing.T) Subject) {
	s := open(t)
	d := s
	seedData().put(t, s)
	cctx, cancel := context.WithCancel(context.Background())
	cancel()

	calls := []struct {
		name string
		call func(ctx context.Context) error
	}{
		{"DeleteOrganization", func(ctx context.Context) error { return d.DeleteOrganization(ctx, orgA) }},
		{"DeleteProject", func(ctx context.Context) error { return d.DeleteProject(ctx, orgA, "p1") }},
		{"DeleteMilestone", func(ctx context.Context) error { return d.DeleteMilestone(ctx, orgA, "m1") }},
		{"DeleteDeliverable", func(ctx context.Context) error { return d.DeleteDeliverable(ctx, orgA, "d1") }},
		{"DeleteInvoice", func(ctx context.Context) error { return d.DeleteInvoice(ctx, orgA, "i1") }},
	}
	calls = append(calls, struct {
		name string
		call func(ctx context.Context) error
	}{"ListDeletions", func(ctx context.Context) error {
		_, err := s.ListDeletions(ctx, orgA, store.DeletionQuery{PageRequest: all, Since: s.Now()})
		return err
	}})
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			is.True(errors.Is(c.call(cctx), context.Canceled)) // a cancelled context's error is returned, wrapped
		})
	}
	checkLists(t, s, orderLists) // a cancelled delete deletes nothing
}
