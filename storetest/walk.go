package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/store"
)

// The walk by cursor (store.Position, the queries' After) and the sync
// rule a client follows with it (docs/sync.md).

// walkOrg is the organization of the walk cases.
const walkOrg = "org_walk"

// walkProject is the n-th project of the walk cases.
func walkProject(n int, v int) store.Project {
	return store.Project{ID: fmt.Sprintf("w%02d", n), OrgID: walkOrg, Name: fmt.Sprint("Walk ", n, " v", v), Status: store.ProjectPlanned}
}

// projectAt is a project's place in a walk by After.
func projectAt(p store.Project) store.Position { return store.Position{At: p.UpdatedAt, ID: p.ID} }

// testWalkByAfter walks the projects changed since a time by After, with
// limits 1 to 5, while writes between its pages update, add and delete
// others (and move the clock, so that changes land in the second of the
// cursor as well as later): every project that kept
// its place throughout is seen, and one updated meanwhile is seen or is
// stamped at or after the smallest SyncedThrough of the pages walked,
// where the next walk starts.
func testWalkByAfter(t *testing.T, open func(t *testing.T) subject) {
	s := open(t)
	is := is.New(t)
	is.NoErr(s.PutOrganization(ctx, store.Organization{ID: walkOrg, Name: "Walk", Plan: store.PlanEnterprise, RetainerActive: true, APIEnabled: true}))
	since := s.Now().Truncate(time.Second)
	for limit := 1; limit <= 5; limit++ {
		r := rand.New(rand.NewPCG(uint64(limit), 7))
		live := map[string]int{} // id to version
		for n := range 12 {
			is.NoErr(s.PutProject(ctx, walkProject(n, 0)))
			live[walkProject(n, 0).ID] = 0
		}
		touched := map[string]bool{} // updated, added or deleted during the walk
		walked, through, err := walkByAfter(func(after store.Position) (store.Page[store.Project], error) {
			return s.ListProjects(ctx, walkOrg, store.ProjectQuery{PageRequest: store.PageRequest{Page: 1, Limit: limit}, ListFilter: store.ListFilter{UpdatedSince: since, After: after}})
		}, projectAt, func() {
			if r.IntN(2) == 0 {
				s.Advance(tick)
			}
			switch n := r.IntN(14); {
			case n < 12: // an update, or a put back
				id := walkProject(n, 0).ID
				live[id]++
				touched[id] = true
				is.NoErr(s.PutProject(ctx, walkProject(n, live[id])))
			case n < 13: // a delete
				n := r.IntN(12)
				id := walkProject(n, 0).ID
				if _, ok := live[id]; ok {
					touched[id] = true
					delete(live, id)
					is.NoErr(s.DeleteProject(ctx, walkOrg, id))
				}
			default: // an insert
				n := 20 + r.IntN(5)
				id := walkProject(n, 0).ID
				touched[id] = true
				live[id]++
				is.NoErr(s.PutProject(ctx, walkProject(n, live[id])))
			}
		})
		is.NoErr(err)
		seen := map[string]bool{}
		for _, v := range walked {
			seen[v.ID] = true
		}
		for id := range live {
			if !touched[id] {
				is.True(seen[id]) // an item that kept its place is never skipped
				continue
			}
			if !seen[id] {
				is.True(!getItem(t, projectKind, s, walkOrg, id).updated.Before(through)) // or the next walk sees it
			}
		}
		for id := range live {
			is.NoErr(s.DeleteProject(ctx, walkOrg, id))
		}
		since = s.Now().Truncate(time.Second)
	}
}

// testFollowSyncRule runs a follower that does what docs/sync.md says,
// literally (ProjectCopy), while writes land between its requests. When
// the writes stop and it follows once more, its copy equals the store.
func testFollowSyncRule(t *testing.T, open func(t *testing.T) subject) {
	s := open(t)
	is := is.New(t)
	is.NoErr(s.PutOrganization(ctx, store.Organization{ID: walkOrg, Name: "Walk", Plan: store.PlanEnterprise, RetainerActive: true, APIEnabled: true}))
	r := rand.New(rand.NewPCG(3, 3))
	write := func() {
		if r.IntN(3) == 0 {
			s.Advance(tick)
		}
		n := r.IntN(15)
		if r.IntN(4) == 0 {
			_ = s.DeleteProject(ctx, walkOrg, walkProject(n, 0).ID) // not found is fine
			return
		}
		is.NoErr(s.PutProject(ctx, walkProject(n, r.IntN(1000))))
	}
	c := ProjectCopy{Since: s.Now().Truncate(time.Second), Between: write}
	for range 30 {
		write()
		is.NoErr(c.Sync(ctx, s, walkOrg))
	}
	c.Between = nil
	is.NoErr(c.Sync(ctx, s, walkOrg))
	is.NoErr(c.Check(ctx, s, walkOrg)) // the copy holds what the store holds
}

