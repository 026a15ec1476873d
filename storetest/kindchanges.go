package storetest

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/store"
)

// The cases of changes that hold for every kind of item (see
// kindcases.go): UpdatedAt and UpdatedSince, deletion records, a deleted
// project's items, departures, data versions and events.

// kindUpdatedAt checks that k's UpdatedAt is the store's: set by a put,
// kept by a put that changes nothing, moved by a change; and that a list
// changed since holds what changed, in order of change.
func kindUpdatedAt(t *testing.T, k kindCase, s subject, oa, ob string) {
	is := is.New(t)
	from := s.Now()
	is.NoErr(k.put(ctx, s, oa, "y", "p1", 0))
	is.NoErr(k.put(ctx, s, oa, "x", "p1", 0))
	within(is, getItem(t, k, s, oa, "x").updated, from, s.Now()) // a new item gets the time of its put
	s.Advance(tick)
	from = s.Now()
	is.NoErr(k.put(ctx, s, oa, "y", "p1", 1))
	y := getItem(t, k, s, oa, "y").updated
	within(is, y, from, s.Now()) // a change moves UpdatedAt to the time of the put
	s.Advance(tick)
	is.NoErr(k.put(ctx, s, oa, "x", "p1", 1))
	x := getItem(t, k, s, oa, "x").updated
	is.True(x.After(y)) // a change moves UpdatedAt forward
	s.Advance(tick)
	is.NoErr(k.put(ctx, s, oa, "y", "p1", 1))           // the same item again
	is.True(getItem(t, k, s, oa, "y").updated.Equal(y)) // a put that changes nothing keeps UpdatedAt

	scope := k.scope("p1")
	lists := []list{
		{"changed since y's change", k.list(oa, scope, nil, y), []string{"y", "x"}},
		{"changed since x's change", k.list(oa, scope, nil, x), []string{"x"}},
		{"changed just after x's change", k.list(oa, scope, nil, x.Add(time.Microsecond)), []string{}},
		{"org_b's, changed since", k.list(ob, scope, nil, y), []string{}},
	}
	checkLists(t, s, lists)
	walk(t, s, lists[0])
}

// kindDeletions deletes items of k and reads their deletion records:
// kind, id, project, date, the kind and restriction filters, not-found
// deletes, and the record dropped when the item is put again.
func kindDeletions(t *testing.T, k kindCase, s subject, oa, ob string) {
	is := is.New(t)
	is.NoErr(k.put(ctx, s, oa, "x", "p1", 0))
	is.NoErr(k.put(ctx, s, oa, "y", "p2", 0))
	is.NoErr(k.put(ctx, s, ob, "x", "p1", 0))
	if k.optional {
		is.NoErr(k.put(ctx, s, oa, "z", "", 0))
	}
	s.Advance(tick)
	is.NoErr(k.put(ctx, s, oa, "y", "p2", 1))
	since := getItem(t, k, s, oa, "y").updated
	s.Advance(tick)
	from := s.Now()
	is.NoErr(k.del(ctx, s, oa, "x")) // deleting an item
	want := []string{k.of("x")}
	if k.optional {
		s.Advance(tick)
		is.NoErr(k.del(ctx, s, oa, "z")) // deleting an item of no project
		want = append(want, k.of("z"))
	}
	to := s.Now()
	_, err := k.get(ctx, s, oa, "x")
	is.True(errors.Is(err, store.ErrNotFound)) // a deleted item is not found
	for _, c := range []struct{ org, id, why string }{
		{oa, "x", "an item is deleted once"},
		{oa, "nope", "an unknown item"},
		{ob, "y", "an item of the other organization"},
		{"org_unknown", "y", "an unknown organization"},
	} {
		is.True(errors.Is(k.del(ctx, s, c.org, c.id), store.ErrNotFound)) // c.why
	}
	getItem(t, k, s, ob, "x") // org_b's x stays

	p, err := s.ListDeletions(ctx, oa, store.DeletionQuery{PageRequest: all, Since: since})
	is.NoErr(err)
	is.Equal(ids(p.Items), want) // one record per item deleted, nothing else
	for _, d := range p.Items {
		within(is, d.DeletedAt, from, to)
		wantP := ""
		if d.ID == "x" {
			wantP = k.projectOf("x", "p1")
		}
		is.Equal(d.ProjectID, wantP) // a record names the project the item was in
	}
	px := k.projectOf("x", "p1")
	others := slices.DeleteFunc(slices.Clone(store.Kinds), func(o store.Kind) bool { return o == k.kind })
	lists := []list{
		{"of the kind", deletions(oa, store.DeletionQuery{Since: since, Kind: k.kind}), want},
		{"of the kind only", deletions(oa, store.DeletionQuery{Since: since, OnlyKinds: []store.Kind{k.kind}}), want},
		{"of the other kinds only", deletions(oa, store.DeletionQuery{Since: since, OnlyKinds: others}), []string{}},
		{"of x's project", deletions(oa, store.DeletionQuery{Since: since, OnlyProjects: []string{px}}), []string{k.of("x")}},
		{"of p2", deletions(oa, store.DeletionQuery{Since: since, OnlyProjects: []string{"p2"}}), []string{}},
		{"of no project", deletions(oa, store.DeletionQuery{Since: since, OnlyProjects: []string{}}), []string{}},
		{"of org_b", deletions(ob, store.DeletionQuery{Since: since}), []string{}},
	}
	checkLists(t, s, lists)
	walk(t, s, lists[:1]...)

	is.NoErr(k.put(ctx, s, oa, "x", "p1", 0)) // put again
	checkLists(t, s, []list{{"after x is put again", deletions(oa, store.DeletionQuery{Since: since}), want[1:]}})
}

