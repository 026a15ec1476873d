package storetest

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/store"
)

// dueFilters are the filters of a list of items with a DueAt, as
// testDueBefore combines them; zero values for none.
type dueFilters struct {
	status, project string
	only            []string
	since           time.Time
	after           store.Position
	dueBefore       time.Time
}

func (f dueFilters) String() string {
	return fmt.Sprintf("status %q, project %q, only %v, since %v, dueBefore %v", f.status, f.project, f.only, !f.since.IsZero(), f.dueBefore.Format(time.DateTime))
}

// dueItem is what testDueBefore compares of an item: its id, its DueAt
// (nil for none) and its place in a walk by After.
type dueItem struct {
	ID  string
	due *time.Time
	at  store.Position
}

// dueList is one of the lists that take DueBefore, read with filters f:
// the statuses and projects to combine it with (no projects: the list
// takes no project filter), and whether it takes a restriction.
type dueList struct {
	name      string
	statuses  []string
	projects  []string
	restricts bool
	read      func(s store.Store, f dueFilters, r store.PageRequest) ([]dueItem, int, error)
}

// dueLists are the lists of org_a's seed data that take DueBefore.
var dueLists = []dueList{
	{"projects", []string{"", "planned", "in_progress", "cancelled"}, nil, true,
		func(s store.Store, f dueFilters, r store.PageRequest) ([]dueItem, int, error) {
			return duePage(s.ListProjects(ctx, orgA, store.ProjectQuery{
				PageRequest: r,
				Status:      store.ProjectStatus(f.status),
				ListFilter:  store.ListFilter{DueBefore: f.dueBefore, UpdatedSince: f.since, After: f.after, OnlyProjects: f.only},
			}))
		}},
	{"milestones of p1", []string{"", "pending", "completed"}, nil, false,
		func(s store.Store, f dueFilters, r store.PageRequest) ([]dueItem, int, error) {
			return duePage(s.ListMilestones(ctx, orgA, "p1", store.MilestoneQuery{
				PageRequest: r,
				Status:      store.MilestoneStatus(f.status),
				ListFilter:  store.ListFilter{DueBefore: f.dueBefore, UpdatedSince: f.since, After: f.after},
			}))
		}},
	{"milestones of every project", []string{"", "pending", "completed"}, []string{"p1", "p2"}, true,
		func(s store.Store, f dueFilters, r store.PageRequest) ([]dueItem, int, error) {
			return duePage(s.ListAllMilestones(ctx, orgA, store.AllMilestoneQuery{
				PageRequest: r,
				Status:      store.MilestoneStatus(f.status),
				ListFilter:  store.ListFilter{ProjectID: f.project, DueBefore: f.dueBefore, UpdatedSince: f.since, After: f.after, OnlyProjects: f.only},
			}))
		}},
	{"invoices", []string{"", "open", "paid"}, []string{"p1", "p2"}, true,
		func(s store.Store, f dueFilters, r store.PageRequest) ([]dueItem, int, error) {
			return duePage(s.ListInvoices(ctx, orgA, store.InvoiceQuery{
				PageRequest: r,
				Status:      store.InvoiceStatus(f.status),
				ListFilter:  store.ListFilter{ProjectID: f.project, DueBefore: f.dueBefore, UpdatedSince: f.since, After: f.after, OnlyProjects: f.only},
			}))
		}},
}

// duePage is a page of a list of dueLists as testDueBefore compares it.
func duePage[T any](p store.Page[T], err error) ([]dueItem, int, error) {
	out := []dueItem{}
	for _, v := range p.Items {
		rv := reflect.ValueOf(v)
		it := dueItem{ID: rv.FieldByName("ID").String()}
		it.at = store.Position{At: rv.FieldByName("UpdatedAt").Interface().(time.Time), ID: it.ID}
		switch due := rv.FieldByName("DueAt").Interface().(type) {
		case time.Time:
			it.due = &due
		case *time.Time:
			it.due = due
		}
		out = append(out, it)
	}
	return out, p.Total, err
}

