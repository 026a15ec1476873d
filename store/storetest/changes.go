package storetest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/clientstatus/clientstatus/store"
	"github.com/matryer/is"
)

// The cases of store.Changes (UpdatedAt set by the store, UpdatedSince,
// deletion records), and of the write side's store.Deleter (deletes and
// their cascades), which run for a Subject that implements it and are
// skipped for one that does not. Those that need writes dated apart move
// the Subject's clock (Clocked) and never sleep: they are skipped, saying
// so, for a Subject without one.

// tick is how far the suite moves a Subject's clock between writes that
// must be dated apart: the second every store keeps (the wire's
// precision, issue 26).
const tick = time.Second

// clockSkew is how far apart the clocks of a store (a database server's)
// and of the test may be.
const clockSkew = time.Second

// updatedAtCheck returns the check of an item's UpdatedAt, which same
// leaves out. UpdatedAt is the store's (store.Changes): set while the
// items were put (from..to), in UTC, whatever the item given held.
func updatedAtCheck(_ Subject, from, to time.Time) func(is *is.I, got, want time.Time) {
	return func(is *is.I, got, _ time.Time) {
		is.Helper()
		within(is, got, from, to)
	}
}

// within checks that a time the store set is in UTC and between from and
// to, give or take clockSkew: not in the future, and not a time given to
// a Put.
func within(is *is.I, at, from, to time.Time) {
	is.Helper()
	is.Equal(at.Location(), time.UTC)           // a time the store sets is in UTC
	is.True(!at.Before(from.Add(-clockSkew)))   // a time the store sets is its own: not before the write
	is.True(!at.After(to.Add(clockSkew)))       // a time the store sets is not in the future
	is.True(at.Equal(at.Truncate(time.Second))) // a time the store sets is truncated to the second
}

// The items of the fixture, by organization and id.

func projectKey(p store.Project) (string, string)         { return p.OrgID, p.ID }
func milestoneKey(m store.Milestone) (string, string)     { return m.OrgID, m.ID }
func deliverableKey(d store.Deliverable) (string, string) { return d.OrgID, d.ID }
func invoiceKey(i store.Invoice) (string, string)         { return i.OrgID, i.ID }

// The items as a store holds them now.

func getProject(t *testing.T, s Subject, org, id string) store.Project {
	t.Helper()
	p, err := s.GetProject(ctx, org, id)
	if err != nil {
		t.Fatalf("project %s/%s: %v", org, id, err)
	}
	return p
}

func getMilestone(t *testing.T, s Subject, org, project, id string) store.Milestone {
	t.Helper()
	page, err := s.ListMilestones(ctx, org, project, store.MilestoneQuery{PageRequest: all})
	if err != nil {
		t.Fatalf("milestones of %s/%s: %v", org, project, err)
	}
	return find(t, page.Items, id, func(m store.Milestone) string { return m.ID })
}

func getDeliverable(t *testing.T, s Subject, org, id string) store.Deliverable {
	t.Helper()
	d, err := s.GetDeliverable(ctx, org, id)
	if err != nil {
		t.Fatalf("deliverable %s/%s: %v", org, id, err)
	}
	return d
}

func getInvoice(t *testing.T, s Subject, org, id string) store.Invoice {
	t.Helper()
	page, err := s.ListInvoices(ctx, org, store.InvoiceQuery{PageRequest: all})
	if err != nil {
		t.Fatalf("invoices of %s: %v", org, err)
	}
	return find(t, page.Items, id, func(i store.Invoice) string { return i.ID })
}

// checkLists checks each list's items, in order, and total.
func checkLists(t *testing.T, s store.Store, lists []list) {
	t.Helper()
	for _, l := range lists {
		t.Run(l.name, func(t *testing.T) {
			is := is.New(t)
			got, total, err := l.fetch(ctx, s, all)
			is.NoErr(err)
			is.Equal(got, l.want)        // the items, in order
			is.Equal(total, len(l.want)) // the total counts them
		})
	}
}