// kindProjectDeleted deletes a project that holds items of k: they go with
// it, each with a deletion record naming it, or (a detached kind) stay,
// with no project and a new UpdatedAt, and leave it for a key restricted
// to it; items of other projects and organizations are untouched, and a
// project put again with the same id holds none of them.
func kindProjectDeleted(t *testing.T, k kindCase, s subject, oa, ob string) {
	is := is.New(t)
	is.NoErr(k.put(ctx, s, oa, "x", "p1", 0))
	is.NoErr(k.put(ctx, s, oa, "y", "p2", 0))
	is.NoErr(k.put(ctx, s, ob, "x", "p1", 0))
	x, y := getItem(t, k, s, oa, "x"), getItem(t, k, s, oa, "y")
	last := latest(t, s, oa)
	s.Advance(tick)
	from := s.Now()
	is.NoErr(s.DeleteProject(ctx, oa, "p1"))
	to := s.Now()

	byKind := func(only []string) list {
		return list{"", deletions(oa, store.DeletionQuery{Since: x.updated, Kind: k.kind, OnlyProjects: only}), nil}
	}
	events := readEvents(t, s, oa, last, store.EventQuery{OnlyKinds: []store.Kind{k.kind}})
	if k.detached {
		got := getItem(t, k, s, oa, "x")
		is.Equal(got.project, "")             // the item stays, without a project
		is.True(got.updated.After(x.updated)) // taking its project is a change
		within(is, got.updated, from, to)
		l, onlyP1 := byKind(nil), byKind([]string{"p1"})
		l.name, l.want, onlyP1.name, onlyP1.want = "unrestricted", []string{}, "of p1", []string{k.of("x")}
		checkLists(t, s, []list{l, onlyP1})                                                              // no deletion; a departure for a key of the project
		is.Equal(evsOf(events), []ev{{Type: string(k.kind) + ".updated", ItemID: "x", ProjectID: "p1"}}) // updated, with the project it left
	} else {
		_, err := k.get(ctx, s, oa, "x")
		is.True(errors.Is(err, store.ErrNotFound)) // the item goes with its project
		p, err := s.ListDeletions(ctx, oa, store.DeletionQuery{PageRequest: all, Since: x.updated, Kind: k.kind})
		is.NoErr(err)
		is.Equal(ids(p.Items), []string{k.of("x")}) // its deletion is recorded
		is.Equal(p.Items[0].ProjectID, "p1")        // with the project's id
		within(is, p.Items[0].DeletedAt, from, to)
		is.Equal(evsOf(events), []ev{{Type: string(k.kind) + ".deleted", ItemID: "x", ProjectID: "p1"}}) // deleted, with its project
	}
	is.True(getItem(t, k, s, oa, "y").updated.Equal(y.updated)) // an item of another project is untouched
	getItem(t, k, s, ob, "x")                                   // org_b's x stays

	is.NoErr(projectKind.put(ctx, s, oa, "p1", "", 0)) // the project put again
	checkLists(t, s, []list{{"of p1 put again", k.list(oa, "p1", nil, time.Time{}), []string{}}})
}

