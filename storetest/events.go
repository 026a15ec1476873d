package storetest

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/store"
)

// The change spine read as events (store.Events), for a store that also
// deletes (store.Deleter) and holds threads: every visible change is an
// event, with its cascades, its changes of status and its internal rules;
// a cursor resumes exactly where a full read goes on; an unknown one is
// store.ErrUnknownCursor; the order never changes once read; restricted
// queries see only their kinds and projects; a watcher is woken by a
// write.

// eventsCase returns the case that runs cases as subtests, each on a
// store holding the organizations org_a and org_b.
func eventsCase(cases []suiteCase) func(t *testing.T, open func(t *testing.T) subject) {
	return func(t *testing.T, open func(t *testing.T) subject) {
		openE := func(t *testing.T) subject {
			s := open(t)
			is := is.New(t)
			is.NoErr(s.PutOrganization(ctx, store.Organization{ID: orgA, Name: "Acme", Plan: "growth", RetainerActive: true, APIEnabled: true}))
			is.NoErr(s.PutOrganization(ctx, store.Organization{ID: orgB, Name: "Bolt", Plan: "growth", RetainerActive: true, APIEnabled: true}))
			return s
		}
		for _, tt := range cases {
			t.Run(tt.name, func(t *testing.T) { tt.run(t, openE) })
		}
	}
}

// ev is what the cases compare of an event: its type, item, project,
// thread and previous status.
type ev struct {
	Type, ItemID, ProjectID, ThreadID, PreviousStatus string
}

func evOf(e store.Event) ev {
	return ev{e.Type, e.ItemID, e.ProjectID, e.ThreadID, e.PreviousStatus}
}

// readEvents reads every event of org after after, a page of limit at a
// time, following Last, and checks each page's Total.
func readEvents(t *testing.T, s store.Events, org, after string, q store.EventQuery) []store.Event {
	t.Helper()
	is := is.New(t)
	if q.Limit == 0 {
		q.Limit = store.MaxLimit
	}
	q.After = after
	var out []store.Event
	for range 1000 {
		p, err := s.ListEvents(ctx, org, q)
		is.NoErr(err)
		is.True(p.Total >= len(p.Events)) // Total counts this page's events
		if len(p.Events) == 0 {
			is.Equal(p.Total, 0)      // nothing after the end
			is.Equal(p.Last, q.After) // an empty page resumes where it was asked
			return out
		}
		is.Equal(p.Last, p.Events[len(p.Events)-1].ID) // Last is the page's last event
		out = append(out, p.Events...)
		q.After = p.Last
	}
	t.Fatal("more than 1000 pages of events")
	return nil
}

// newEvents returns the events of org after after, as compared.
func newEvents(t *testing.T, s store.Events, org, after string) ([]ev, string) {
	t.Helper()
	all := readEvents(t, s, org, after, store.EventQuery{})
	out := make([]ev, 0, len(all))
	for _, e := range all {
		out = append(out, evOf(e))
	}
	if len(all) > 0 {
		after = all[len(all)-1].ID
	}
	return out, after
}

// latest is the id of org's newest event.
func latest(t *testing.T, s store.Events, org string) string {
	t.Helper()
	id, err := s.LatestEvent(ctx, org)
	is.New(t).NoErr(err)
	return id
}

func evProject(id string, status store.ProjectStatus) store.Project {
	return store.Project{ID: id, OrgID: orgA, Name: "Project " + id, Status: status}
}

func evInvoice(id string, project *string, status store.InvoiceStatus) store.Invoice {
	return store.Invoice{ID: id, OrgID: orgA, Number: "N-" + id, ProjectID: project, Status: status,
		Currency: "EUR", Total: 100, AmountDue: 100, IssuedAt: day(1, 9), DueAt: day(30, 9)}
}

func evThread(id string, project *string, internal bool) store.Thread {
	return store.Thread{ID: id, OrgID: orgA, ProjectID: project, Subject: "About " + id, Status: store.ThreadOpen,
		Internal: internal, CreatedAt: day(1, 9)}
}

func evMessage(id, thread string, internal bool) store.Message {
	return store.Message{ID: id, OrgID: orgA, ThreadID: thread, Author: store.Author{Name: "Ana", Side: store.SideAgency},
		Body: "Hello " + id, Internal: internal, CreatedAt: day(1, 10)}
}

