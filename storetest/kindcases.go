package storetest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/store"
)

// The cases that hold for every kind of item, run for each descriptor of
// kindCases on items it puts itself: lists (restricted to projects,
// filtered by project, paged), scoping and not-found, cancellation,
// UpdatedAt and UpdatedSince here; deletion records, cascades,
// departures, data versions and events in kindchanges.go. The cases of
// each resource's own fields, orders and filters stay in its files.

// kindProjects are the projects that openKind puts in each organization.
var kindProjects = []string{"p1", "p2", "p3"}

// kindRule is a rule that holds for every kind of item: run for each
// kind it applies to (when; nil for every kind), on the case's own two
// organizations (kindOrgs).
type kindRule struct {
	name string
	run  func(t *testing.T, k kindCase, s subject, oa, ob string)
	when func(k kindCase) bool
}

// inProject is when of the rules of an item in a project.
func inProject(k kindCase) bool { return !k.isProject }

// readRules are the rules of every kind that RunRead checks; changeRules,
// RunChanges'. RunThreads checks both for threads and messages.
var (
	readRules   = []kindRule{{"Lists", kindLists, nil}, {"Scoping", kindScoping, nil}, {"Rejects", kindRejects, nil}}
	changeRules = []kindRule{
		{"Cancelled", kindCancelled, nil},
		{"UpdatedAt", kindUpdatedAt, nil},
		{"Deletions", kindDeletions, nil},
		{"ProjectDeleted", kindProjectDeleted, inProject},
		{"OrganizationDeleted", kindOrganizationDeleted, nil},
		{"Departures", kindDepartures, inProject},
		{"PutAgainElsewhere", kindPutAgainElsewhere, inProject},
		{"Versions", kindVersions, nil},
		{"Events", kindEvents, nil},
	}
)

// kindsCase returns the case that checks rules for each of kinds. It opens
// one store for every rule, each with organizations of its own: a store
// that is slow to open (a database migrated for each) opens once.
func kindsCase(kinds []kindCase, rules []kindRule) func(t *testing.T, open func(t *testing.T) subject) {
	return func(t *testing.T, open func(t *testing.T) subject) {
		s := open(t)
		for _, k := range kinds {
			t.Run(string(k.kind), func(t *testing.T) {
				for _, r := range rules {
					if r.when != nil && !r.when(k) {
						continue
					}
					t.Run(r.name, func(t *testing.T) {
						oa, ob := kindOrgs(t, s, string(k.kind)+"_"+r.name)
						r.run(t, k, s, oa, ob)
					})
				}
			})
		}
	}
}

// kindOrgs puts two organizations named after a case, each with the
// projects kindProjects, and returns their ids: the case's org_a and
// org_b.
func kindOrgs(t *testing.T, s subject, name string) (string, string) {
	t.Helper()
	is := is.New(t)
	oa, ob := "kinds_"+name+"_a", "kinds_"+name+"_b"
	for _, org := range []string{oa, ob} {
		is.NoErr(s.PutOrganization(ctx, store.Organization{ID: org, Name: org, Plan: "growth", RetainerActive: true, APIEnabled: true}))
		for _, p := range kindProjects {
			is.NoErr(projectKind.put(ctx, s, org, p, "", 0)) // seeding a project
		}
	}
	return oa, ob
}

// scope is the project of k's lists in the cases: "" (all) but for a kind
// listed per project.
func (k kindCase) scope(project string) string {
	if k.perProject {
		return project
	}
	return ""
}

// getItem reads item id of org, failing the test when there is none.
func getItem(t *testing.T, k kindCase, s subject, org, id string) kindItem {
	t.Helper()
	it, err := k.get(ctx, s, org, id)
	if err != nil {
		t.Fatalf("%s %s/%s: %v", k.kind, org, id, err)
	}
	return it
}