// kindOrganizationDeleted deletes an organization holding items of k,
// visible and internal: they go with it; the other organization's stay;
// the organization put again holds none of them.
func kindOrganizationDeleted(t *testing.T, k kindCase, s subject, oa, ob string) {
	is := is.New(t)
	is.NoErr(k.put(ctx, s, oa, "x", "p1", 0))
	is.NoErr(k.put(ctx, s, ob, "x", "p1", 0))
	is.NoErr(s.DeleteOrganization(ctx, oa))
	_, err := k.get(ctx, s, oa, "x")
	is.True(errors.Is(err, store.ErrNotFound))                             // an item goes with its organization
	is.True(errors.Is(k.put(ctx, s, oa, "y", "p1", 0), store.ErrNotFound)) // a deleted organization takes no items
	is.True(errors.Is(k.del(ctx, s, oa, "x"), store.ErrNotFound))          // nor has any to delete
	getItem(t, k, s, ob, "x")                                              // the other organization's stays
	is.NoErr(s.PutOrganization(ctx, store.Organization{ID: oa, Name: oa, Plan: "growth"}))
	if !k.isProject {
		is.NoErr(projectKind.put(ctx, s, oa, "p1", "", 0))
	}
	checkLists(t, s, []list{{"of the organization put again", k.list(oa, k.scope("p1"), nil, time.Time{}), []string{}}})
}

// kindDepartures moves an item of k between projects (and to none, when
// the kind allows it): a key restricted to a project it left sees it in
// its deletions, dated when it left, until it comes back; a key of where
// it is, and an unrestricted key, see nothing gone.
func kindDepartures(t *testing.T, k kindCase, s subject, oa, ob string) {
	is := is.New(t)
	is.NoErr(k.put(ctx, s, oa, "x", "p1", 0))
	s.Advance(tick)
	is.NoErr(k.put(ctx, s, oa, "y", "p3", 0))
	since := getItem(t, k, s, oa, "y").updated
	gone := func(name string, only []string, want ...string) list {
		out := []string{}
		for _, id := range want {
			out = append(out, k.of(id))
		}
		return list{name, deletions(oa, store.DeletionQuery{Since: since, Kind: k.kind, OnlyProjects: only}), out}
	}
	s.Advance(tick)
	is.NoErr(k.put(ctx, s, oa, "x", "p2", 0)) // p1 -> p2
	movedAt := getItem(t, k, s, oa, "x").updated
	checkLists(t, s, []list{
		gone("of p1", []string{"p1"}, "x"),
		gone("of p2", []string{"p2"}),
		gone("of p1 and p2", []string{"p1", "p2"}),
		gone("unrestricted", nil),
		{"of p1, of the kind only", deletions(oa, store.DeletionQuery{Since: since, OnlyProjects: []string{"p1"}, OnlyKinds: []store.Kind{k.kind}}), []string{k.of("x")}},
		{"of p1, since after the move", deletions(oa, store.DeletionQuery{Since: movedAt.Add(tick), OnlyProjects: []string{"p1"}}), []string{}},
		{"in p2", k.list(oa, "p2", nil, time.Time{}), []string{"x"}},
		{"in p1", k.list(oa, "p1", nil, time.Time{}), []string{}},
	})
	p, err := s.ListDeletions(ctx, oa, store.DeletionQuery{PageRequest: all, Since: since, OnlyProjects: []string{"p1"}})
	is.NoErr(err)
	is.Equal(len(p.Items), 1)
	is.True(p.Items[0].DeletedAt.Equal(movedAt)) // dated with the item's new stamp
	is.Equal(p.Items[0].ProjectID, "p1")         // the project it left

	if k.optional {
		s.Advance(tick)
		is.NoErr(k.put(ctx, s, oa, "x", "", 0)) // p2 -> none
		checkLists(t, s, []list{gone("of p2, moved to none", []string{"p2"}, "x"), gone("unrestricted, moved to none", nil)})
		s.Advance(tick)
		is.NoErr(k.put(ctx, s, oa, "x", "p2", 0)) // none -> p2
		checkLists(t, s, []list{gone("of p2, back", []string{"p2"}), gone("of p1, still gone", []string{"p1"}, "x")})
	}
	s.Advance(tick)
	is.NoErr(k.put(ctx, s, oa, "x", "p1", 0)) // back in p1
	checkLists(t, s, []list{
		gone("of p1, x back", []string{"p1"}),
		gone("of p2, x gone", []string{"p2"}, "x"),
		gone("unrestricted, x back", nil),
	})
	s.Advance(tick)
	is.NoErr(k.del(ctx, s, oa, "x"))
	checkLists(t, s, []list{
		gone("of p1, x deleted", []string{"p1"}, "x"),
		gone("of p2, x deleted", []string{"p2"}, "x"),
		gone("unrestricted, x deleted", nil, "x"),
	})
}

