package storetest

import (
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

// testWalkByAfter walks the projects changed since a time by After, with
// limits 1 to 5, while writes between its pages update, add and delete
// others (and on a Clocked store move its clock, so that changes land in
// the second of the cursor as well as later): every project that kept
// its place throughout is seen, and one updated meanwhile is seen or is
// stamped at or after the smallest SyncedThrough of the pages walked,
// where the next walk starts.
func testWalkByAfter(t *testing.T, open func(t *testing.T) Subject) {
	s := open(t)
	del := s
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
		seen := map[string]bool{}
		var through time.Time
		q := store.ProjectQuery{PageRequest: store.PageRequest{Page: 1, Limit: limit}, ListFilter: store.ListFilter{UpdatedSince: since}}
		for pages := 0; ; pages++ {
			is.True(pages < 100) // the walk ends
			p, err := s.ListProjects(ctx, walkOrg, q)
			is.NoErr(err)
			if through.IsZero() || p.SyncedThrough.Before(through) {
				through = p.SyncedThrough
			}
			for _, v := range p.Items {
				seen[v.ID] = true
			}
			if len(p.Items) == 0 || len(p.Items) == p.Total {
				break
			}
			last := p.Items[len(p.Items)-1]
			q.After = store.Position{At: last.UpdatedAt, ID: last.ID}
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
					is.NoErr(del.DeleteProject(ctx, walkOrg, id))
				}
			default: // an insert
				n := 20 + r.IntN(5)
				id := walkProject(n, 0).ID
				touched[id] = true
				live[id]++
				is.NoErr(s.PutProject(ctx, walkProject(n, live[id])))
			}
		}
		for id := range live {
			if !touched[id] {
				is.True(seen[id]) // an item that kept its place is never skipped
				continue
			}
			if !seen[id] {
				is.True(!getProject(t, s, walkOrg, id).UpdatedAt.Before(through)) // or the next walk sees it
			}
		}
		for id := range live {
			is.NoErr(del.DeleteProject(ctx, walkOrg, id))
		}
		since = s.Now().Truncate(time.Second)
	}
}

// testFollowSyncRule runs a follower that does what docs/sync.md says,
// literally, with a small limit, while writes land between its requests:
// deletions then changes, each walked by After from page 1, the next time
// from the smallest SyncedThrough of the pages walked, items upserted by
// id. When the writes stop and it follows once more, its copy equals the
// store.
func testFollowSyncRule(t *testing.T, open func(t *testing.T) Subject) {
	s := open(t)
	del := s
	is := is.New(t)
	is.NoErr(s.PutOrganization(ctx, store.Organization{ID: walkOrg, Name: "Walk", Plan: store.PlanEnterprise, RetainerActive: true, APIEnabled: true}))
	r := rand.New(rand.NewPCG(3, 3))
	copyOf := map[string]store.Project{}
	from := s.Now().Truncate(time.Second)
	write := func() {
		if r.IntN(3) == 0 {
			s.Advance(tick)
		}
		n := r.IntN(15)
		if r.IntN(4) == 0 {
			_ = del.DeleteProject(ctx, walkOrg, walkProject(n, 0).ID) // not found is fine
			return
		}
		is.NoErr(s.PutProject(ctx, walkProject(n, r.IntN(1000))))
	}
	follow := func(writes bool) {
		next := time.Time{}
		keep := func(t time.Time) {
			if next.IsZero() || t.Before(next) {
				next = t
			}
		}
		dq := store.DeletionQuery{PageRequest: store.PageRequest{Page: 1, Limit: 2}, Since: from}
		for {
			p, err := s.ListDeletions(ctx, walkOrg, dq)
			is.NoErr(err)
			keep(p.SyncedThrough)
			for _, d := range p.Items {
				if d.Kind == store.KindProject {
					delete(copyOf, d.ID)
				}
			}
			if len(p.Items) == 0 || len(p.Items) == p.Total {
				break
			}
			last := p.Items[len(p.Items)-1]
			dq.After = store.Position{At: last.DeletedAt, Kind: last.Kind, ID: last.ID}
			if writes {
				write()
			}
		}
		pq := store.ProjectQuery{PageRequest: store.PageRequest{Page: 1, Limit: 2}, ListFilter: store.ListFilter{UpdatedSince: from}}
		for {
			p, err := s.ListProjects(ctx, walkOrg, pq)
			is.NoErr(err)
			keep(p.SyncedThrough)
			for _, v := range p.Items {
				copyOf[v.ID] = v
			}
			if len(p.Items) == 0 || len(p.Items) == p.Total {
				break
			}
			last := p.Items[len(p.Items)-1]
			pq.After = store.Position{At: last.UpdatedAt, ID: last.ID}
			if writes {
				write()
			}
		}
		from = next
	}
	for range 30 {
		write()
		follow(true)
	}
	follow(false)
	all, err := s.ListProjects(ctx, walkOrg, store.ProjectQuery{PageRequest: all})
	is.NoErr(err)
	is.Equal(len(copyOf), len(all.Items)) // the copy holds what the store holds
	for _, v := range all.Items {
		is.Equal(copyOf[v.ID], v) // the copy of v.ID is the store's
	}
}

// testAllMilestones lists the organization's milestones of every project:
// ordered by DueAt, then ProjectID, then ID; filtered by project, status
// and a restriction; with UpdatedSince and After, by UpdatedAt, then ID.
func testAllMilestones(t *testing.T, open func(t *testing.T) reader) {
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
	ids := func(q store.AllMilestoneQuery) ([]string, int) {
		if q.PageRequest == (store.PageRequest{}) {
			q.PageRequest = all
		}
		p, err := s.ListAllMilestones(ctx, walkOrg, q)
		is.NoErr(err)
		var out []string
		for _, m := range p.Items {
			out = append(out, m.ID)
		}
		return out, p.Total
	}
	got, total := ids(store.AllMilestoneQuery{})
	is.Equal(got, []string{"m2", "m3", "m0", "m1"}) // dueAt, then projectId, then id; no other organization's
	is.Equal(total, 4)
	got, total = ids(store.AllMilestoneQuery{ListFilter: store.ListFilter{ProjectID: "pb"}})
	is.Equal(got, []string{"m3", "m0"}) // one project's
	is.Equal(total, 2)
	got, _ = ids(store.AllMilestoneQuery{ListFilter: store.ListFilter{ProjectID: "nope"}})
	is.Equal(len(got), 0) // an unknown project: none, no error
	got, _ = ids(store.AllMilestoneQuery{Status: store.MilestonePending})
	is.Equal(got, []string{"m2", "m3"}) // by status
	got, total = ids(store.AllMilestoneQuery{ListFilter: store.ListFilter{OnlyProjects: []string{"pa"}}})
	is.Equal(got, []string{"m2", "m1"}) // a restricted key's projects only
	is.Equal(total, 2)
	got, total = ids(store.AllMilestoneQuery{PageRequest: store.PageRequest{Page: 2, Limit: 3}})
	is.Equal(got, []string{"m1"}) // paged
	is.Equal(total, 4)

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
