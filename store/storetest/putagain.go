package storetest

import (
	"fmt"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/store"
)

// PutAgainElsewhere checks, on s, the departure of a deleted item put
// again in another project (issue 19): the put drops the item's deletion
// record, so a key restricted to the project the record named, which saw
// the item there, must see it leave that project instead; a key of the
// project it is in now, and an unrestricted key, see nothing gone. A
// milestone, a deliverable, an invoice and a thread, each deleted and put
// again in another project; one put again in its own project leaves
// nothing. clock is s's.
func PutAgainElsewhere(t *testing.T, s SyncSubject, clock Clocked) {
	is := is.New(t)
	org := "putagain"
	is.NoErr(s.PutOrganization(ctx, store.Organization{ID: org, Name: org, Plan: store.PlanGrowth}))
	for _, p := range []string{"p0", "p1"} {
		is.NoErr(s.PutProject(ctx, store.Project{ID: p, OrgID: org, Name: p, Status: store.ProjectPlanned}))
	}
	at := clock.Now()
	put := func(project, same string) {
		is.NoErr(s.PutMilestone(ctx, store.Milestone{ID: "m1", OrgID: org, ProjectID: project, Name: "m", Status: store.MilestonePending, DueAt: at}))
		is.NoErr(s.PutMilestone(ctx, store.Milestone{ID: "m2", OrgID: org, ProjectID: same, Name: "m", Status: store.MilestonePending, DueAt: at}))
		is.NoErr(s.PutDeliverable(ctx, store.Deliverable{ID: "d1", OrgID: org, ProjectID: project, Name: "d", Status: store.DeliverablePending, CreatedAt: at}))
		is.NoErr(s.PutInvoice(ctx, store.Invoice{ID: "i1", OrgID: org, Number: "1", ProjectID: &project, Status: store.InvoiceOpen, Currency: "EUR", IssuedAt: at, DueAt: at}))
		is.NoErr(s.PutThread(ctx, store.Thread{ID: "t1", OrgID: org, ProjectID: &project, Subject: "t", Status: store.ThreadOpen, CreatedAt: at}))
	}
	put("p0", "p0")
	clock.Advance(tick)
	since := clock.Now()
	is.NoErr(s.DeleteMilestone(ctx, org, "m1"))
	is.NoErr(s.DeleteMilestone(ctx, org, "m2"))
	is.NoErr(s.DeleteDeliverable(ctx, org, "d1"))
	is.NoErr(s.DeleteInvoice(ctx, org, "i1"))
	is.NoErr(s.DeleteThread(ctx, org, "t1"))
	clock.Advance(tick)
	put("p1", "p0")
	gone := func(only []string) []string {
		p, err := s.ListDeletions(ctx, org, store.DeletionQuery{Since: since, OnlyProjects: only, PageRequest: all})
		is.NoErr(err)
		var out []string
		for _, d := range p.Items {
			out = append(out, fmt.Sprint(d.Kind, "/", d.ID))
		}
		return out
	}
	is.Equal(gone([]string{"p0"}), []string{"deliverable/d1", "invoice/i1", "milestone/m1", "thread/t1"}) // left p0, as if moved
	is.Equal(gone([]string{"p1"}), nil)                                                                   // in p1 now
	is.Equal(gone(nil), nil)                                                                              // put again: no record
}
