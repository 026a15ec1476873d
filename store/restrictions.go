package store

import "slices"

// Restrictable is the optional interface of a store whose own queries
// honour the restrictions of restricted API keys (auth.Restriction), so
// that such a key never sees an item outside its projects, nor a total
// that counts one:
//
//   - OnlyProjects on every query type it takes: ProjectQuery,
//     DeliverableQuery, InvoiceQuery, and, when it implements them,
//     DeletionQuery (Changes), ThreadQuery and MessageQuery (Threads;
//     ListThreadMessages answers ErrNotFound for a thread outside them);
//   - OnlyKinds on DeletionQuery;
//   - the ProjectID of the Attachment that Threads.GetAttachment returns;
//   - the onlyProjects of Threads.GetMessage.
//
// statusapi serves a key restricted to projects only from a store that
// implements it, and refuses such a key (403 FORBIDDEN) on any other: a
// Store written before restrictions existed ignores the fields and would
// show everything. store.Memory and store/bunstore implement it; storetest
// checks the promise. Other gets need nothing of the store: each item
// names its project, and the handler checks it.
type Restrictable interface {
	// HonoursRestrictions does nothing: implementing it is the promise.
	HonoursRestrictions()
}

// InProjects reports whether an item of project id passes a query's
// OnlyProjects: always when only is nil, never when id is "" (an item of
// no project: a retainer invoice, an organization-wide thread) and only
// is not nil.
func InProjects(only []string, id string) bool {
	return only == nil || id != "" && slices.Contains(only, id)
}
