package storetest

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/clientstatus/clientstatus/store"
)

// tied is an item of a list as the order of the contract sees it: its
// id, the time it is ordered by (nil for none, which sorts last), and, for
// a deletion, its type.
type tied struct {
	id   string
	at   *time.Time
	kind string
}

// tiedList is a list of testTies: fetch reads a page; desc says whether
// its time sorts descending (then id ascending), as the contract's lists
// without updatedSince but milestones' do.
type tiedList struct {
	name  string
	desc  bool
	fetch func(ctx context.Context, r store.PageRequest) ([]tied, int, error)
}

// before is the contract's order of what the wire shows: the time
// truncated to the second (none last), descending or ascending, then the
// type, then the id.
func (l tiedList) before(a, b tied) int {
	if (a.at == nil) != (b.at == nil) {
		if a.at == nil {
			return 1
		}
		return -1
	}
	if a.at != nil {
		c := a.at.Truncate(time.Second).Compare(b.at.Truncate(time.Second))
		if l.desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return cmp.Or(cmp.Compare(a.kind, b.kind), cmp.Compare(a.id, b.id))
}

// testTies is the property of ties: over random data whose times share
// seconds (whole seconds apart, and sub-second values that the wire shows
// as the same second), every list, under each filter, with and without
// UpdatedSince, at each page size, and the deletions feed come back in
// exactly the order the contract states for the values a client sees,
// page after page, each item once.
func testTies(t *testing.T, open func(t *testing.T) subject) {
	s := open(t)
	for seed := range 4 {
		r := rand.New(rand.NewPCG(uint64(seed), 26))
		org := fmt.Sprint("ties_", seed)
		if err := s.PutOrganization(ctx, store.Organization{ID: org, Name: org, Plan: store.PlanGrowth}); err != nil {
			t.Fatal(err)
		}
		since := s.Now().Truncate(time.Second)
		base := time.Date(2026, 11, 26, 7, 19, 7, 0, time.UTC)
		at := func() time.Time { // one of three seconds, at some millisecond
			return base.Add(time.Duration(r.IntN(3))*time.Second + time.Duration(r.IntN(1000))*time.Millisecond)
		}
		projects := []string{"p0", "p1", "p2", "p3"}
		for _, id := range projects {
			p := store.Project{ID: id, OrgID: org, Name: id, Status: store.ProjectStatuses[r.IntN(2)]}
			if r.IntN(3) > 0 {
				started := at()
				p.StartedAt = &started
			}
			if err := s.PutProject(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
		write := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
			if r.IntN(4) == 0 {
				s.Advance(tick) // the next writes a second later; the others share it
			}
		}
		for _, n := range r.Perm(16) {
			i := store.Invoice{ID: fmt.Sprintf("i%02d", n), OrgID: org, Number: fmt.Sprint(n), Status: store.InvoiceStatuses[r.IntN(3)],
				Currency: "EUR", IssuedAt: at(), DueAt: at()}
			if k := r.IntN(5); k < len(projects) {
				i.ProjectID = &projects[k]
			}
			write(s.PutInvoice(ctx, i))
			write(s.PutMilestone(ctx, store.Milestone{ID: fmt.Sprintf("m%02d", n), OrgID: org, ProjectID: projects[r.IntN(2)],
				Name: "m", Status: store.MilestoneStatuses[r.IntN(2)], DueAt: at()}))
			write(s.PutDeliverable(ctx, store.Deliverable{ID: fmt.Sprintf("d%02d", n), OrgID: org, ProjectID: projects[r.IntN(len(projects))],
				Name: "d", Status: store.DeliverableStatuses[r.IntN(2)], CreatedAt: at()}))
		}
		for _, n := range r.Perm(16)[:6] {
			write(s.DeleteInvoice(ctx, org, fmt.Sprintf("i%02d", n)))
			write(s.DeleteMilestone(ctx, org, fmt.Sprintf("m%02d", n)))
			if err := s.DeleteDeliverable(ctx, org, fmt.Sprintf("d%02d", n)); err != nil {
				t.Fatal(err)
			}
		}
		write(s.DeleteProject(ctx, org, "p3")) // with its deliverables, at one second
		checkTies(t, tiesLists(s, org, since))
	}
}

// tiesLists are the lists testTies walks, for org, and the deletions
// since since when s keeps them.
func tiesLists(s subject, org string, since time.Time) []tiedList {
	var out []tiedList
	for _, changed := range []time.Time{{}, since} {
		suffix := ""
		if !changed.IsZero() {
			suffix = " changed"
		}
		by := func(desc bool) bool { return desc && changed.IsZero() }
		pick := func(own *time.Time, updated time.Time) *time.Time {
			if changed.IsZero() {
				return own
			}
			return &updated
		}
		for _, q := range []store.InvoiceQuery{{}, {Status: store.InvoiceOpen}, {ListFilter: store.ListFilter{ProjectID: "p1"}}, {ListFilter: store.ListFilter{OnlyProjects: []string{"p0", "p2"}}}, {Status: store.InvoiceDraft, ListFilter: store.ListFilter{ProjectID: "p0"}}} {
			q.UpdatedSince = changed
			out = append(out, tiedList{fmt.Sprintf("invoices %+v%s", q, suffix), by(true), func(ctx context.Context, r store.PageRequest) ([]tied, int, error) {
				return tiedOf(func(it store.Invoice) *time.Time { return pick(&it.IssuedAt, it.UpdatedAt) })(s.ListInvoices(ctx, org, paged(q, r)))
			}})
		}
		for _, q := range []store.ProjectQuery{{}, {Status: store.ProjectPlanned}} {
			q.UpdatedSince = changed
			out = append(out, tiedList{fmt.Sprintf("projects %+v%s", q, suffix), by(true), func(ctx context.Context, r store.PageRequest) ([]tied, int, error) {
				return tiedOf(func(it store.Project) *time.Time { return pick(it.StartedAt, it.UpdatedAt) })(s.ListProjects(ctx, org, paged(q, r)))
			}})
		}
		for _, q := range []store.MilestoneQuery{{}, {Status: store.MilestonePending}} {
			q.UpdatedSince = changed
			out = append(out, tiedList{fmt.Sprintf("milestones of p0 %+v%s", q, suffix), false, func(ctx context.Context, r store.PageRequest) ([]tied, int, error) {
				return tiedOf(func(it store.Milestone) *time.Time { return pick(&it.DueAt, it.UpdatedAt) })(s.ListMilestones(ctx, org, "p0", paged(q, r)))
			}})
		}
		for _, q := range []store.DeliverableQuery{{}, {Status: store.DeliverablePending}, {ListFilter: store.ListFilter{ProjectID: "p2"}}} {
			q.UpdatedSince = changed
			out = append(out, tiedList{fmt.Sprintf("deliverables %+v%s", q, suffix), by(true), func(ctx context.Context, r store.PageRequest) ([]tied, int, error) {
				return tiedOf(func(it store.Deliverable) *time.Time { return pick(&it.CreatedAt, it.UpdatedAt) })(s.ListDeliverables(ctx, org, paged(q, r)))
			}})
		}
	}
	for _, q := range []store.DeletionQuery{{}, {Kind: store.KindDeliverable}, {OnlyProjects: []string{"p0", "p3"}}} {
		q.Since = since
		out = append(out, tiedList{fmt.Sprintf("deletions %+v", q), false, func(ctx context.Context, r store.PageRequest) ([]tied, int, error) {
			return tiedOf(func(it store.Deletion) *time.Time { return &it.DeletedAt })(s.ListDeletions(ctx, org, paged(q, r)))
		}})
	}
	return out
}

// tiedOf returns what reads a page of a list as tied items, at the time
// of the order (and for a deletion, its kind).
func tiedOf[T any](at func(T) *time.Time) func(store.Page[T], error) ([]tied, int, error) {
	return func(p store.Page[T], err error) ([]tied, int, error) {
		items := make([]tied, len(p.Items))
		for i, it := range p.Items {
			items[i] = tied{id: reflect.ValueOf(it).FieldByName("ID").String(), at: at(it)}
			if d, ok := any(it).(store.Deletion); ok {
				items[i].kind = string(d.Kind)
			}
		}
		return items, p.Total, err
	}
}

// checkTies walks each list at each page size and checks that the pages
// hold every item once, in the contract's order.
func checkTies(t *testing.T, lists []tiedList) {
	t.Helper()
	for _, l := range lists {
		full, total, err := l.fetch(ctx, store.PageRequest{Page: 1, Limit: store.MaxLimit})
		if err != nil {
			t.Fatalf("%s: %v", l.name, err)
		}
		if len(full) != total {
			t.Fatalf("%s: %d items, total %d", l.name, len(full), total)
		}
		want := slices.SortedFunc(slices.Values(full), l.before)
		for _, limit := range []int{1, 2, 3, 7, store.MaxLimit} {
			var walked []tied
			for page := 1; ; page++ {
				got, _, err := l.fetch(ctx, store.PageRequest{Page: page, Limit: limit})
				if err != nil {
					t.Fatalf("%s: page %d of %d: %v", l.name, page, limit, err)
				}
				walked = append(walked, got...)
				if len(got) < limit {
					break
				}
			}
			if !slices.EqualFunc(walked, want, func(a, b tied) bool { return l.before(a, b) == 0 }) {
				t.Fatalf("%s, pages of %d: got %v, the contract's order is %v", l.name, limit, tiedIDs(walked), tiedIDs(want))
			}
		}
	}
}

func tiedIDs(items []tied) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.kind + " " + it.id
		if it.at != nil {
			out[i] += " " + it.at.Format(time.RFC3339Nano)
		}
	}
	return out
}
