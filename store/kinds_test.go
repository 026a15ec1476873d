package store

import (
	"slices"
	"testing"

	"github.com/matryer/is"
)

// TestKindTable checks Kinds against the contract,
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
