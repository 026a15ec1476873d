package storetest

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/store"
)

// The cases of restricted keys (see store.Store): every list honours
// OnlyProjects, the deletion records OnlyKinds too, with totals that
// count only what they keep.

// sinceEver is an UpdatedSince before every item: the lists then come in
// change order, with the same items.
var sinceEver = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// testOnlyProjects reads every list restricted to projects: alone, with
// the other filters, empty, naming unknown, another organization's or
// unstorable ids.
func testOnlyProjects(t *testing.T, open func(t *testing.T) Subject) {
	s, _ := seeded(t, open)
	is := is.New(t)
	// A project whose id the unstorable ids below would become, were a
	// store to send them as they are.
	is.NoErr(s.PutProject(ctx, store.Project{ID: "p\ufffd", OrgID: orgA, Name: "Replacement", Status: store.ProjectPlanned}))
	is.NoErr(s.PutDeliverable(ctx, store.Deliverable{ID: "d\ufffd", OrgID: orgA, ProjectID: "p\ufffd", Name: "r", Status: store.DeliverablePending, CreatedAt: day(0, 1)}))
	is.NoErr(s.PutInvoice(ctx, store.Invoice{ID: "i\ufffd", OrgID: orgA, Number: "r", ProjectID: ptr("p\ufffd"), Status: store.InvoiceOpen,
		Currency: "EUR", IssuedAt: day(0, 1), DueAt: day(0, 1)}))
	only := func(ids ...string) []string { return append([]string{}, ids...) }

	lists := []list{
		// org_a's projects: p4, p1, p2, p5, p0, p3 (and p\ufffd last).
		{"projects of p1 and p2", projects(orgA, store.ProjectQuery{OnlyProjects: only("p2", "p1", "p2")}), []string{"p1", "p2"}},
		{"projects of p3, planned", projects(orgA, store.ProjectQuery{OnlyProjects: only("p3"), Status: store.ProjectPlanned}), []string{"p3"}},
		{"projects of p1, planned (none)", projects(orgA, store.ProjectQuery{OnlyProjects: only("p1"), Status: store.ProjectPlanned}), []string{}},
		{"projects of no project", projects(orgA, store.ProjectQuery{OnlyProjects: only()}), []string{}},
		{"projects of unknown and org_b's ids", projects(orgA, store.ProjectQuery{OnlyProjects: only("nope", "pb")}), []string{}},
		{"org_b's projects of p1", projects(orgB, store.ProjectQuery{OnlyProjects: only("p1")}), []string{"p1"}},
		// org_a's deliverables: d4, d2, d1 (p1), d3 (p2), d5 (p4).
		{"deliverables of p1", deliverables(orgA, store.DeliverableQuery{OnlyProjects: only("p1")}), []string{"d4", "d2", "d1"}},
		{"deliverables of p2 and p4", deliverables(orgA, store.DeliverableQuery{OnlyProjects: only("p4", "p2")}), []string{"d3", "d5"}},
		{"deliverables of p1, approved", deliverables(orgA, store.DeliverableQuery{OnlyProjects: only("p1"), Status: store.DeliverableApproved}), []string{"d1"}},
		{"deliverables of p1, asked for p2", deliverables(orgA, store.DeliverableQuery{OnlyProjects: only("p1"), ProjectID: "p2"}), []string{}},
		{"deliverables of p1 and p2, asked for p2", deliverables(orgA, store.DeliverableQuery{OnlyProjects: only("p1", "p2"), ProjectID: "p2"}), []string{"d3"}},
		{"deliverables of no project", deliverables(orgA, store.DeliverableQuery{OnlyProjects: only()}), []string{}},
		{"deliverables of org_b's pb, asked by org_a", deliverables(orgA, store.DeliverableQuery{OnlyProjects: only("pb")}), []string{}},
		{"org_b's deliverables of pb", deliverables(orgB, store.DeliverableQuery{OnlyProjects: only("pb")}), []string{"d1"}},
		// org_a's invoices: i6 (p2), i2 (retainer), i3 (p1), i1 (p1), i4 (p2), i5 (retainer).
		{"invoices of p1", invoices(orgA, store.InvoiceQuery{OnlyProjects: only("p1")}), []string{"i3", "i1"}},
		{"invoices of p1 and p2", invoices(orgA, store.InvoiceQuery{OnlyProjects: only("p1", "p2")}), []string{"i6", "i3", "i1", "i4"}},
		{"invoices of p1 and p2, open (no retainer invoice)", invoices(orgA, store.InvoiceQuery{OnlyProjects: only("p1", "p2"), Status: store.InvoiceOpen}), []string{"i3"}},
		{"invoices of p1, asked for p2", invoices(orgA, store.InvoiceQuery{OnlyProjects: only("p1"), ProjectID: "p2"}), []string{}},
		{"invoices of p3, a project without any", invoices(orgA, store.InvoiceQuery{OnlyProjects: only("p3")}), []string{}},
		{"invoices of no project", invoices(orgA, store.InvoiceQuery{OnlyProjects: only()}), []string{}},
		{"org_b's invoices of p1 (not ib, a retainer invoice)", invoices(orgB, store.InvoiceQuery{OnlyProjects: only("p1")}), []string{"i1"}},
	}
	bad := append(unstorable("p1"), unstorable("p\ufffd")...)
	lists = append(lists,
		list{"projects of unstorable ids", projects(orgA, store.ProjectQuery{OnlyProjects: bad}), []string{}},
		list{"deliverables of unstorable ids", deliverables(orgA, store.DeliverableQuery{OnlyProjects: bad}), []string{}},
		list{"invoices of unstorable ids", invoices(orgA, store.InvoiceQuery{OnlyProjects: bad}), []string{}},
		list{"projects of p1 and unstorable ids", projects(orgA, store.ProjectQuery{OnlyProjects: append(only("p1"), bad...)}), []string{"p1"}},
	)
	// Put in the fixture's order, a change apart: p1 before p2, d1,
	// d2, d4, i1 before i3.
	lists = append(lists,
		list{"projects of p1 and p2, changed since", projects(orgA, store.ProjectQuery{OnlyProjects: only("p1", "p2"), UpdatedSince: sinceEver}), []string{"p1", "p2"}},
		list{"deliverables of p1, changed since", deliverables(orgA, store.DeliverableQuery{OnlyProjects: only("p1"), UpdatedSince: sinceEver}), []string{"d1", "d2", "d4"}},
		list{"invoices of p1, changed since", invoices(orgA, store.InvoiceQuery{OnlyProjects: only("p1"), UpdatedSince: sinceEver}), []string{"i1", "i3"}},
		list{"invoices of no project, changed since", invoices(orgA, store.InvoiceQuery{OnlyProjects: only(), UpdatedSince: sinceEver}), []string{}},
	)
	checkLists(t, s, lists)
	for _, l := range lists {
		walk(t, s, l)
	}
}