// walk reads a list page by page and checks that the pages hold every item
// once, in order, with the true total on each, a page past the end
// included.
func walk(t *testing.T, s store.Store, l list) {
	t.Helper()
	for _, limit := range []int{1, 2, 3, 100} {
		t.Run(fmt.Sprintf("%s, limit %d", l.name, limit), func(t *testing.T) {
			is := is.New(t)
			walked := []string{}
			pages := (len(l.want) + limit - 1) / limit
			for n := 1; n <= pages+1; n++ {
				got, total, err := l.fetch(ctx, s, store.PageRequest{Page: n, Limit: limit})
				is.NoErr(err)
				is.Equal(total, len(l.want)) // total is the same on every page
				is.True(len(got) <= limit)   // a page holds at most limit items
				if n < pages {
					is.Equal(len(got), limit) // only the last page may be short
				}
				if n > pages {
					is.Equal(len(got), 0) // a page past the end is empty
				}
				walked = append(walked, got...)
			}
			is.Equal(walked, l.want) // the pages hold every item once, in order
		})
	}
}

// testUpdatedAt checks that UpdatedAt is the store's: kept by a put that
// changes nothing, moved forward by one that changes anything a client
// sees, never taken from the item given.
func testUpdatedAt(t *testing.T, open func(t *testing.T) Subject) {
	s := open(t)
	f := seedData()
	f.put(t, s)
	s.Advance(tick)

	// Putting every item again, as it was, with another UpdatedAt and
	// its times in another zone, changes nothing.
	before := map[string]time.Time{}
	for _, p := range f.projects {
		before["project "+p.OrgID+"/"+p.ID] = getProject(t, s, p.OrgID, p.ID).UpdatedAt
		p.UpdatedAt = day(99, 0)
		p.StartedAt, p.DueAt = utc(p.StartedAt), utc(p.DueAt)
		if err := s.PutProject(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range f.milestones {
		before["milestone "+m.OrgID+"/"+m.ID] = getMilestone(t, s, m.OrgID, m.ProjectID, m.ID).UpdatedAt
		m.UpdatedAt = day(-99, 0)
		m.DueAt, m.CompletedAt = m.DueAt.UTC(), utc(m.CompletedAt)
		if err := s.PutMilestone(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range f.deliverables {
		before["deliverable "+d.OrgID+"/"+d.ID] = getDeliverable(t, s, d.OrgID, d.ID).UpdatedAt
		d.UpdatedAt = s.Now().Add(time.Hour)
		d.CreatedAt = d.CreatedAt.UTC()
		if err := s.PutDeliverable(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	for _, i := range f.invoices {
		before["invoice "+i.OrgID+"/"+i.ID] = getInvoice(t, s, i.OrgID, i.ID).UpdatedAt
		i.UpdatedAt = day(99, 0)
		i.IssuedAt, i.PaidAt = i.IssuedAt.UTC(), utc(i.PaidAt)
		if err := s.PutInvoice(ctx, i); err != nil {
			t.Fatal(err)
		}
	}
	after := map[string]time.Time{}
	for _, p := range f.projects {
		after["project "+p.OrgID+"/"+p.ID] = getProject(t, s, p.OrgID, p.ID).UpdatedAt
	}
	for _, m := range f.milestones {
		after["milestone "+m.OrgID+"/"+m.ID] = getMilestone(t, s, m.OrgID, m.ProjectID, m.ID).UpdatedAt
	}
	for _, d := range f.deliverables {
		after["deliverable "+d.OrgID+"/"+d.ID] = getDeliverable(t, s, d.OrgID, d.ID).UpdatedAt
	}
	for _, i := range f.invoices {
		after["invoice "+i.OrgID+"/"+i.ID] = getInvoice(t, s, i.OrgID, i.ID).UpdatedAt
	}
	for item, at := range before {
		t.Run("unchanged "+item, func(t *testing.T) {
			is := is.New(t)
			is.True(after[item].Equal(at)) // a put that changes nothing keeps UpdatedAt
		})
	}

	// Each change, however small, moves UpdatedAt forward, to the time of
	// the put.
	p1 := want(f.projects, orgA, "p1", projectKey)
	p3 := want(f.projects, orgA, "p3", projectKey)
	m2 := want(f.milestones, orgA, "m2", milestoneKey)
	d1 := want(f.deliverables, orgA, "d1", deliverableKey)
	d5 := want(f.deliverables, orgA, "d5", deliverableKey)
	i1 := want(f.invoices, orgA, "i1", invoiceKey)
	i5 := want(f.invoices, orgA, "i5", invoiceKey)
	projectAt := func(id string) func() time.Time {
		return func() time.Time { return getProject(t, s, orgA, id).UpdatedAt }
	}
	milestoneAt := func(id string) func() time.Time {
		return func() time.Time { return getMilestone(t, s, orgA, "p1", id).UpdatedAt }
	}
	deliverableAt := func(id string) func() time.Time {
		return func() time.Time { return getDeliverable(t, s, orgA, id).UpdatedAt }
	}
	invoiceAt := func(id string) func() time.Time {
		return func() time.Time { return getInvoice(t, s, orgA, id).UpdatedAt }
	}
	tests := []struct {
		name string
		put  func() error
		at   func() time.Time
	}{
		{"project name", func() error { p1.Name += " (new)"; return s.PutProject(ctx, p1) }, projectAt("p1")},
		{"project status", func() error { p1.Status = store.ProjectOnHold; return s.PutProject(ctx, p1) }, projectAt("p1")},
		{"project due date cleared", func() error { p1.DueAt = nil; return s.PutProject(ctx, p1) }, projectAt("p1")},
		{"project started, with an old UpdatedAt given", func() error {
			p3.StartedAt, p3.UpdatedAt = ptr(day(70, 9)), day(-10, 0)
			return s.PutProject(ctx, p3)
		}, projectAt("p3")},
		{"project start by a second", func() error { *p3.StartedAt = p3.StartedAt.Add(time.Second); return s.PutProject(ctx, p3) }, projectAt("p3")},
		{"milestone completed", func() error {
			m2.CompletedAt = ptr(day(15, 9))
			return s.PutMilestone(ctx, m2)
		}, milestoneAt("m2")},
		{"milestone moved", func() error { m2.DueAt = m2.DueAt.Add(time.Hour); return s.PutMilestone(ctx, m2) }, milestoneAt("m2")},
		{"deliverable file key only", func() error { d1.FileKey += ".v2"; return s.PutDeliverable(ctx, d1) }, deliverableAt("d1")},
		{"deliverable file withdrawn", func() error {
			d5.FileName, d5.ContentType, d5.SizeBytes, d5.FileKey = nil, nil, nil, ""
			return s.PutDeliverable(ctx, d5)
		}, deliverableAt("d5")},
		{"deliverable size from 0 to 1", func() error {
			d1.SizeBytes = ptr(int64(1))
			return s.PutDeliverable(ctx, d1)
		}, deliverableAt("d1")},
		{"invoice amount due", func() error { i1.AmountDue++; return s.PutInvoice(ctx, i1) }, invoiceAt("i1")},
		{"invoice project taken", func() error { i1.ProjectID = nil; return s.PutInvoice(ctx, i1) }, invoiceAt("i1")},
		{"invoice project given", func() error { i5.ProjectID = ptr("p2"); return s.PutInvoice(ctx, i5) }, invoiceAt("i5")},
		{"invoice paid, with a future UpdatedAt given", func() error {
			i5.PaidAt, i5.UpdatedAt = ptr(day(2, 0)), s.Now().Add(24*time.Hour)
			return s.PutInvoice(ctx, i5)
		}, invoiceAt("i5")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			old := tt.at()
			s.Advance(tick)
			from := s.Now()
			is.NoErr(tt.put())
			to := s.Now()
			now := tt.at()
			is.True(now.After(old)) // a change moves UpdatedAt forward
			within(is, now, from, to)
		})
	}

	// A new item gets the time of its put, whatever it held.
	is := is.New(t)
	from := s.Now()
	is.NoErr(s.PutProject(ctx, store.Project{ID: "p9", OrgID: orgA, Name: "New", Status: store.ProjectPlanned, UpdatedAt: day(1, 0)}))
	is.NoErr(s.PutMilestone(ctx, store.Milestone{ID: "m9", OrgID: orgA, ProjectID: "p1", Name: "New", Status: store.MilestonePending, DueAt: day(1, 0),
		UpdatedAt: s.Now().Add(time.Hour)}))
	to := s.Now()
	within(is, getProject(t, s, orgA, "p9").UpdatedAt, from, to)
	within(is, getMilestone(t, s, orgA, "p1", "m9").UpdatedAt, from, to)
}

// utc returns *t in UTC, nil for nil.
func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	return ptr(t.UTC())
}

// testUpdatedSince changes items one by one, time apart, and reads every
// list since the first change: with each filter, page by page, and at
// its bounds.
func testUpdatedSince(t *testing.T, open func(t *testing.T) Subject) {
	s := open(t)
	from := s.Now()
	f := seedData()
	f.put(t, s)

	// The order in which items change, kinds interleaved; statuses and
	// projects stay as seeded.
	p := func(org, id string) store.Project { return want(f.projects, org, id, projectKey) }
	m := func(id string) store.Milestone { return want(f.milestones, orgA, id, milestoneKey) }
	d := func(id string) store.Deliverable { return want(f.deliverables, orgA, id, deliverableKey) }
	i := func(org, id string) store.Invoice { return want(f.invoices, org, id, invoiceKey) }
	touched := []any{
		p(orgA, "p3"), m("m4"), i(orgA, "i5"), d("d5"),
		p(orgA, "p1"), m("m2"), i(orgA, "i1"), d("d1"),
		p(orgB, "p1"), i(orgB, "ib"),
		p(orgA, "p5"), m("m5"), i(orgA, "i6"), d("d3"), i(orgA, "i2"),
	}
	var since, last time.Time // of the first and the last change of org_a
	for n, item := range touched {
		s.Advance(tick)
		var err error
		var at func() time.Time
		switch v := item.(type) {
		case store.Project:
			v.Name += " (changed)"
			err = s.PutProject(ctx, v)
			at = func() time.Time { return getProject(t, s, v.OrgID, v.ID).UpdatedAt }
		case store.Milestone:
			v.Name += " (changed)"
			err = s.PutMilestone(ctx, v)
			at = func() time.Time { return getMilestone(t, s, v.OrgID, v.ProjectID, v.ID).UpdatedAt }
		case store.Deliverable:
			v.Name += " (changed)"
			err = s.PutDeliverable(ctx, v)
			at = func() time.Time { return getDeliverable(t, s, v.OrgID, v.ID).UpdatedAt }
		case store.Invoice:
			v.Number += "-2"
			err = s.PutInvoice(ctx, v)
			at = func() time.Time { return getInvoice(t, s, v.OrgID, v.ID).UpdatedAt }
		}
		if err != nil {
			t.Fatalf("changing item %d: %v", n, err)
		}
		if n == 0 {
			since = at()
		}
		last = at()
	}
	after := last.Add(time.Microsecond)
	since1 := getProject(t, s, orgA, "p1").UpdatedAt

	lists := []list{
		{"projects", projects(orgA, store.ProjectQuery{UpdatedSince: since}), []string{"p3", "p1", "p5"}},
		{"projects planned", projects(orgA, store.ProjectQuery{UpdatedSince: since, Status: store.ProjectPlanned}), []string{"p3"}},
		{"projects in_progress", projects(orgA, store.ProjectQuery{UpdatedSince: since, Status: store.ProjectInProgress}), []string{"p1"}},
		{"projects on_hold (none changed)", projects(orgA, store.ProjectQuery{UpdatedSince: since, Status: store.ProjectOnHold}), []string{}},
		{"projects since p1's change (inclusive)", projects(orgA, store.ProjectQuery{UpdatedSince: since1}), []string{"p1", "p5"}},
		{"projects just after p1's change", projects(orgA, store.ProjectQuery{UpdatedSince: since1.Add(time.Microsecond)}), []string{"p5"}},
		{"projects after the last change", projects(orgA, store.ProjectQuery{UpdatedSince: after}), []string{}},
		{"projects of org_b", projects(orgB, store.ProjectQuery{UpdatedSince: since}), []string{"p1"}},
		{"projects of an unknown organization", projects("org_unknown", store.ProjectQuery{UpdatedSince: since}), []string{}},

		{"milestones of p1", milestones(orgA, "p1", store.MilestoneQuery{UpdatedSince: since}), []string{"m4", "m2"}},
		{"milestones of p1 completed", milestones(orgA, "p1", store.MilestoneQuery{UpdatedSince: since, Status: store.MilestoneCompleted}), []string{"m2"}},
		{"milestones of p1 in_progress (none changed)", milestones(orgA, "p1", store.MilestoneQuery{UpdatedSince: since, Status: store.MilestoneInProgress}), []string{}},
		{"milestones of p2", milestones(orgA, "p2", store.MilestoneQuery{UpdatedSince: since}), []string{"m5"}},
		{"milestones of p3 (none)", milestones(orgA, "p3", store.MilestoneQuery{UpdatedSince: since}), []string{}},
		{"milestones of p1 since p1's change", milestones(orgA, "p1", store.MilestoneQuery{UpdatedSince: since1}), []string{"m2"}},
		{"milestones of p1 after the last change", milestones(orgA, "p1", store.MilestoneQuery{UpdatedSince: after}), []string{}},
		{"milestones of org_b p1 (none changed)", milestones(orgB, "p1", store.MilestoneQuery{UpdatedSince: since}), []string{}},

		{"deliverables", deliverables(orgA, store.DeliverableQuery{UpdatedSince: since}), []string{"d5", "d1", "d3"}},
		{"deliverables approved", deliverables(orgA, store.DeliverableQuery{UpdatedSince: since, Status: store.DeliverableApproved}), []string{"d5", "d1"}},
		{"deliverables of p1", deliverables(orgA, store.DeliverableQuery{UpdatedSince: since, ProjectID: "p1"}), []string{"d1"}},
		{"deliverables of p1 approved", deliverables(orgA, store.DeliverableQuery{UpdatedSince: since, ProjectID: "p1", Status: store.DeliverableApproved}), []string{"d1"}},
		{"deliverables of p1 rejected (none changed)", deliverables(orgA, store.DeliverableQuery{UpdatedSince: since, ProjectID: "p1", Status: store.DeliverableRejected}), []string{}},
		{"deliverables of an unknown project", deliverables(orgA, store.DeliverableQuery{UpdatedSince: since, ProjectID: "nope"}), []string{}},
		{"deliverables since p1's change", deliverables(orgA, store.DeliverableQuery{UpdatedSince: since1}), []string{"d1", "d3"}},
		{"deliverables after the last change", deliverables(orgA, store.DeliverableQuery{UpdatedSince: after}), []string{}},
		{"deliverables of org_b (none changed)", deliverables(orgB, store.DeliverableQuery{UpdatedSince: since}), []string{}},

		{"invoices", invoices(orgA, store.InvoiceQuery{UpdatedSince: since}), []string{"i5", "i1", "i6", "i2"}},
		{"invoices paid", invoices(orgA, store.InvoiceQuery{UpdatedSince: since, Status: store.InvoicePaid}), []string{"i1", "i6"}},
		{"invoices of p2", invoices(orgA, store.InvoiceQuery{UpdatedSince: since, ProjectID: "p2"}), []string{"i6"}},
		{"invoices of p2 paid", invoices(orgA, store.InvoiceQuery{UpdatedSince: since, ProjectID: "p2", Status: store.InvoicePaid}), []string{"i6"}},
		{"invoices of p1 open (none changed)", invoices(orgA, store.InvoiceQuery{UpdatedSince: since, ProjectID: "p1", Status: store.InvoiceOpen}), []string{}},
		{"invoices of an unknown project", invoices(orgA, store.InvoiceQuery{UpdatedSince: since, ProjectID: "nope"}), []string{}},
		{"invoices since p1's change", invoices(orgA, store.InvoiceQuery{UpdatedSince: since1}), []string{"i1", "i6", "i2"}},
		{"invoices after the last change", invoices(orgA, store.InvoiceQuery{UpdatedSince: after}), []string{}},
		{"invoices of org_b", invoices(orgB, store.InvoiceQuery{UpdatedSince: since}), []string{"ib"}},
	}
	checkLists(t, s, lists)
	for _, l := range lists {
		walk(t, s, l)
	}

	// Since before everything: every item, in order of change, ties (the
	// seeding may date several items alike) broken by id.
	early := from.Add(-clockSkew)
	t.Run("since before everything", func(t *testing.T) {
		is := is.New(t)
		ps, err := s.ListProjects(ctx, orgA, store.ProjectQuery{PageRequest: all, UpdatedSince: early})
		is.NoErr(err)
		is.NoErr(inChangeOrder(ps.Items, func(p store.Project) (time.Time, string) { return p.UpdatedAt, p.ID }))
		is.Equal(ps.Total, 6)                                                                                 // every project of org_a
		is.Equal(ids(ps.Items, func(p store.Project) string { return p.ID })[3:], []string{"p3", "p1", "p5"}) // the changed projects come last
		ms, err := s.ListMilestones(ctx, orgA, "p1", store.MilestoneQuery{PageRequest: all, UpdatedSince: early})
		is.NoErr(err)
		is.NoErr(inChangeOrder(ms.Items, func(m store.Milestone) (time.Time, string) { return m.UpdatedAt, m.ID }))
		is.Equal(ms.Total, 4) // every milestone of p1
		ds, err := s.ListDeliverables(ctx, orgA, store.DeliverableQuery{PageRequest: all, UpdatedSince: early})
		is.NoErr(err)
		is.NoErr(inChangeOrder(ds.Items, func(d store.Deliverable) (time.Time, string) { return d.UpdatedAt, d.ID }))
		is.Equal(ds.Total, 5)                                                                                     // every deliverable of org_a
		is.Equal(ids(ds.Items, func(d store.Deliverable) string { return d.ID })[2:], []string{"d5", "d1", "d3"}) // the changed deliverables come last
		inv, err := s.ListInvoices(ctx, orgA, store.InvoiceQuery{PageRequest: all, UpdatedSince: early})
		is.NoErr(err)
		is.NoErr(inChangeOrder(inv.Items, func(i store.Invoice) (time.Time, string) { return i.UpdatedAt, i.ID }))
		is.Equal(inv.Total, 6) // every invoice of org_a
	})

	// A put that changes nothing leaves an item where it is; a change
	// moves it to the end.
	is := is.New(t)
	p3 := p(orgA, "p3")
	p3.Name += " (changed)"
	is.NoErr(s.PutProject(ctx, p3)) // the same change again
	checkLists(t, s, lists[:1])
	s.Advance(tick)
	p3.Name += " (again)"
	is.NoErr(s.PutProject(ctx, p3)) // a new change
	checkLists(t, s, []list{{"projects, p3 changed again", projects(orgA, store.ProjectQuery{UpdatedSince: since}), []string{"p1", "p5", "p3"}}})
}

// inChangeOrder reports items out of the order of an UpdatedSince list:
// UpdatedAt ascending, then id.
func inChangeOrder[T any](items []T, key func(T) (time.Time, string)) error {
	for k := 1; k < len(items); k++ {
		at1, id1 := key(items[k-1])
		at2, id2 := key(items[k])
		if at1.After(at2) || at1.Equal(at2) && id1 >= id2 {
			return fmt.Errorf("%s (updated %s) listed before %s (updated %s)", id1, at1, id2, at2)
		}
	}
	return nil
}

// testConcurrentChanges puts and deletes while other goroutines read
// changes and deletions; run it with -race. Every read must see a
// consistent, ordered list.
func testConcurrentChanges(t *testing.T, open func(t *testing.T) Subject) {
	s := open(t)
	c := s
	d := s
	seedData().put(t, s)
	is := is.New(t)
	s.Advance(tick)
	p3 := want(seedData().projects, orgA, "p3", projectKey)
	p3.Name += " (changed)"
	is.NoErr(s.PutProject(ctx, p3))
	since := getProject(t, s, orgA, "p3").UpdatedAt
	const writers, readers, each = 4, 4, 20

	errs := make(chan error, (writers+readers)*each*2)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for n := range each {
				i := store.Invoice{ID: fmt.Sprintf("w%d-%02d", w, n), OrgID: orgA, Number: "W", Status: store.InvoiceOpen,
					Currency: "USD", Total: int64(n), AmountDue: int64(n), IssuedAt: day(n, w), DueAt: day(n+30, 0)}
				if err := s.PutInvoice(ctx, i); err != nil {
					errs <- err
				}
				if n%2 == 0 {
					if err := d.DeleteInvoice(ctx, orgA, i.ID); err != nil {
						errs <- err
					}
				}
			}
		})
	}
	for r := range readers {
		wg.Go(func() {
			for n := range each {
				page, err := s.ListInvoices(ctx, orgA, store.InvoiceQuery{UpdatedSince: since, PageRequest: store.PageRequest{Page: 1 + n%2, Limit: 5 + r}})
				if err != nil {
					errs <- err
					continue
				}
				if err := inChangeOrder(page.Items, func(i store.Invoice) (time.Time, string) { return i.UpdatedAt, i.ID }); err != nil {
					errs <- err
				}
				feed, err := c.ListDeletions(ctx, orgA, store.DeletionQuery{Since: since, PageRequest: store.PageRequest{Page: 1, Limit: 5 + r}})
				if err != nil {
					errs <- err
					continue
				}
				if err := inFeedOrder(feed.Items); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		is.NoErr(err) // no concurrent call fails
	}

	changed, err := s.ListInvoices(ctx, orgA, store.InvoiceQuery{UpdatedSince: since, PageRequest: store.PageRequest{Page: 1, Limit: 1}})
	is.NoErr(err)
	is.Equal(changed.Total, writers*each/2) // every invoice kept is listed as changed
	feed, err := c.ListDeletions(ctx, orgA, store.DeletionQuery{Since: since, PageRequest: store.PageRequest{Page: 1, Limit: 1}})
	is.NoErr(err)
	is.Equal(feed.Total, writers*each/2) // every deletion is recorded
}

// Clocked is the optional interface of a Subject whose clock the suite
// moves: Now is the time the store dates its writes from, and Advance
// moves it forward. The suite lets time pass (a tick between writes that
// must be dated apart) by Advance, at no cost and never by sleeping; the
// cases that need it are skipped, saying so, for any other Subject. A
// store with a clock option (store.WithClock, bunstore.WithClock) becomes
// one by embedding, beside it, the clock it was given:
//
//	type clocked struct {
//		*store.Memory
//		*manualClock // Now and Advance, safe for concurrent use
//	}
type Clocked interface {
	Now() time.Time
	Advance(d time.Duration)
}
