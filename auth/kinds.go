package auth

import "github.com/clientstatus/clientstatus/store"

// scopeOfKind is the scope that reads each kind of item.
var scopeOfKind = map[store.Kind]Scope{
	store.KindProject:     ScopeProjects,
	store.KindMilestone:   ScopeProjects,
	store.KindDeliverable: ScopeDeliverables,
	store.KindInvoice:     ScopeInvoices,
	store.KindThread:      ScopeThreads,
	store.KindMessage:     ScopeThreads,
}

// ScopeOfKind returns the scope that reads items of kind k ("" for a kind
// it does not know).
func ScopeOfKind(k store.Kind) Scope { return scopeOfKind[k] }

// Kinds returns the kinds of items r lets its credential read, in the
// order of store.Kinds: nil when its scopes cover every kind (as a
// query's OnlyKinds wants it).
func (r Restriction) Kinds() []store.Kind {
	kinds := []store.Kind{}
	for _, k := range store.Kinds {
		if r.Allows(scopeOfKind[k]) {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) == len(store.Kinds) {
		return nil
	}
	return kinds
}