// testDeletionsRestricted deletes items of several projects and none, and
// reads the deletion records restricted to projects and to kinds.
func testDeletionsRestricted(t *testing.T, open func(t *testing.T) Subject) {
	s := open(t)
	c := s
	d := s
	f := seedData()
	f.put(t, s)
	is := is.New(t)

	s.Advance(tick)
	p3 := want(f.projects, orgA, "p3", projectKey)
	p3.Name += " (changed)"
	is.NoErr(s.PutProject(ctx, p3))
	since := getProject(t, s, orgA, "p3").UpdatedAt
	for _, del := range []func() error{
		func() error { return d.DeleteInvoice(ctx, orgA, "i5") },     // a retainer invoice
		func() error { return d.DeleteInvoice(ctx, orgA, "i4") },     // of p2
		func() error { return d.DeleteDeliverable(ctx, orgA, "d3") }, // of p2
		func() error { return d.DeleteMilestone(ctx, orgA, "m5") },   // of p2
		func() error { return d.DeleteDeliverable(ctx, orgA, "d2") }, // of p1
		func() error { return d.DeleteProject(ctx, orgA, "p4") },     // with its deliverable d5
		func() error { return d.DeleteInvoice(ctx, orgB, "i1") },     // org_b's, of its p1
	} {
		s.Advance(tick)
		is.NoErr(del()) // deleting
	}
	q := func(mod func(*store.DeletionQuery)) store.DeletionQuery {
		q := store.DeletionQuery{Since: since}
		mod(&q)
		return q
	}
	lists := []list{
		{"all", deletions(c, orgA, q(func(*store.DeletionQuery) {})),
			[]string{"invoice i5", "invoice i4", "deliverable d3", "milestone m5", "deliverable d2", "deliverable d5", "project p4"}},
		{"of p1", deletions(c, orgA, q(func(q *store.DeletionQuery) { q.OnlyProjects = []string{"p1"} })), []string{"deliverable d2"}},
		{"of p2", deletions(c, orgA, q(func(q *store.DeletionQuery) { q.OnlyProjects = []string{"p2"} })),
			[]string{"invoice i4", "deliverable d3", "milestone m5"}},
		{"of p4, deleted", deletions(c, orgA, q(func(q *store.DeletionQuery) { q.OnlyProjects = []string{"p4"} })),
			[]string{"deliverable d5", "project p4"}},
		{"of p4 and p1", deletions(c, orgA, q(func(q *store.DeletionQuery) { q.OnlyProjects = []string{"p4", "p1"} })),
			[]string{"deliverable d2", "deliverable d5", "project p4"}},
		{"of no project", deletions(c, orgA, q(func(q *store.DeletionQuery) { q.OnlyProjects = []string{} })), []string{}},
		{"of unknown and unstorable projects", deletions(c, orgA, q(func(q *store.DeletionQuery) { q.OnlyProjects = append([]string{"nope"}, unstorable("p1")...) })), []string{}},
		{"of p2, deliverables", deletions(c, orgA, q(func(q *store.DeletionQuery) { q.OnlyProjects, q.Kind = []string{"p2"}, store.KindDeliverable })),
			[]string{"deliverable d3"}},
		{"invoices only", deletions(c, orgA, q(func(q *store.DeletionQuery) { q.OnlyKinds = []store.Kind{store.KindInvoice} })),
			[]string{"invoice i5", "invoice i4"}},
		{"invoices and deliverables", deletions(c, orgA, q(func(q *store.DeletionQuery) {
			q.OnlyKinds = []store.Kind{store.KindDeliverable, store.KindInvoice}
		})), []string{"invoice i5", "invoice i4", "deliverable d3", "deliverable d2", "deliverable d5"}},
		{"no kind", deletions(c, orgA, q(func(q *store.DeletionQuery) { q.OnlyKinds = []store.Kind{} })), []string{}},
		{"invoices of p2", deletions(c, orgA, q(func(q *store.DeletionQuery) {
			q.OnlyKinds, q.OnlyProjects = []store.Kind{store.KindInvoice}, []string{"p2"}
		})), []string{"invoice i4"}},
		{"deliverables, of invoices only", deletions(c, orgA, q(func(q *store.DeletionQuery) {
			q.Kind, q.OnlyKinds = store.KindDeliverable, []store.Kind{store.KindInvoice}
		})), []string{}},
		{"org_b's of p1", deletions(c, orgB, q(func(q *store.DeletionQuery) { q.OnlyProjects = []string{"p1"} })), []string{"invoice i1"}},
	}
	// A key restricted to a project deleted since sees nothing of it.
	lists = append(lists,
		list{"projects of deleted p4", projects(orgA, store.ProjectQuery{OnlyProjects: []string{"p4"}}), []string{}},
		list{"deliverables of deleted p4", deliverables(orgA, store.DeliverableQuery{OnlyProjects: []string{"p4"}}), []string{}},
	)
	checkLists(t, s, lists)
	for _, l := range lists {
		walk(t, s, l)
	}
	_, err := c.ListDeletions(ctx, orgA, store.DeletionQuery{PageRequest: all, Since: since.Add(-400 * 24 * time.Hour),
		OnlyKinds: []store.Kind{}, OnlyProjects: []string{}})
	is.True(errors.Is(err, store.ErrSinceTooOld)) // a restriction that keeps nothing still refuses a since too old
}

