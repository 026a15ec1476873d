package storetest

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/clientstatus/clientstatus/store"
	"github.com/matryer/is"
)

// kindCases lists the descriptor of every kind of item, in the order of
// store.Kinds. The cases that hold for every kind (kindcases.go:
// restrictions, deletion records and cascades, departures, data versions,
// events, UpdatedAt and UpdatedSince, scoping, cancellation) and the
// functions that enumerate kinds (testVersions, PutAgainElsewhere) iterate
// over it, and Run runs each descriptor's own cases. Only describeKind
// writes it: a new kind of item adds its file (its descriptor, registered
// by describeKind, its cases and its Unimplemented methods) and edits no
// other file of storetest:
//
//	var noteKind = describeKind(kindCase{kind: store.KindNote, ...})
var kindCases []kindCase

// describeKind registers k in kindCases at the place of its kind in
// store.Kinds, and returns it. store.Kinds is complete before storetest
// is initialized, so the place is known whatever the order Go initializes
// the descriptors in (their files' names). It panics on a kind that is
// not one of store.Kinds and on a kind described twice: errors of the
// program that every test catches. (testKindsDescribed checks that no
// kind lacks a descriptor.)
func describeKind(k kindCase) kindCase {
	place := func(c kindCase) int { return slices.Index(store.Kinds, c.kind) }
	at := place(k)
	if at < 0 {
		panic(fmt.Sprintf("storetest: descriptor of kind %q, which is not one of store.Kinds", k.kind))
	}
	i, found := slices.BinarySearchFunc(kindCases, at, func(c kindCase, at int) int { return cmp.Compare(place(c), at) })
	if found {
		panic(fmt.Sprintf("storetest: kind %q described twice", k.kind))
	}
	kindCases = slices.Insert(kindCases, i, k)
	return k
}

// kindCase describes one kind of item (one of store.Kinds) to the cases
// that hold for every kind: how to put, read, list and delete one item of
// it, and how it belongs to a project. Each resource's descriptor lives in
// its own file.
type kindCase struct {
	kind store.Kind
	// isProject: the items are projects; an item's project is itself,
	// and put's project is ignored.
	isProject bool
	// optional: an item may belong to no project (put with project "").
	optional bool
	// detached: an item stays when its project is deleted, with no
	// project (an invoice); otherwise it goes with it.
	detached bool
	// perProject: its list reads one project's items and takes no
	// OnlyProjects (milestones: the handler checks the project).
	perProject bool

	// put writes item id of org in project ("" for none), in variant n:
	// the same n puts the same item again, another n changes a field
	// that clients see (never its status). It puts first whatever else
	// the item needs (a message's thread); the organization and the
	// project must exist.
	put func(ctx context.Context, s Subject, org, id, project string, n int) error
	// get reads item id of org as a client sees it; an error wrapping
	// store.ErrNotFound when there is none.
	get func(ctx context.Context, s Subject, org, id string) (kindItem, error)
	// list is the list of org's items of the kind, of project ("" for
	// all; required when perProject), restricted to only (nil for no
	// restriction) and changed since since (zero for any).
	list func(org, project string, only []string, since time.Time) fetchFunc
	// del deletes item id of org (by store.Deleter or
	// store.ThreadWriter, as the kind is deleted).
	del func(ctx context.Context, s Subject, org, id string) error

	// cases are the kind's own cases, which Run runs beside the suite's.
	cases []suiteCase
}

// kindItem is what the cases compare of an item read: its project ("" for
// none), its UpdatedAt and its fields (describe).
type kindItem struct {
	project string
	updated time.Time
	fields  string
}

// fetchFunc reads one page of a list as ids, and the total.
type fetchFunc = func(ctx context.Context, s store.Store, r store.PageRequest) (ids []string, total int, err error)

// suiteCase is one case of Run: a name and what it runs.
type suiteCase struct {
	name string
	run  func(t *testing.T, open func(t *testing.T) Subject)
}

// projectOf is the project of item id put in project.
func (k kindCase) projectOf(id, project string) string {
	if k.isProject {
		return id
	}
	return project
}

// of is the record of item id of kind k, as deletions and the cases write
// it: "kind id".
func (k kindCase) of(id string) string { return string(k.kind) + " " + id }

// kindCasesOwn is the cases of every descriptor, in the order of
// kindCases.
func kindCasesOwn() []suiteCase {
	var out []suiteCase
	for _, k := range kindCases {
		out = append(out, k.cases...)
	}
	return out
}

// testKindsDescribed checks that kindCases describes each of store.Kinds
// once, in its order: a kind without a descriptor would escape every case
// of every kind. A second descriptor of a kind, or one of no kind, panics
// (and leaves kindCases as it was).
func testKindsDescribed(t *testing.T) {
	is := is.New(t)
	var got []store.Kind
	for _, k := range kindCases {
		got = append(got, k.kind)
	}
	is.Equal(got, store.Kinds) // one descriptor per kind, in the order of store.Kinds

	panics := func(k store.Kind) (msg any) {
		defer func() { msg = recover() }()
		describeKind(kindCase{kind: k})
		return nil
	}
	is.True(panics(store.KindInvoice) != nil) // a kind described twice
	is.True(panics("nope") != nil)            // a descriptor of no kind of store.Kinds
	is.Equal(len(kindCases), len(store.Kinds))
}

// optionalPtr is project as an optional reference: nil for "".
func optionalPtr(project string) *string {
	if project == "" {
		return nil
	}
	return ptr(project)
}
