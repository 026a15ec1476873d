package storetest

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/store"
)

// kindCases describes every kind of item, in the order of store.Kinds:
// the rules that hold for every kind (kindcases.go, kindchanges.go) and
// Sample iterate over it. writerKinds are the kinds store.Writer puts,
// whose rules RunRead and RunChanges check; threadKinds, those of
// store.ThreadWriter, RunThreads'. A new kind of item adds its descriptor
// here, and to the kinds of the part that writes it.
var (
	writerKinds = []kindCase{projectKind, milestoneKind, deliverableKind, invoiceKind}
	threadKinds = []kindCase{threadKind, messageKind}
	kindCases   = append(append([]kindCase{}, writerKinds...), threadKinds...)
)

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
	put func(ctx context.Context, s subject, org, id, project string, n int) error
	// get reads item id of org as a client sees it; an error wrapping
	// store.ErrNotFound when there is none.
	get func(ctx context.Context, s subject, org, id string) (kindItem, error)
	// list is the list of org's items of the kind, of project ("" for
	// all; required when perProject), restricted to only (nil for no
	// restriction) and changed since since (zero for any).
	list func(org, project string, only []string, since time.Time) fetchFunc
	// del deletes item id of org (by store.Deleter or
	// store.ThreadWriter, as the kind is deleted).
	del func(ctx context.Context, s subject, org, id string) error
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

// testKindsDescribed checks that kindCases describes each of store.Kinds
// once, in its order: a kind without a descriptor would escape every case
// of every kind.
func testKindsDescribed(t *testing.T, _ func(t *testing.T) subject) {
	var got []store.Kind
	for _, k := range kindCases {
		got = append(got, k.kind)
	}
	is.New(t).Equal(got, store.Kinds) // one descriptor per kind, in the order of store.Kinds
}

// optionalPtr is project as an optional reference: nil for "".
func optionalPtr(project string) *string {
	if project == "" {
		return nil
	}
	return ptr(project)
}

// KindWriter is what puts items of every kind, as Sample does.
type KindWriter interface {
	store.Writer
	store.ThreadWriter
}

// SampleID is the id of the item of kind that Sample puts: "<kind>_sample"
// ("note_sample").
func SampleID(kind store.Kind) string { return string(kind) + "_sample" }

// Sample puts one item of kind, with id SampleID(kind), in project of
// org, through the kind's descriptor (the one its conformance cases put):
// test data of a kind for a test that is about every kind rather than
// this one, such as statusapi's tests of the conventions every route
// shares, so that a new kind's routes are walked on an item of it without
// a fixture of their own. The organization and the project must exist.
func Sample(ctx context.Context, s KindWriter, kind store.Kind, org, project string) error {
	i := slices.IndexFunc(kindCases, func(k kindCase) bool { return k.kind == kind })
	if i < 0 {
		return fmt.Errorf("storetest: no descriptor of kind %q", kind)
	}
	k := kindCases[i]
	return k.put(ctx, subject{Writer: s, ThreadWriter: s}, org, SampleID(kind), project, 0)
}