// kindLists puts items of k in several projects (and in none, when the
// kind allows it) and reads its lists: unrestricted, restricted to
// projects (alone, with a project filter, empty, with unknown, another
// organization's or unstorable ids), filtered by project and changed
// since; each with its total, page by page.
func kindLists(t *testing.T, k kindCase, s subject, oa, ob string) {
	is := is.New(t)
	projectOf, projectOfB := map[string]string{}, map[string]string{"x0": k.projectOf("x0", "p2")} // each organization's items of k, by id
	if k.isProject {
		for _, p := range append([]string{"p\ufffd"}, kindProjects...) {
			projectOf[p], projectOfB[p] = p, p
		}
		delete(projectOfB, "p\ufffd")
	}
	for n, p := range []string{"p1", "p2", "p1", "p3"} {
		id := fmt.Sprint("x", n)
		is.NoErr(k.put(ctx, s, oa, id, p, n)) // seeding an item
		projectOf[id] = k.projectOf(id, p)
	}
	if k.optional {
		is.NoErr(k.put(ctx, s, oa, "x9", "", 0)) // seeding an item of no project
		projectOf["x9"] = ""
	}
	is.NoErr(k.put(ctx, s, ob, "x0", "p2", 7)) // org_b's, with an id of org_a's
	// A project, and an item in it, whose id the unstorable ids below
	// would become, were a store to send them as they are.
	is.NoErr(projectKind.put(ctx, s, oa, "p\ufffd", "", 0))
	is.NoErr(k.put(ctx, s, oa, "x\ufffd", "p\ufffd", 0))
	projectOf["x\ufffd"] = k.projectOf("x\ufffd", "p\ufffd")

	if k.perProject {
		var lists []list
		for _, p := range kindProjects {
			full, _, err := k.list(oa, p, nil, time.Time{})(ctx, s, all)
			is.NoErr(err)
			is.Equal(sortedCopy(full), keysWhere(projectOf, func(q string) bool { return q == p })) // a project's list holds its items
			lists = append(lists, list{"of " + p, k.list(oa, p, nil, time.Time{}), full},
				list{"of " + p + ", changed since", k.list(oa, p, nil, sinceEver), sortedByChange(t, k, s, oa, full)})
		}
		checkLists(t, s, lists)
		walk(t, s, lists...)
		_, _, err := k.list(ob, "pb", nil, time.Time{})(ctx, s, all)
		is.True(errors.Is(err, store.ErrNotFound)) // a list of a project the organization does not have is not found
		for _, b := range unstorable("p1") {
			_, _, err := k.list(oa, b, nil, time.Time{})(ctx, s, all)
			is.True(errors.Is(err, store.ErrNotFound)) // a list of an unstorable project id is not found
		}
		return
	}

	full, total, err := k.list(oa, "", nil, time.Time{})(ctx, s, all)
	is.NoErr(err)
	is.Equal(sortedCopy(full), slices.Sorted(maps.Keys(projectOf))) // the list holds the organization's items
	is.Equal(total, len(full))
	fullB, _, err := k.list(ob, "", nil, time.Time{})(ctx, s, all)
	is.NoErr(err)
	is.Equal(sortedCopy(fullB), slices.Sorted(maps.Keys(projectOfB))) // the list holds the organization's items only
	in := func(only ...string) []string {
		return slices.DeleteFunc(slices.Clone(full), func(id string) bool { return !store.InProjects(only, projectOf[id]) })
	}
	inB := func(only ...string) []string {
		return slices.DeleteFunc(slices.Clone(fullB), func(id string) bool { return !store.InProjects(only, projectOfB[id]) })
	}
	bad := append(unstorable("p1"), unstorable("p\ufffd")...)
	lists := []list{
		{"unrestricted", k.list(oa, "", nil, time.Time{}), full},
		{"of p1", k.list(oa, "", []string{"p1"}, time.Time{}), in("p1")},
		{"of p2 and p1, p2 twice", k.list(oa, "", []string{"p2", "p1", "p2"}, time.Time{}), in("p1", "p2")},
		{"of no project", k.list(oa, "", []string{}, time.Time{}), []string{}},
		{"of unknown ids", k.list(oa, "", []string{"nope", "pb"}, time.Time{}), []string{}},
		{"of unstorable ids", k.list(oa, "", bad, time.Time{}), []string{}},
		{"of p1 and unstorable ids", k.list(oa, "", append([]string{"p1"}, bad...), time.Time{}), in("p1")},
		{"of p1, changed since", k.list(oa, "", []string{"p1"}, sinceEver), sortedByChange(t, k, s, oa, in("p1"))},
		{"of org_b", k.list(ob, "", nil, time.Time{}), fullB},
		{"of org_b, of p2", k.list(ob, "", []string{"p2"}, time.Time{}), inB("p2")},
		{"of an unknown organization", k.list("org_unknown", "", nil, time.Time{}), []string{}},
	}
	for _, b := range unstorable(oa) {
		lists = append(lists, list{fmt.Sprintf("of organization %q", b), k.list(b, "", nil, time.Time{}), []string{}})
	}
	if !k.isProject {
		for _, b := range bad {
			lists = append(lists, list{fmt.Sprintf("in project %q", b), k.list(oa, b, nil, time.Time{}), []string{}})
		}
		lists = append(lists,
			list{"in p1", k.list(oa, "p1", nil, time.Time{}), in("p1")},
			list{"in p1, of p1 and p2", k.list(oa, "p1", []string{"p1", "p2"}, time.Time{}), in("p1")},
			list{"in p2, of p1", k.list(oa, "p2", []string{"p1"}, time.Time{}), []string{}},
			list{"in an unknown project", k.list(oa, "nope", nil, time.Time{}), []string{}},
		)
	}
	checkLists(t, s, lists)
	walk(t, s, lists...)
}

