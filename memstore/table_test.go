package memstore

import (
	"slices"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/store"
)

// TestMemoryKinds checks the kinds the Store keeps in a table (memoryKinds):
// each once, in the order of Kinds (the order of a deleted project's
// events), and each tenant's table of a kind is of the kind's type
// (itemDesc.of would panic otherwise).
func TestMemoryKinds(t *testing.T) {
	is := is.New(t)
	tn := newTenant(store.Organization{ID: "o"})
	is.Equal(len(tn.rows), len(memoryKinds))
	last := -1
	for _, tb := range tn.rows {
		i := slices.Index(store.Kinds, tb.kind)
		is.True(i > last) // a kind of Kinds, once, in their order
		last = i
	}
	is.True(projectItems.of(tn) != nil)
	is.True(milestoneItems.of(tn) != nil)
	is.True(deliverableItems.of(tn) != nil)
	is.True(invoiceItems.of(tn) != nil)

	is.Equal(len(memoryKinds), len(tn.rows))
}

// TestAboutKindTables checks that the Store keeps a table of every kind a
// thread may be about.
func TestAboutKindTables(t *testing.T) {
	is := is.New(t)
	tables := map[store.Kind]bool{}
	for _, tb := range newTenant(store.Organization{}).rows {
		is.True(tb.kind.Valid())  // a table of a kind of Kinds
		is.True(!tables[tb.kind]) // one table per kind
		tables[tb.kind] = true
	}
	for _, k := range store.Kinds {
		if k.About() {
			is.True(tables[k]) // the Store keeps a table of each kind a thread may be about
		}
	}
}