// testAllMilestones lists the organization's milestones of every project:
// ordered by DueAt, then ProjectID, then ID; filtered by project, status
// and a restriction; with UpdatedSince and After, by UpdatedAt, then ID.
func testAllMilestones(t *testing.T, open func(t *testing.T) subject) {
	s := open(t)
	is := is.New(t)
	is.NoErr(s.PutOrganization(ctx, store.Organization{ID: walkOrg, Name: "Walk", Plan: store.PlanEnterprise, RetainerActive: true, APIEnabled: true}))
	is.NoErr(s.PutOrganization(ctx, store.Organization{ID: "org_other", Name: "Other", Plan: store.PlanEnterprise, RetainerActive: true, APIEnabled: true}))
	day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for _, p := range []string{"pa", "pb"} {
		is.NoErr(s.PutProject(ctx, store.Project{ID: p, OrgID: walkOrg, Name: p, Status: store.ProjectPlanned}))
	}
	is.NoErr(s.PutProject(ctx, store.Project{ID: "pa", OrgID: "org_other", Name: "other", Status: store.ProjectPlanned}))
	is.NoErr(s.PutMilestone(ctx, store.Milestone{ID: "mx", OrgID: "org_other", ProjectID: "pa", Name: "other", Status: store.MilestonePending, DueAt: day}))
	for _, m := range []store.Milestone{
		{ID: "m3", ProjectID: "pb", DueAt: day, Status: store.MilestonePending},
		{ID: "m1", ProjectID: "pa", DueAt: day.AddDate(0, 0, 2), Status: store.MilestoneCompleted},
		{ID: "m2", ProjectID: "pa", DueAt: day, Status: store.MilestonePending},
		{ID: "m0", ProjectID: "pb", DueAt: day.AddDate(0, 0, 1), Status: store.MilestoneInProgress},
	} {
		m.OrgID, m.Name = walkOrg, m.ID
		is.NoErr(s.PutMilestone(ctx, m))
	}
	of := func(q store.AllMilestoneQuery) fetchFunc {
		return func(ctx context.Context, s store.Store, r store.PageRequest) ([]string, int, error) {
			return pageIDs(s.ListAllMilestones(ctx, walkOrg, paged(q, r)))
		}
	}
	lists := []list{
		{"every project's", of(store.AllMilestoneQuery{}), []string{"m2", "m3", "m0", "m1"}}, // dueAt, then projectId, then id; no other organization's
		{"one project's", of(store.AllMilestoneQuery{ListFilter: store.ListFilter{ProjectID: "pb"}}), []string{"m3", "m0"}},
		{"an unknown project's", of(store.AllMilestoneQuery{ListFilter: store.ListFilter{ProjectID: "nope"}}), []string{}},
		{"by status", of(store.AllMilestoneQuery{Status: store.MilestonePending}), []string{"m2", "m3"}},
		{"a restricted key's", of(store.AllMilestoneQuery{ListFilter: store.ListFilter{OnlyProjects: []string{"pa"}}}), []string{"m2", "m1"}},
	}
	checkLists(t, s, lists)
	walk(t, s, lists...)

	since := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	p, err := s.ListAllMilestones(ctx, walkOrg, store.AllMilestoneQuery{PageRequest: all, ListFilter: store.ListFilter{UpdatedSince: since}})
	is.NoErr(err)
	is.Equal(len(p.Items), 4)
	for i := 1; i < len(p.Items); i++ {
		a, b := p.Items[i-1], p.Items[i]
		is.True(a.UpdatedAt.Before(b.UpdatedAt) || a.UpdatedAt.Equal(b.UpdatedAt) && a.ID < b.ID) // by updatedAt, then id
	}
	first := p.Items[0]
	rest, err := s.ListAllMilestones(ctx, walkOrg, store.AllMilestoneQuery{
		PageRequest: all,
		ListFilter:  store.ListFilter{UpdatedSince: since, After: store.Position{At: first.UpdatedAt, ID: first.ID}},
	})
	is.NoErr(err)
	is.Equal(rest.Items, p.Items[1:]) // the items after the cursor
	is.Equal(rest.Total, 3)           // counted after it
}