// testThreadsRestricted reads threads, messages and attachments restricted
// to projects, for a store that holds threads (store.Threads and
// store.ThreadWriter). Orders are the Threads cases'; here only which
// items come, and their totals.
func testThreadsRestricted(t *testing.T, open func(t *testing.T) Subject) {
	s, _ := seeded(t, open)
	th := s
	w := s
	is := is.New(t)
	for _, tr := range []store.Thread{
		{ID: "t1", OrgID: orgA, ProjectID: ptr("p1"), Subject: "Launch", Status: store.ThreadOpen, CreatedAt: day(1, 9)},
		{ID: "t2", OrgID: orgA, ProjectID: ptr("p2"), Subject: "Logo", Status: store.ThreadOpen, CreatedAt: day(1, 9)},
		{ID: "t0", OrgID: orgA, Subject: "Retainer", Status: store.ThreadOpen, CreatedAt: day(1, 9)},
	} {
		is.NoErr(w.PutThread(ctx, tr)) // seeding a thread
	}
	for i, tr := range []string{"t1", "t2", "t0"} {
		is.NoErr(w.PutMessage(ctx, store.Message{ID: "msg" + tr, OrgID: orgA, ThreadID: tr,
			Author: store.Author{Name: "Ana", Side: store.SideAgency}, Body: "hello", CreatedAt: day(2, i),
			Attachments: []store.Attachment{{ID: "att" + tr, FileName: "f.txt", ContentType: "text/plain", SizeBytes: 1, FileKey: "k" + tr}}})) // seeding a message
	}
	threadIDs := func(q store.ThreadQuery) ([]string, int) {
		q.PageRequest = all
		p, err := th.ListThreads(ctx, orgA, q)
		is.NoErr(err)
		return sortedIDs(p.Items, func(t store.Thread) string { return t.ID }), p.Total
	}
	messageIDs := func(q store.MessageQuery) ([]string, int) {
		q.PageRequest = all
		p, err := th.ListMessages(ctx, orgA, q)
		is.NoErr(err)
		return sortedIDs(p.Items, func(m store.Message) string { return m.ID }), p.Total
	}
	for _, tt := range []struct {
		name  string
		got   func() ([]string, int)
		wantI []string
	}{
		{"threads of p1", func() ([]string, int) { return threadIDs(store.ThreadQuery{OnlyProjects: []string{"p1"}}) }, []string{"t1"}},
		{"threads of p1 and p2", func() ([]string, int) { return threadIDs(store.ThreadQuery{OnlyProjects: []string{"p1", "p2"}}) }, []string{"t1", "t2"}},
		{"threads of p1, asked for p2", func() ([]string, int) {
			return threadIDs(store.ThreadQuery{OnlyProjects: []string{"p1"}, ProjectID: "p2"})
		}, []string{}},
		{"threads of no project", func() ([]string, int) { return threadIDs(store.ThreadQuery{OnlyProjects: []string{}}) }, []string{}},
		{"messages of p2", func() ([]string, int) { return messageIDs(store.MessageQuery{OnlyProjects: []string{"p2"}}) }, []string{"msgt2"}},
		{"messages of p1, asked for t2", func() ([]string, int) {
			return messageIDs(store.MessageQuery{OnlyProjects: []string{"p1"}, ThreadID: "t2"})
		}, []string{}},
		{"messages of no project", func() ([]string, int) { return messageIDs(store.MessageQuery{OnlyProjects: []string{}}) }, []string{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			got, total := tt.got()
			is.Equal(got, tt.wantI)        // only the restricted projects' items
			is.Equal(total, len(tt.wantI)) // and the total counts only them
		})
	}
	_, err := th.ListThreadMessages(ctx, orgA, "t1", store.MessageQuery{PageRequest: all, OnlyProjects: []string{"p1"}})
	is.NoErr(err) // a thread of the key's projects
	for _, id := range []string{"t2", "t0"} {
		_, err := th.ListThreadMessages(ctx, orgA, id, store.MessageQuery{PageRequest: all, OnlyProjects: []string{"p1"}})
		is.True(errors.Is(err, store.ErrNotFound)) // another project's thread, or an organization-wide one, is not found
	}
	for id, want := range map[string]string{"attt1": "p1", "attt2": "p2", "attt0": ""} {
		a, err := th.GetAttachment(ctx, orgA, id)
		is.NoErr(err)
		got := ""
		if a.ProjectID != nil {
			got = *a.ProjectID
		}
		is.Equal(got, want) // GetAttachment names the project of the attachment's thread
	}
}

// sortedIDs returns the items' ids, sorted; never nil.
func sortedIDs[T any](items []T, id func(T) string) []string {
	out := ids(items, id)
	slices.Sort(out)
	return out
}
