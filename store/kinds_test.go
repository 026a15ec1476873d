package store

import (
	"slices"
	"testing"

	"github.com/matryer/is"
)

// TestKindTable checks Kinds against the contract.
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
}
