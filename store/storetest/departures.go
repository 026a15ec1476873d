package storetest

import (
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/store"
)

// testDepartures moves items out of a project while they still exist: a
// key restricted to that project sees them in its deletions (issue 19),
// dated when they left; a key restricted to where they went sees them in
// its lists and no deletion; an unrestricted key never sees a deletion of
// an item that still exists. An item that comes back drops its record.
func testDepartures(t *testing.T, open func(t *testing.T) Subject) {
	s, f := seeded(t, open)
	c := s
	d := s
	is := is.New(t)

	s.Advance(tick)
	p3 := want(f.projects, orgA, "p3", projectKey)
	p3.Name += " (changed)"
	is.NoErr(s.PutProject(ctx, p3))
	since := getProject(t, s, orgA, "p3").UpdatedAt
	s.Advance(tick)
	i1 := want(f.invoices, orgA, "i1", invoiceKey)
	i1.ProjectID = ptr("p2") // p1 -> p2
	is.NoErr(s.PutInvoice(ctx, i1))
	movedAt := getInvoice(t, s, orgA, "i1").UpdatedAt
	d1 := want(f.deliverables, orgA, "d1", deliverableKey)
	d1.ProjectID = "p2"
	is.NoErr(s.PutDeliverable(ctx, d1))
	m1 := want(f.milestones, orgA, "m1", milestoneKey)
	m1.ProjectID = "p2"
	is.NoErr(s.PutMilestone(ctx, m1))

	only := func(ids ...string) func(q *store.DeletionQuery) {
		return func(q *store.DeletionQuery) { q.OnlyProjects = ids }
	}
	q := func(mod func(*store.DeletionQuery)) store.DeletionQuery {
		q := store.DeletionQuery{Since: since}
		if mod != nil {
			mod(&q)
		}
		return q
	}
	moved := []string{"deliverable d1", "invoice i1", "milestone m1"}
	checkLists(t, s, []list{
		{"of p1", deletions(c, orgA, q(only("p1"))), moved},
		{"of p2", deletions(c, orgA, q(only("p2"))), []string{}},
		{"of p1 and p2", deletions(c, orgA, q(only("p1", "p2"))), []string{}},
		{"unrestricted", deletions(c, orgA, q(nil)), []string{}},
		{"of p1, invoices", deletions(c, orgA, q(func(q *store.DeletionQuery) { q.OnlyProjects, q.Kind = []string{"p1"}, store.KindInvoice })),
			[]string{"invoice i1"}},
		{"of p1, deliverables only", deletions(c, orgA, q(func(q *store.DeletionQuery) {
			q.OnlyProjects, q.OnlyKinds = []string{"p1"}, []store.Kind{store.KindDeliverable}
		})), []string{"deliverable d1"}},
		{"of p1 since after the move", deletions(c, orgA, store.DeletionQuery{Since: movedAt.Add(tick), OnlyProjects: []string{"p1"}}), []string{}},
		{"org_b's of p1", deletions(c, orgB, q(only("p1"))), []string{}},
		{"invoices of p2", invoices(orgA, store.InvoiceQuery{OnlyProjects: []string{"p2"}}), []string{"i6", "i1", "i4"}},
		{"invoices of p1", invoices(orgA, store.InvoiceQuery{OnlyProjects: []string{"p1"}}), []string{"i3"}},
	})
	walk(t, s, list{"of p1", deletions(c, orgA, q(only("p1"))), moved})
	p, err := c.ListDeletions(ctx, orgA, store.DeletionQuery{PageRequest: all, Since: since, OnlyProjects: []string{"p1"}, Kind: store.KindInvoice})
	is.NoErr(err)
	is.Equal(len(p.Items), 1)
	is.True(!p.Items[0].DeletedAt.Before(since)) // dated at or after the move
	is.True(p.Items[0].DeletedAt.Equal(movedAt)) // with the item's new stamp
	is.Equal(p.Items[0].ProjectID, "p1")         // the project it left

	// Back in p1: the record goes; p2's key now sees i1 leave.
	s.Advance(tick)
	i1.ProjectID = ptr("p1")
	is.NoErr(s.PutInvoice(ctx, i1))
	// Deleted: its deletion record covers it.
	is.NoErr(d.DeleteMilestone(ctx, orgA, "m1"))
	checkLists(t, s, []list{
		{"of p1, i1 back", deletions(c, orgA, q(only("p1"))), []string{"deliverable d1", "milestone m1"}},
		{"of p2, i1 gone", deletions(c, orgA, q(only("p2"))), []string{"invoice i1", "milestone m1"}},
		{"unrestricted, i1 back", deletions(c, orgA, q(nil)), []string{"milestone m1"}},
	})

	// A deleted project's invoices leave it with projectId null.
	s.Advance(tick)
	is.NoErr(d.DeleteProject(ctx, orgA, "p2"))
	p, err = c.ListDeletions(ctx, orgA, store.DeletionQuery{PageRequest: all, Since: since, OnlyProjects: []string{"p2"}, Kind: store.KindInvoice})
	is.NoErr(err)
	is.Equal(ids(p.Items, func(d store.Deletion) string { return d.ID }), []string{"i1", "i4", "i6"})
	p, err = c.ListDeletions(ctx, orgA, store.DeletionQuery{PageRequest: all, Since: since, Kind: store.KindInvoice})
	is.NoErr(err)
	is.Equal(len(p.Items), 0) // an unrestricted key sees the invoices stay
	p, err = c.ListDeletions(ctx, orgA, store.DeletionQuery{PageRequest: all, Since: since, OnlyProjects: []string{"p1"}, Kind: store.KindInvoice})
	is.NoErr(err)
	is.Equal(len(p.Items), 0) // i1 is in p1

	w := s
	// A visible thread moved takes its messages with it; an internal one
	// was never seen, and leaves nothing.
	author := store.Author{Name: "A", Side: store.SideAgency}
	tx := store.Thread{ID: "tx", OrgID: orgA, ProjectID: ptr("p3"), Subject: "s", Status: store.ThreadOpen, CreatedAt: day(3, 9)}
	ti := store.Thread{ID: "ti", OrgID: orgA, ProjectID: ptr("p3"), Subject: "s", Status: store.ThreadOpen, CreatedAt: day(3, 9), Internal: true}
	is.NoErr(w.PutThread(ctx, tx))
	is.NoErr(w.PutThread(ctx, ti))
	is.NoErr(w.PutMessage(ctx, store.Message{ID: "mx", OrgID: orgA, ThreadID: "tx", Author: author, Body: "b", CreatedAt: day(3, 9)}))
	is.NoErr(w.PutMessage(ctx, store.Message{ID: "mi", OrgID: orgA, ThreadID: "ti", Author: author, Body: "b", CreatedAt: day(3, 9)}))
	s.Advance(tick)
	tx.ProjectID, ti.ProjectID = ptr("p5"), ptr("p5")
	is.NoErr(w.PutThread(ctx, tx))
	is.NoErr(w.PutThread(ctx, ti))
	threadsOnly := func(ids ...string) func(q *store.DeletionQuery) {
		return func(q *store.DeletionQuery) {
			q.OnlyProjects, q.OnlyKinds = ids, []store.Kind{store.KindThread, store.KindMessage}
		}
	}
	checkLists(t, s, []list{
		{"threads of p3", deletions(c, orgA, q(threadsOnly("p3"))), []string{"message mx", "thread tx"}},
		{"threads of p5", deletions(c, orgA, q(threadsOnly("p5"))), []string{}},
		{"threads, unrestricted", deletions(c, orgA, q(func(q *store.DeletionQuery) { q.OnlyKinds = []store.Kind{store.KindThread, store.KindMessage} })), []string{}},
	})
	s.Advance(tick)
	tx.ProjectID = ptr("p3")
	is.NoErr(w.PutThread(ctx, tx))
	checkLists(t, s, []list{
		{"threads of p3, tx back", deletions(c, orgA, q(threadsOnly("p3"))), []string{}},
		{"threads of p5, tx gone", deletions(c, orgA, q(threadsOnly("p5"))), []string{"message mx", "thread tx"}},
	})
}
