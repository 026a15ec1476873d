package store

import (
	"slices"
	"testing"

	"github.com/matryer/is"
)

// TestMemoryKinds checks the kinds Memory keeps in a table (memoryKinds):
// each once, in the order of Kinds (the order of a deleted project's
// events), and each tenant's table of a kind is of the kind's type
// (itemDesc.of would panic otherwise).
func TestMemoryKinds(t *testing.T) {
	is := is.New(t)
	tn := newTenant(Organization{ID: "o"})
	is.Equal(len(tn.tables()), len(memoryKinds))
	last := -1
	for _, tb := range tn.tables() {
		i := slices.Index(Kinds, tb.kind)
		is.True(i > last) // a kind of Kinds, once, in their order
		last = i
	}
	is.True(projectItems.of(tn) != nil)
	is.True(milestoneItems.of(tn) != nil)
	is.True(deliverableItems.of(tn) != nil)
	is.True(invoiceItems.of(tn) != nil)

	is.Equal(len(memoryKinds), len(tn.tables()))
}
