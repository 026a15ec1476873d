package auth_test

import (
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/store"
)

// TestEveryKindHasAScope: a kind without a scope would let a restricted
// key read none of its deletion records and events, and statusapi refuses
// to declare its routes (declare panics).
func TestEveryKindHasAScope(t *testing.T) {
	is := is.New(t)
	for _, k := range store.Kinds {
		is.True(auth.ScopeOfKind(k) != "") // auth/kinds.go names the kind's scope
	}
}
