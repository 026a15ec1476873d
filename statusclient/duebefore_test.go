package statusclient_test

import (
	"context"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/statusclient"
	"github.com/clientstatus/clientstatus/store"
)

// TestRealHandlerDueBefore lists with DueBefore through every list
// option that has it: the bound is exclusive, sent in UTC whole seconds
// whatever the time's zone, and combines with the other filters.
func TestRealHandlerDueBefore(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	a := newRealAPI(t)
	c := a.org(t, "org_d", store.PlanEnterprise)
	day := func(n int) time.Time { return time.Date(2026, 3, 1+n, 9, 0, 0, 0, time.UTC) }
	must(t, a.st.PutProject(ctx, store.Project{ID: "p1", OrgID: "org_d", Name: "Site", Status: store.ProjectInProgress, DueAt: &[]time.Time{day(10)}[0]}))
	must(t, a.st.PutProject(ctx, store.Project{ID: "p2", OrgID: "org_d", Name: "Open-ended", Status: store.ProjectInProgress}))
	for n, status := range []store.InvoiceStatus{store.InvoiceOpen, store.InvoicePaid, store.InvoiceOpen} {
		must(t, a.st.PutMilestone(ctx, store.Milestone{ID: "m" + string(rune('1'+n)), OrgID: "org_d", ProjectID: "p1", Name: "M", Status: store.MilestonePending, DueAt: day(n)}))
		must(t, a.st.PutInvoice(ctx, store.Invoice{ID: "i" + string(rune('1'+n)), OrgID: "org_d", Number: "N", Status: status, Currency: "EUR",
			IssuedAt: day(n - 30), DueAt: day(n)}))
	}
	cet := time.FixedZone("CET", 3600)
	bound := day(2).In(cet).Add(500 * time.Millisecond) // sent as day(2): i3 and m3, due then, are left out

	projects, _, err := c.ListProjects(ctx, statusclient.ProjectListOptions{DueBefore: day(11)})
	is.NoErr(err)
	is.Equal(len(projects), 1) // a project with no dueAt never matches
	is.Equal(projects[0].ID, "p1")
	milestones, _, err := c.ListMilestones(ctx, "p1", statusclient.MilestoneListOptions{DueBefore: bound})
	is.NoErr(err)
	is.Equal(idsOf(milestones, func(m statusclient.Milestone) string { return m.ID }), []string{"m1", "m2"})
	milestones, resp, err := c.ListOrgMilestones(ctx, statusclient.OrgMilestoneListOptions{DueBefore: day(1), ProjectID: "p1"})
	is.NoErr(err)
	is.Equal(idsOf(milestones, func(m statusclient.Milestone) string { return m.ID }), []string{"m1"})
	is.Equal(resp.Meta.Total, 1)
	invoices, resp, err := c.ListInvoices(ctx, statusclient.InvoiceListOptions{Status: statusclient.InvoiceOpen, DueBefore: bound.Add(time.Second)})
	is.NoErr(err)
	is.Equal(idsOf(invoices, func(i statusclient.Invoice) string { return i.ID }), []string{"i3", "i1"}) // the overdue ones
	is.Equal(resp.Meta.Total, 2)
	var walked []string
	for inv, err := range c.AllInvoices(ctx, statusclient.InvoiceListOptions{ListOptions: statusclient.ListOptions{Limit: 1}, DueBefore: bound}) {
		is.NoErr(err)
		walked = append(walked, inv.ID)
	}
	is.Equal(walked, []string{"i2", "i1"})
}

// idsOf is the id of each of items, in order.
func idsOf[T any](items []T, id func(T) string) []string {
	out := []string{}
	for _, v := range items {
		out = append(out, id(v))
	}
	return out
}