// testDueBefore reads each list that takes DueBefore with it, alone and
// with every other filter of the list (status, project, a restriction,
// UpdatedSince and a walk by After), at each item's DueAt (the bound is
// exclusive: that item is left out) and a second after it (it is in),
// before every item and after all. Each answer must be the list without
// DueBefore, in its order, less the items whose DueAt is not before the
// bound, a nil DueAt included; and its total must count them, on every
// page, so that a store whose totals come from tallies that know nothing
// of DueBefore fails.
func testDueBefore(t *testing.T, open func(t *testing.T) subject) {
	s := open(t)
	all0 := s.Now().Truncate(time.Second)
	seedData().put(t, s)
	// Changes after a second, so that a later UpdatedSince keeps some.
	s.Advance(tick)
	later := s.Now().Truncate(time.Second)
	changed := seedData()
	for _, p := range changed.projects[:3] {
		p.Name += " v2"
		is.New(t).NoErr(s.PutProject(ctx, p))
	}
	for _, m := range changed.milestones[:3] {
		m.Name += " v2"
		is.New(t).NoErr(s.PutMilestone(ctx, m))
	}
	for _, i := range changed.invoices[:4] {
		i.Number += "-2"
		is.New(t).NoErr(s.PutInvoice(ctx, i))
	}
	for _, l := range dueLists {
		t.Run(l.name, func(t *testing.T) {
			is := is.New(t)
			every, _, err := l.read(s, dueFilters{}, all)
			is.NoErr(err)
			bounds := []time.Time{time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)}
			for _, v := range every {
				if v.due != nil && !slices.ContainsFunc(bounds, v.due.Equal) {
					bounds = append(bounds, *v.due, v.due.Add(time.Second))
				}
			}
			only := [][]string{nil}
			if l.restricts {
				only = append(only, []string{"p1", "p5", "p3"})
			}
			for _, status := range l.statuses {
				for _, project := range append([]string{""}, l.projects...) {
					for _, o := range only {
						for _, since := range []time.Time{{}, all0, later} {
							f := dueFilters{status: status, project: project, only: o, since: since}
							base, _, err := l.read(s, f, all)
							is.NoErr(err)
							for _, bound := range bounds {
								f.dueBefore = bound
								checkDueBefore(t, s, l, f, base)
							}
						}
					}
				}
			}
		})
	}
}

// checkDueBefore reads l with f, whose answer without DueBefore is base:
// in one page, page by page or, with UpdatedSince, by After.
func checkDueBefore(t *testing.T, s store.Store, l dueList, f dueFilters, base []dueItem) {
	t.Helper()
	want := []dueItem{}
	for _, v := range base {
		if v.due != nil && v.due.Before(f.dueBefore) {
			want = append(want, v)
		}
	}
	got, total, err := l.read(s, f, all)
	if err != nil || !slices.Equal(ids(got), ids(want)) || total != len(want) {
		t.Fatalf("%s, %v: %v of %d (%v), want %v of %d", l.name, f, ids(got), total, err, ids(want), len(want))
	}
	var walked []dueItem
	for n := 1; n <= len(want)/2+1; n++ {
		r := store.PageRequest{Page: n, Limit: 2}
		if !f.since.IsZero() { // by After from page 1: the total counts what follows
			r.Page = 1
			if len(walked) > 0 {
				f.after = walked[len(walked)-1].at
			}
		}
		got, total, err := l.read(s, f, r)
		rest := len(want)
		if !f.after.IsZero() {
			rest -= len(walked)
		}
		if err != nil || total != rest {
			t.Fatalf("%s, %v, page %d after %v: total %d (%v), want %d", l.name, f, n, f.after, total, err, rest)
		}
		walked = append(walked, got...)
	}
	if !slices.Equal(ids(walked), ids(want)) {
		t.Fatalf("%s, %v: walked %v, want %v", l.name, f, ids(walked), ids(want))
	}
}