// testEventRules: a change of status is an event of its own, after the
// item's updated, with the previous status, dated as its item; the feed
// holds every kind's events in the order of their writes, and an
// organization without events has no latest (each kind's created,
// updated and deleted, and their dates, are kindEvents').
func testEventRules(t *testing.T, open func(t *testing.T) subject) {
	is := is.New(t)
	s := open(t)
	is.Equal(latest(t, s, orgA), "") // no event yet
	p := evProject("p1", store.ProjectPlanned)
	is.NoErr(s.PutProject(ctx, p))
	last := latest(t, s, orgA)
	s.Advance(tick)
	p.Status = store.ProjectInProgress
	is.NoErr(s.PutProject(ctx, p))
	ms := store.Milestone{ID: "m1", OrgID: orgA, ProjectID: "p1", Name: "Design", Status: store.MilestonePending, DueAt: day(20, 9)}
	is.NoErr(s.PutMilestone(ctx, ms))
	s.Advance(tick)
	ms.Status, ms.CompletedAt = store.MilestoneCompleted, ptr(day(19, 9))
	is.NoErr(s.PutMilestone(ctx, ms))
	is.NoErr(s.PutInvoice(ctx, evInvoice("i1", ptr("p1"), store.InvoiceOpen)))
	is.NoErr(s.PutInvoice(ctx, evInvoice("r1", nil, store.InvoiceOpen))) // a retainer invoice
	s.Advance(tick)
	paid := evInvoice("i1", ptr("p1"), store.InvoicePaid)
	paid.AmountDue, paid.PaidAt = 0, ptr(day(3, 9))
	is.NoErr(s.PutInvoice(ctx, paid))
	is.NoErr(s.DeleteInvoice(ctx, orgA, "r1"))
	got, last := newEvents(t, s, orgA, last)
	is.Equal(got, []ev{
		{"project.updated", "p1", "p1", "", ""},
		{"project.in_progress", "p1", "p1", "", "planned"},
		{"milestone.created", "m1", "p1", "", ""},
		{"milestone.updated", "m1", "p1", "", ""},
		{"milestone.completed", "m1", "p1", "", "pending"},
		{"invoice.created", "i1", "p1", "", ""},
		{"invoice.created", "r1", "", "", ""},
		{"invoice.updated", "i1", "p1", "", ""},
		{"invoice.paid", "i1", "p1", "", "open"},
		{"invoice.deleted", "r1", "", "", ""},
	})
	is.Equal(latest(t, s, orgA), last)
	is.Equal(latest(t, s, orgB), "") // another organization's events are its own
	paidAt, err := s.GetInvoice(ctx, orgA, "i1")
	is.NoErr(err)
	for _, e := range readEvents(t, s, orgA, "", store.EventQuery{Types: []string{"invoice.paid"}}) {
		is.True(e.CreatedAt.Equal(paidAt.UpdatedAt)) // a status event is dated as its item
	}
}

// testEventCascades: deleting a project makes an event for each visible
// item it takes and none for internal content (each kind's, the invoice's
// update included, are kindProjectDeleted's); deleting a thread, one for
// it and each visible message it takes, and no thread.updated; deleting
// an organization drops its events and cursors.
func testEventCascades(t *testing.T, open func(t *testing.T) subject) {
	is := is.New(t)
	s := open(t)
	is.NoErr(s.PutProject(ctx, evProject("p1", store.ProjectInProgress)))
	is.NoErr(s.PutProject(ctx, evProject("p2", store.ProjectInProgress)))
	is.NoErr(s.PutThread(ctx, evThread("t1", ptr("p1"), false)))
	is.NoErr(s.PutThread(ctx, evThread("t2", ptr("p1"), true))) // internal: gone without an event
	is.NoErr(s.PutMessage(ctx, evMessage("msg1", "t1", false)))
	is.NoErr(s.PutMessage(ctx, evMessage("msg2", "t1", true)))
	is.NoErr(s.PutMessage(ctx, evMessage("msg3", "t2", false)))
	last := latest(t, s, orgA)
	s.Advance(tick)
	is.NoErr(s.DeleteProject(ctx, orgA, "p1"))
	nextEvents(t, s, &last, ev{"project.deleted", "p1", "p1", "", ""}, ev{"thread.deleted", "t1", "p1", "", ""},
		ev{"message.deleted", "msg1", "p1", "t1", ""})

	is.NoErr(s.PutThread(ctx, evThread("t3", ptr("p2"), false)))
	is.NoErr(s.PutMessage(ctx, evMessage("msg4", "t3", false)))
	is.NoErr(s.PutMessage(ctx, evMessage("msg5", "t3", false)))
	is.NoErr(s.PutMessage(ctx, evMessage("msg6", "t3", true)))
	last = latest(t, s, orgA)
	s.Advance(tick)
	is.NoErr(s.DeleteThread(ctx, orgA, "t3"))
	nextEvents(t, s, &last, ev{"thread.deleted", "t3", "p2", "", ""}, ev{"message.deleted", "msg4", "p2", "t3", ""},
		ev{"message.deleted", "msg5", "p2", "t3", ""})

	is.NoErr(s.DeleteOrganization(ctx, orgA))
	is.Equal(latest(t, s, orgA), "") // a deleted organization's events are gone
	_, err := s.ListEvents(ctx, orgA, store.EventQuery{After: last, Limit: 10})
	is.True(errors.Is(err, store.ErrUnknownCursor)) // and its cursors with them
}

