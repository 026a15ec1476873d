package storetest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/store"
)

// PutAgainElsewhere checks, on s, the departure of a deleted item put
// again in another project (issue 19): the put drops the item's deletion
// record, so a key restricted to the project the record named, which saw
// the item there, must see it leave that project instead; a key of the
// project it is in now, and an unrestricted key, see nothing gone. An
// item of every kind that belongs to a project (kindCases), each deleted
// and put again in another project; one put again in its own project
// leaves nothing. clock is s's.
func PutAgainElsewhere(t *testing.T, s SyncSubject, clock Clocked) {
	is := is.New(t)
	org := "putagain"
	is.NoErr(s.PutOrganization(ctx, store.Organization{ID: org, Name: org, Plan: store.PlanGrowth}))
	for _, p := range []string{"p0", "p1"} {
		is.NoErr(s.PutProject(ctx, store.Project{ID: p, OrgID: org, Name: p, Status: store.ProjectPlanned}))
	}
	var movers []kindCase
	for _, k := range kindCases {
		if !k.isProject && k.canWrite(s) {
			movers = append(movers, k)
		}
	}
	put := func(project, same string) {
		for _, k := range movers {
			is.NoErr(k.put(ctx, s, org, "x1", project, 0)) // put in project
			is.NoErr(k.put(ctx, s, org, "x2", same, 0))    // put in same
		}
	}
	put("p0", "p0")
	clock.Advance(tick)
	since := clock.Now()
	for _, k := range movers {
		is.NoErr(k.del(ctx, s, org, "x1"))
		is.NoErr(k.del(ctx, s, org, "x2"))
	}
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
	var left []string
	for _, k := range movers {
		left = append(left, fmt.Sprint(k.kind, "/x1"))
	}
	slices.Sort(left)                    // one second: in order of kind
	is.Equal(gone([]string{"p0"}), left) // left p0, as if moved
	is.Equal(gone([]string{"p1"}), nil)  // in p1 now
	is.Equal(gone(nil), nil)             // put again: no record
}
