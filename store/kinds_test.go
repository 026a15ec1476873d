package store

import (
	"slices"
	"testing"

	"github.com/matryer/is"
)

// TestKindTable checks the table of kinds (kinds) against the contract,
// and that Memory keeps a table (tenant.tables) of every kind a thread
// may be about.
func TestKindTable(t *testing.T) {
	is := is.New(t)
	contract := []Kind{KindProject, KindMilestone, KindDeliverable, KindInvoice, KindThread, KindMessage}
	is.Equal(Kinds[:len(contract)], contract) // the contract's order; a kind added since comes after
	for i, k := range Kinds {
		is.True(!slices.Contains(Kinds[:i], k)) // each once
	}
	is.Equal(aboutKinds(), "milestone, deliverable or invoice")
	is.True(!Kind("nope").About())
	is.True(!KindProject.About())

	tables := map[Kind]bool{}
	for _, tb := range newTenant(Organization{}).tables() {
		is.True(tb.kind.Valid())  // a table of a kind of Kinds
		is.True(!tables[tb.kind]) // one table per kind
		tables[tb.kind] = true
	}
	for _, k := range Kinds {
		if k.About() {
			is.True(tables[k]) // Memory keeps a table of each kind a thread may be about
		}
	}
}

// TestDeclareKind checks that the kinds come out in the order of Kinds
// whatever the order they are declared in, and that a kind declared twice
// or badly named panics.
func TestDeclareKind(t *testing.T) {
	is := is.New(t)
	declared := []Kind{"widget", KindMessage, "note", KindProject, KindInvoice, "gadget", KindMilestone, KindThread, KindDeliverable}
	want := []Kind{KindProject, KindMilestone, KindDeliverable, KindInvoice, KindThread, KindMessage, "gadget", "note", "widget"}
	for _, order := range [][]Kind{declared, reversed(declared)} {
		var ks []Kind
		var rows []kindRow
		for _, k := range order {
			ks, rows = withKind(ks, rows, k, kindInfo{about: k == "note"})
		}
		is.Equal(ks, want)
		is.Equal(len(rows), len(ks))
		for i, r := range rows {
			is.Equal(r.kind, ks[i])
			is.Equal(r.info.about, r.kind == "note")
		}
	}

	panics := func(k Kind) (msg any) {
		defer func() { msg = recover() }()
		withKind(slices.Clone(Kinds), slices.Clone(kinds), k, kindInfo{})
		return nil
	}
	is.Equal(panics("note_2"), nil)
	for _, k := range []Kind{KindInvoice, "", "Note", "2notes", "_note", "note.created", "n ote", "nöte"} {
		is.True(panics(k) != nil) // declared twice, or not a kind name
	}
	is.Equal(len(Kinds), len(kinds)) // the test left the package's kinds alone
}

func reversed(ks []Kind) []Kind {
	out := slices.Clone(ks)
	slices.Reverse(out)
	return out
}