// nextEvents checks that org_a's events after *last are want, in any
// order, and moves *last past them.
func nextEvents(t *testing.T, s store.Events, last *string, want ...ev) {
	t.Helper()
	got, after := newEvents(t, s, orgA, *last)
	is.New(t).Equal(sorted(got), sorted(want)) // the events of the write
	*last = after
}

// testEventInternal: internal content makes no event; made internal is
// deleted, made visible again created; a message carries its thread's
// project and its thread.
func testEventInternal(t *testing.T, open func(t *testing.T) subject) {
	is := is.New(t)
	s := open(t)
	is.NoErr(s.PutProject(ctx, evProject("p1", store.ProjectInProgress)))
	last := latest(t, s, orgA)
	is.NoErr(s.PutThread(ctx, evThread("t9", ptr("p1"), true)))
	is.NoErr(s.PutMessage(ctx, evMessage("msg9", "t9", false)))
	is.NoErr(s.PutThread(ctx, evThread("t1", nil, false)))
	nextEvents(t, s, &last, ev{"thread.created", "t1", "", "", ""}) // nothing for the internal thread and its message
	is.NoErr(s.PutMessage(ctx, evMessage("msg0", "t1", true)))      // internal: nothing for it, nor for its thread
	nextEvents(t, s, &last)

	th := evThread("t2", ptr("p1"), false)
	is.NoErr(s.PutThread(ctx, th))
	is.NoErr(s.PutMessage(ctx, evMessage("msg1", "t2", false)))
	got, _ := newEvents(t, s, orgA, last)
	is.Equal(got[0], ev{"thread.created", "t2", "p1", "", ""})                                                               // the thread first
	nextEvents(t, s, &last, got[0], ev{"message.created", "msg1", "p1", "t2", ""}, ev{"thread.updated", "t2", "p1", "", ""}) // its count moved

	s.Advance(tick)
	th.Internal = true
	is.NoErr(s.PutThread(ctx, th))
	nextEvents(t, s, &last, ev{"thread.deleted", "t2", "p1", "", ""}, ev{"message.deleted", "msg1", "p1", "t2", ""}) // made internal: deleted, as in ListDeletions
	s.Advance(tick)
	th.Internal = false
	is.NoErr(s.PutThread(ctx, th))
	nextEvents(t, s, &last, ev{"thread.created", "t2", "p1", "", ""}, ev{"message.created", "msg1", "p1", "t2", ""}) // visible again: created
	s.Advance(tick)
	is.NoErr(s.PutMessage(ctx, evMessage("msg1", "t2", true)))
	nextEvents(t, s, &last, ev{"message.deleted", "msg1", "p1", "t2", ""}, ev{"thread.updated", "t2", "p1", "", ""}) // a message made internal

	s.Advance(tick)
	th.Status, th.ResolvedAt = store.ThreadResolved, ptr(day(5, 9))
	is.NoErr(s.PutThread(ctx, th))
	got, _ = newEvents(t, s, orgA, last)
	is.Equal(got, []ev{
		{"thread.updated", "t2", "p1", "", ""},
		{"thread.resolved", "t2", "p1", "", "open"},
	})
}

// sorted returns the events sorted by type, then item.
func sorted(e []ev) []ev {
	return slices.SortedFunc(slices.Values(e), func(a, b ev) int { return strings.Compare(a.Type+"/"+a.ItemID, b.Type+"/"+b.ItemID) })
}

