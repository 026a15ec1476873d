package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/clientstatus/clientstatus/store"
	"github.com/matryer/is"
)

// deletions reads a page of deletion records as "kind id" strings.
func deletions(c store.Changes, org string, q store.DeletionQuery) func(context.Context, store.Store, store.PageRequest) ([]string, int, error) {
	return func(ctx context.Context, _ store.Store, r store.PageRequest) ([]string, int, error) {
		q := q // a copy: the list may be fetched by several tests at once
		q.PageRequest = r
		p, err := c.ListDeletions(ctx, org, q)
		return ids(p.Items, func(d store.Deletion) string { return string(d.Kind) + " " + d.ID }), p.Total, err
	}
}

// testDeletions deletes items one by one, time apart, and reads the
// deletion records: order, kind filter, paging, bounds, scoping, and
// records dropped when an item is put again.
func testDeletions(t *testing.T, open func(t *testing.T) Subject) {
	s := open(t)
	c := s
	d := s
	f := seedData()
	f.put(t, s)
	is := is.New(t)

	// Ids whose order is not their kinds': the records of a cascade are
	// ordered by kind first.
	is.NoErr(s.PutMilestone(ctx, store.Milestone{ID: "a-milestone", OrgID: orgA, ProjectID: "p1", Name: "First by id",
		Status: store.MilestonePending, DueAt: day(3, 0)}))
	is.NoErr(s.PutDeliverable(ctx, store.Deliverable{ID: "z-deliverable", OrgID: orgA, ProjectID: "p1", Name: "Last by id",
		Status: store.DeliverablePending, CreatedAt: day(3, 0)}))

	// The store's own time before the first deletion: since is compared
	// with times from the store's clock.
	s.Advance(tick)
	p3 := want(f.projects, orgA, "p3", projectKey)
	p3.Name += " (changed)"
	is.NoErr(s.PutProject(ctx, p3))
	since := getProject(t, s, orgA, "p3").UpdatedAt

	from := s.Now()
	for _, del := range []func() error{
		func() error { return d.DeleteInvoice(ctx, orgA, "i5") },     // a retainer invoice
		func() error { return d.DeleteMilestone(ctx, orgA, "m4") },   // of p1
		func() error { return d.DeleteProject(ctx, orgA, "p1") },     // with its milestones and deliverables
		func() error { return d.DeleteDeliverable(ctx, orgA, "d3") }, // of p2
		func() error { return d.DeleteInvoice(ctx, orgB, "i1") },     // org_b's, of its p1
		func() error { return d.DeleteMilestone(ctx, orgB, "m1") },   // org_b's, of its p1
	} {
		s.Advance(tick)
		is.NoErr(del()) // deleting
	}
	to := s.Now()

	page, err := c.ListDeletions(ctx, orgA, store.DeletionQuery{PageRequest: all, Since: since})
	is.NoErr(err)
	feed := page.Items
	is.Equal(page.Total, 12) // one record per item deleted, cascades included
	if len(feed) != 12 {
		t.Fatalf("%d deletion records, want 12: %v", len(feed), feed)
	}
	is.NoErr(inFeedOrder(feed))
	cascade := ids(feed[2:11], func(d store.Deletion) string { return string(d.Kind) + " " + d.ID })
	slices.Sort(cascade)
	is.Equal(cascade, []string{"deliverable d1", "deliverable d2", "deliverable d4", "deliverable z-deliverable",
		"milestone a-milestone", "milestone m1", "milestone m2", "milestone m3", "project p1"}) // a project's deletion records its milestones and deliverables, and no invoice
	projectOf := map[string]string{}
	for _, r := range feed {
		within(is, r.DeletedAt, from, to)
		projectOf[string(r.Kind)+" "+r.ID] = r.ProjectID
	}
	is.Equal(projectOf, map[string]string{
		"invoice i5": "", "milestone m4": "p1", "project p1": "p1",
		"deliverable d1": "p1", "deliverable d2": "p1", "deliverable d4": "p1",
		"milestone m1": "p1", "milestone m2": "p1", "milestone m3": "p1",
		"deliverable z-deliverable": "p1", "milestone a-milestone": "p1",
		"deliverable d3": "p2",
	}) // each record names the project the item belonged to
	feedIDs := ids(feed, func(d store.Deletion) string { return string(d.Kind) + " " + d.ID })
	is.Equal(feedIDs[:2], []string{"invoice i5", "milestone m4"}) // records in order of deletion
	is.Equal(feedIDs[11], "deliverable d3")                       // records in order of deletion

	ofKind := func(k store.Kind) []string {
		out := []string{}
		for _, r := range feed {
			if r.Kind == k {
				out = append(out, string(r.Kind)+" "+r.ID)
			}
		}
		return out
	}
	m4At, d3At := feed[1].DeletedAt, feed[11].DeletedAt
	lists := []list{
		{"all", deletions(c, orgA, store.DeletionQuery{Since: since}), feedIDs},
		{"since the milestone's deletion (inclusive)", deletions(c, orgA, store.DeletionQuery{Since: m4At}), feedIDs[1:]},
		{"just after the milestone's deletion", deletions(c, orgA, store.DeletionQuery{Since: m4At.Add(time.Microsecond)}), feedIDs[2:]},
		{"since the last deletion (inclusive)", deletions(c, orgA, store.DeletionQuery{Since: d3At}), feedIDs[11:]},
		{"after the last deletion", deletions(c, orgA, store.DeletionQuery{Since: d3At.Add(time.Microsecond)}), []string{}},
		{"of org_b", deletions(c, orgB, store.DeletionQuery{Since: since}), []string{"invoice i1", "milestone m1"}},
		{"of an unknown organization", deletions(c, "org_unknown", store.DeletionQuery{Since: since}), []string{}},
	}
	for _, k := range store.Kinds {
		lists = append(lists, list{"kind " + string(k), deletions(c, orgA, store.DeletionQuery{Since: since, Kind: k}), ofKind(k)})
	}
	lists = append(lists, list{"milestones just after the milestone's deletion",
		deletions(c, orgA, store.DeletionQuery{Since: m4At.Add(time.Microsecond), Kind: store.KindMilestone}), ofKind(store.KindMilestone)[1:]})
	checkLists(t, s, lists)
	for _, l := range lists {
		walk(t, s, l)
	}

	// Putting an item again drops its record, in its organization only;
	// an item of another kind with the same id drops nothing.
	is.NoErr(s.PutProject(ctx, want(f.projects, orgA, "p1", projectKey)))
	is.NoErr(s.PutMilestone(ctx, want(f.milestones, orgA, "m1", milestoneKey)))
	is.NoErr(s.PutInvoice(ctx, want(f.invoices, orgA, "i5", invoiceKey)))
	i1 := want(f.invoices, orgA, "i1", invoiceKey) // org_a's i1 was never deleted
	i1.AmountDue++
	is.NoErr(s.PutInvoice(ctx, i1))
	is.NoErr(s.PutDeliverable(ctx, store.Deliverable{ID: "m2", OrgID: orgA, ProjectID: "p2", Name: "An id like a milestone's",
		Status: store.DeliverablePending, CreatedAt: day(3, 0)}))
	checkLists(t, s, []list{
		{"org_a after puts", deletions(c, orgA, store.DeletionQuery{Since: since}),
			slices.DeleteFunc(slices.Clone(feedIDs), func(r string) bool {
				return r == "project p1" || r == "milestone m1" || r == "invoice i5"
			})},
		{"org_b after org_a's puts", deletions(c, orgB, store.DeletionQuery{Since: since}), []string{"invoice i1", "milestone m1"}},
	})
}