// sortedCopy returns ids sorted, never nil.
func sortedCopy(ids []string) []string {
	out := append([]string{}, ids...)
	slices.Sort(out)
	return out
}

// keysWhere returns the ids whose project keep accepts, sorted.
func keysWhere(projectOf map[string]string, keep func(string) bool) []string {
	out := []string{}
	for id, p := range projectOf {
		if keep(p) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// sortedByChange returns ids in the order of a list changed since: by
// UpdatedAt, then id.
func sortedByChange(t *testing.T, k kindCase, s subject, org string, ids []string) []string {
	t.Helper()
	at := map[string]time.Time{}
	for _, id := range ids {
		at[id] = getItem(t, k, s, org, id).updated
	}
	out := slices.Clone(ids)
	slices.SortFunc(out, func(a, b string) int {
		if c := at[a].Compare(at[b]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return out
}

// kindScoping reads items of k across organizations: an id both hold
// answers each its own; an id of the other organization, an unknown
// organization, an unknown or unstorable id, or another kind's id are not
// found.
func kindScoping(t *testing.T, k kindCase, s subject, oa, ob string) {
	is := is.New(t)
	is.NoErr(k.put(ctx, s, oa, "x", "p1", 0))
	is.NoErr(k.put(ctx, s, ob, "x", "p1", 1))
	is.NoErr(k.put(ctx, s, oa, "y", "p2", 0))
	a, b := getItem(t, k, s, oa, "x"), getItem(t, k, s, ob, "x")
	is.True(strings.Contains(a.fields, fmt.Sprintf(" OrgID:%q", oa))) // org_a's x
	is.True(strings.Contains(b.fields, fmt.Sprintf(" OrgID:%q", ob))) // org_b's x
	is.True(a.fields != b.fields)                                     // each organization's own item
	is.Equal(a.project, k.projectOf("x", "p1"))                       // an item names its project

	for _, c := range []struct{ org, id, why string }{
		{ob, "y", "an item of the other organization"},
		{oa, "nope", "an unknown id"},
		{"org_unknown", "x", "an unknown organization"},
		{"", "x", "no organization"},
		{oa, "x\x00", "an unstorable id"},
		{oa, "x\xff", "an invalid UTF-8 id"},
		{oa + "\x00", "x", "an unstorable organization id"},
		{oa + "\xff", "x", "an invalid UTF-8 organization id"},
		{oa, "p2", "a project's id"},
		{oa, holderThread("p1"), "a thread's id"},
	} {
		if c.id == "p2" && k.isProject || c.id == holderThread("p1") && k.kind == store.KindThread {
			continue // the kind's own item
		}
		_, err := k.get(ctx, s, c.org, c.id)
		is.True(errors.Is(err, store.ErrNotFound)) // c.why
	}
}

// kindCancelled calls every method of k with a cancelled context: each
// returns its error, wrapped, and stores nothing.
func kindCancelled(t *testing.T, k kindCase, s subject, oa, ob string) {
	is := is.New(t)
	is.NoErr(k.put(ctx, s, oa, "x", "p1", 0))
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, _, err := k.list(oa, k.scope("p1"), nil, time.Time{})(cctx, s, all)
	is.True(errors.Is(err, context.Canceled)) // a cancelled list
	err = k.put(cctx, s, oa, "xc", "p1", 0)
	is.True(errors.Is(err, context.Canceled)) // a cancelled put
	_, err = k.get(cctx, s, oa, "x")
	is.True(errors.Is(err, context.Canceled)) // a cancelled get
	err = k.del(cctx, s, oa, "x")
	is.True(errors.Is(err, context.Canceled)) // a cancelled delete
	_, err = k.get(ctx, s, oa, "xc")
	is.True(errors.Is(err, store.ErrNotFound)) // a cancelled put stores nothing
	getItem(t, k, s, oa, "x")                  // a cancelled delete deletes nothing
}

// kindRejects puts items of k that must be refused: an empty or
// unstorable id, or no organization (store.ErrInvalid), into an unknown
// organization or project, or another organization's project
// (store.ErrNotFound); none of them is stored.
func kindRejects(t *testing.T, k kindCase, s subject, oa, ob string) {
	is := is.New(t)
	for _, id := range append([]string{""}, unstorable("x")...) {
		is.True(errors.Is(k.put(ctx, s, oa, id, "p1", 0), store.ErrInvalid)) // an empty or unstorable id
	}
	is.True(errors.Is(k.put(ctx, s, "", "x", "p1", 0), store.ErrInvalid))             // no organization
	is.True(errors.Is(k.put(ctx, s, "org_unknown", "x", "p1", 0), store.ErrNotFound)) // an unknown organization
	for _, org := range unstorable(oa) {
		err := k.put(ctx, s, org, "x", "p1", 0)
		is.True(err != nil && !errors.Is(err, store.ErrNotFound)) // an unstorable organization id is invalid, not missing
	}
	if !k.isProject {
		is.NoErr(projectKind.put(ctx, s, oa, "p\ufffd", "", 0))
		for _, p := range append(unstorable("p1"), unstorable("p\ufffd")...) {
			err := k.put(ctx, s, oa, "x", p, 0)
			is.True(err != nil && !errors.Is(err, store.ErrNotFound)) // an unstorable project id is invalid, not missing
		}
		is.True(errors.Is(k.put(ctx, s, oa, "x", "nope", 0), store.ErrNotFound)) // an unknown project
		is.NoErr(projectKind.put(ctx, s, ob, "pb", "", 0))
		is.True(errors.Is(k.put(ctx, s, oa, "x", "pb", 0), store.ErrNotFound)) // another organization's project
	}
	_, err := k.get(ctx, s, oa, "x")
	is.True(errors.Is(err, store.ErrNotFound)) // nothing refused is stored
	full, _, err := k.list(oa, k.scope("p1"), nil, time.Time{})(ctx, s, all)
	is.NoErr(err)
	if k.isProject {
		full = slices.DeleteFunc(full, func(id string) bool { return slices.Contains(kindProjects, id) })
	}
	is.Equal(full, []string{}) // nothing refused is listed
}