// seedEvents writes changes of every kind store.Writer puts into orgA,
// and one into orgB.
func seedEvents(t *testing.T, s subject) {
	t.Helper()
	is := is.New(t)
	is.NoErr(s.PutProject(ctx, evProject("p1", store.ProjectPlanned)))
	is.NoErr(s.PutProject(ctx, evProject("p2", store.ProjectPlanned)))
	is.NoErr(s.PutMilestone(ctx, store.Milestone{ID: "m1", OrgID: orgA, ProjectID: "p1", Name: "Design", Status: store.MilestonePending, DueAt: day(20, 9)}))
	is.NoErr(s.PutMilestone(ctx, store.Milestone{ID: "m2", OrgID: orgA, ProjectID: "p2", Name: "Build", Status: store.MilestonePending, DueAt: day(20, 9)}))
	is.NoErr(s.PutInvoice(ctx, evInvoice("i1", ptr("p1"), store.InvoiceOpen)))
	is.NoErr(s.PutInvoice(ctx, evInvoice("r1", nil, store.InvoiceOpen)))
	is.NoErr(s.PutDeliverable(ctx, store.Deliverable{ID: "d1", OrgID: orgA, ProjectID: "p2", Name: "Mockups", Status: store.DeliverablePending, CreatedAt: day(2, 9)}))
	s.Advance(tick)
	paid := evInvoice("i1", ptr("p1"), store.InvoicePaid)
	paid.AmountDue, paid.PaidAt = 0, ptr(day(3, 9))
	is.NoErr(s.PutInvoice(ctx, paid))
	paid.ID, paid.ProjectID = "r1", nil
	is.NoErr(s.PutInvoice(ctx, paid))
	is.NoErr(s.PutProject(ctx, store.Project{ID: "pb", OrgID: orgB, Name: "B", Status: store.ProjectPlanned}))
}

// testEventResume: reading a page at a time, from any event, gives what a
// full read gives after it, and later writes never change what was read.
func testEventResume(t *testing.T, open func(t *testing.T) subject) {
	is := is.New(t)
	s := open(t)
	seedEvents(t, s)
	full := readEvents(t, s, orgA, "", store.EventQuery{})
	is.Equal(len(full), 11)
	for limit := 1; limit <= 4; limit++ {
		is.Equal(readEvents(t, s, orgA, "", store.EventQuery{Limit: limit}), full) // pages of any size make up the full read
	}
	for i, e := range full {
		rest := readEvents(t, s, orgA, e.ID, store.EventQuery{Limit: 3})
		is.Equal(len(rest), len(full)-i-1)
		if len(rest) > 0 {
			is.Equal(rest, full[i+1:]) // resuming after an event reads what follows it
		}
		p, err := s.ListEvents(ctx, orgA, store.EventQuery{After: e.ID, Limit: 1})
		is.NoErr(err)
		is.Equal(p.Total, len(full)-i-1) // Total counts every event after the cursor
	}
	ids := map[string]bool{}
	for _, e := range full {
		is.True(strings.HasPrefix(e.ID, "evt_"))
		is.True(!ids[e.ID]) // ids are unique
		ids[e.ID] = true
	}

	is.NoErr(s.PutProject(ctx, evProject("p3", store.ProjectPlanned)))
	is.NoErr(s.DeleteMilestone(ctx, orgA, "m2"))
	again := readEvents(t, s, orgA, "", store.EventQuery{})
	is.Equal(again[:len(full)], full) // later writes come after: what was read stays as it was
	is.Equal(len(again), len(full)+2)
	is.Equal(latest(t, s, orgA), again[len(again)-1].ID)
}

// testEventUnknownCursor: a cursor the store does not keep is
// ErrUnknownCursor, another organization's too.
func testEventUnknownCursor(t *testing.T, open func(t *testing.T) subject) {
	is := is.New(t)
	s := open(t)
	seedEvents(t, s)
	otherOrg := latest(t, s, orgB)
	mine := latest(t, s, orgA)
	for _, after := range []string{"evt_", "evt_1", "nope", "evt_" + strings.Repeat("9", 33), "evt_" + strings.Repeat("f", 33), mine + "0", otherOrg, "\x00"} {
		_, err := s.ListEvents(ctx, orgA, store.EventQuery{After: after, Limit: 10})
		is.True(errors.Is(err, store.ErrUnknownCursor)) // an unknown cursor
	}
	p, err := s.ListEvents(ctx, orgA, store.EventQuery{After: mine, Limit: 10})
	is.NoErr(err)
	is.Equal(len(p.Events), 0)
	is.Equal(p.Last, mine) // the newest event: nothing after it, and Last stays
	_, err = s.ListEvents(ctx, "org_none", store.EventQuery{After: mine, Limit: 10})
	is.True(errors.Is(err, store.ErrUnknownCursor)) // an organization without events keeps no cursor
	p, err = s.ListEvents(ctx, "org_none", store.EventQuery{Limit: 10})
	is.NoErr(err)
	is.Equal(len(p.Events), 0)
	is.Equal(p.Total, 0)
}