// inFeedOrder reports deletion records out of the feed's order: DeletedAt,
// then kind, then id.
func inFeedOrder(feed []store.Deletion) error {
	for k := 1; k < len(feed); k++ {
		a, b := feed[k-1], feed[k]
		if c := a.DeletedAt.Compare(b.DeletedAt); c > 0 || c == 0 && (a.Kind > b.Kind || a.Kind == b.Kind && a.ID >= b.ID) {
			return fmt.Errorf("%s %s (deleted %s) listed before %s %s (deleted %s)", a.Kind, a.ID, a.DeletedAt, b.Kind, b.ID, b.DeletedAt)
		}
	}
	return nil
}

func testDeletionsSinceTooOld(t *testing.T, open func(t *testing.T) Subject) {
	s := open(t)
	c := s
	seedData().put(t, s)
	is := is.New(t)

	for _, since := range []time.Time{
		{},
		s.Now().Add(-store.DeletionRetention - 24*time.Hour),
		day(-3650, 0),
	} {
		for _, org := range []string{orgA, orgB} {
			_, err := c.ListDeletions(ctx, org, store.DeletionQuery{PageRequest: all, Since: since})
			is.True(errors.Is(err, store.ErrSinceTooOld)) // a since older than what the store knows wraps store.ErrSinceTooOld
		}
	}

	// A since from the store's own recent times is fine.
	s.Advance(tick)
	p3 := want(seedData().projects, orgA, "p3", projectKey)
	p3.Name += " (changed)"
	is.NoErr(s.PutProject(ctx, p3))
	page, err := c.ListDeletions(ctx, orgA, store.DeletionQuery{PageRequest: all, Since: getProject(t, s, orgA, "p3").UpdatedAt})
	is.NoErr(err)              // a recent since is known
	is.Equal(page.Total, 0)    // nothing was deleted
	is.True(page.Items != nil) // an empty page is [] in JSON, not null
}