// kindPutAgainElsewhere deletes an item of k and puts it again in
// another project: the put drops its deletion record, so a key of the
// project the record named sees it leave that project instead; a key of
// where it is now, and an unrestricted key, see nothing gone. An item
// put again in its own project leaves nothing.
func kindPutAgainElsewhere(t *testing.T, k kindCase, s subject, oa, _ string) {
	is := is.New(t)
	is.NoErr(k.put(ctx, s, oa, "x1", "p1", 0))
	is.NoErr(k.put(ctx, s, oa, "x2", "p1", 0))
	s.Advance(tick)
	since := s.Now()
	is.NoErr(k.del(ctx, s, oa, "x1"))
	is.NoErr(k.del(ctx, s, oa, "x2"))
	s.Advance(tick)
	is.NoErr(k.put(ctx, s, oa, "x1", "p2", 0)) // elsewhere
	is.NoErr(k.put(ctx, s, oa, "x2", "p1", 0)) // in its own project
	gone := func(only []string) list {
		return list{fmt.Sprint("of ", only), deletions(oa, store.DeletionQuery{Since: since, OnlyProjects: only}), nil}
	}
	p1, p2, any := gone([]string{"p1"}), gone([]string{"p2"}), gone(nil)
	p1.want, p2.want, any.want = []string{k.of("x1")}, []string{}, []string{}
	checkLists(t, s, []list{p1, p2, any}) // left p1, as if moved; in p2 now; put again: no record
}

// kindVersions checks that each write of an item of k moves the
// organization's data version to a value never seen before.
func kindVersions(t *testing.T, k kindCase, s subject, oa, ob string) {
	is := is.New(t)
	seen := map[int64]string{}
	moved := versionCheck(t, s, oa, seen)
	moved("an item put", func() error { return k.put(ctx, s, oa, "x", "p1", 0) })
	moved("an item changed", func() error { return k.put(ctx, s, oa, "x", "p1", 1) })
	moved("an item deleted", func() error { return k.del(ctx, s, oa, "x") })
	is.True(len(seen) >= 3)
}

// kindEvents checks the events of k's writes: created, updated when a
// visible field changed and not when nothing did, deleted; each with its
// item and project, and dated as its item.
func kindEvents(t *testing.T, k kindCase, s subject, oa, ob string) {
	is := is.New(t)
	last := latest(t, s, oa)
	next := func() []store.Event {
		t.Helper()
		got := readEvents(t, s, oa, last, store.EventQuery{OnlyKinds: []store.Kind{k.kind}})
		last = latest(t, s, oa)
		return got
	}
	of := func(action, id, project string) []ev {
		return []ev{{Type: string(k.kind) + "." + action, ItemID: id, ProjectID: k.projectOf(id, project)}}
	}
	start := last
	is.NoErr(k.put(ctx, s, oa, "x", "p1", 0))
	created := next()
	is.Equal(evsOf(created), of("created", "x", "p1"))
	is.True(created[0].CreatedAt.Equal(getItem(t, k, s, oa, "x").updated)) // dated as its item
	is.Equal(created[0].Kind, k.kind)
	is.NoErr(k.put(ctx, s, oa, "x", "p1", 0))
	is.Equal(len(next()), 0) // a put that changes nothing makes no event
	s.Advance(tick)
	is.NoErr(k.put(ctx, s, oa, "x", "p1", 1))
	is.Equal(evsOf(next()), of("updated", "x", "p1"))
	if k.optional {
		is.NoErr(k.put(ctx, s, oa, "z", "", 0))
		is.Equal(evsOf(next()), of("created", "z", "")) // an item of no project
	}
	is.NoErr(k.put(ctx, s, ob, "x", "p1", 0))
	is.Equal(len(next()), 0) // another organization's events are its own
	is.NoErr(k.del(ctx, s, oa, "x"))
	is.Equal(evsOf(next()), of("deleted", "x", "p1"))

	// Restricted to projects: x's events only, for a key of its project.
	px := k.projectOf("x", "p1")
	xs := append(append(of("created", "x", "p1"), of("updated", "x", "p1")...), of("deleted", "x", "p1")...)
	is.Equal(evsOf(readEvents(t, s, oa, start, store.EventQuery{OnlyKinds: []store.Kind{k.kind}, OnlyProjects: []string{px}})), xs)
	is.Equal(len(readEvents(t, s, oa, start, store.EventQuery{OnlyKinds: []store.Kind{k.kind}, OnlyProjects: []string{"p2"}})), 0) // another project's key sees none
	is.Equal(len(readEvents(t, s, oa, start, store.EventQuery{OnlyKinds: []store.Kind{}})), 0)                                     // a key of no kind sees none
}

// evsOf is what kindEvents compares of events: type, item and project.
func evsOf(events []store.Event) []ev {
	out := []ev{}
	for _, e := range events {
		out = append(out, ev{Type: e.Type, ItemID: e.ItemID, ProjectID: e.ProjectID})
	}
	return out
}