// testEventRestricted: Types, OnlyKinds and OnlyProjects keep only their
// events, totals included; a cursor that a filter skips still resumes.
func testEventRestricted(t *testing.T, open func(t *testing.T) subject) {
	is := is.New(t)
	s := open(t)
	seedEvents(t, s)
	full := readEvents(t, s, orgA, "", store.EventQuery{})
	for name, q := range map[string]store.EventQuery{
		"types":       {Types: []string{"invoice.paid", "deliverable.created"}},
		"kinds":       {OnlyKinds: []store.Kind{store.KindInvoice, store.KindDeliverable}},
		"no kinds":    {OnlyKinds: []store.Kind{}},
		"projects":    {OnlyProjects: []string{"p2"}},
		"no projects": {OnlyProjects: []string{}},
		"all three":   {Types: []string{"invoice.paid", "invoice.updated"}, OnlyKinds: []store.Kind{store.KindInvoice}, OnlyProjects: []string{"p1"}},
	} {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			keep := func(e store.Event) bool {
				return (q.Types == nil || slices.Contains(q.Types, e.Type)) && (q.OnlyKinds == nil || slices.Contains(q.OnlyKinds, e.Kind)) &&
					(q.OnlyProjects == nil || slices.Contains(q.OnlyProjects, e.ProjectID))
			}
			want := slices.DeleteFunc(slices.Clone(full), func(e store.Event) bool { return !keep(e) })
			is.Equal(append([]store.Event{}, readEvents(t, s, orgA, "", q)...), want) // only the matching events
			paged := q
			paged.Limit = 1
			p, err := s.ListEvents(ctx, orgA, paged)
			is.NoErr(err)
			is.Equal(p.Total, len(want)) // Total counts only what matches
			rest := slices.DeleteFunc(slices.Clone(want), func(e store.Event) bool { return e.ID == full[0].ID })
			is.Equal(len(readEvents(t, s, orgA, full[0].ID, q)), len(rest)) // resumes after a cursor it does not match
		})
	}
	is.True(slices.ContainsFunc(full, func(e store.Event) bool { return e.Type == "invoice.paid" && e.PreviousStatus == "open" }))
}

// testEventRetention: events are kept EventRetention; a cursor older than
// that is unknown.
func testEventRetention(t *testing.T, open func(t *testing.T) subject) {
	s := open(t)
	is := is.New(t)
	is.NoErr(s.PutProject(ctx, evProject("p1", store.ProjectPlanned)))
	old := latest(t, s, orgA)
	s.Advance(store.EventRetention + 2*24*time.Hour)
	is.NoErr(s.PutProject(ctx, evProject("p2", store.ProjectPlanned)))
	got, _ := newEvents(t, s, orgA, "")
	is.Equal(got, []ev{{"project.created", "p2", "p2", "", ""}}) // the old event is gone
	_, err := s.ListEvents(ctx, orgA, store.EventQuery{After: old, Limit: 10})
	is.True(errors.Is(err, store.ErrUnknownCursor)) // and its cursor with it
}

// testEventWatch: a watcher is woken by a write, and its channel closed
// when its context is done.
func testEventWatch(t *testing.T, open func(t *testing.T) subject) {
	is := is.New(t)
	s := open(t)
	wctx, cancel := context.WithCancel(ctx)
	ch := s.WatchEvents(wctx, orgA)
	woken := func() bool {
		select {
		case _, ok := <-ch:
			return ok
		case <-time.After(10 * time.Second):
			return false
		}
	}
	// The first wake-up may be the store's own (a listener coming up
	// tells its watchers that they may have missed something).
	is.NoErr(s.PutProject(ctx, evProject("p1", store.ProjectPlanned)))
	is.True(woken()) // a write wakes the watcher
	last := latest(t, s, orgA)
	is.True(last != "")
	for range 2 {
		select {
		case <-ch:
		default:
		}
	}
	is.NoErr(s.PutProject(ctx, evProject("p2", store.ProjectPlanned)))
	is.True(woken()) // each write does
	got, _ := newEvents(t, s, orgA, last)
	is.Equal(got, []ev{{"project.created", "p2", "p2", "", ""}})
	cancel()
	for range 3 {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the channel is not closed once the context is done")
		}
	}
	t.Fatal("the channel is not closed once the context is done")
}
