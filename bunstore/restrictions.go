package bunstore

import (
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/clientstatus/clientstatus/store"
)

// Every list honours its query's OnlyProjects in its WHERE clause, so the
// page and its total hold only the restricted key's items, and
// ListDeletions OnlyKinds too (the promise of store.Store).

// allowed is a restriction to some values of a column (a query's
// OnlyProjects or OnlyKinds) as a query applies it: nil for none, else the
// values PostgreSQL can store (the others match nothing, see storable),
// and whether nothing at all can match, so that the list answers without
// a query.
func allowed[S ~string](values []S) (kept []string, nothing bool) {
	if values == nil {
		return nil, false
	}
	kept = make([]string, 0, len(values))
	for _, v := range values {
		if store.Storable(string(v)) {
			kept = append(kept, string(v))
		}
	}
	return kept, len(kept) == 0
}

// restrict keeps the rows whose column is one of values, when values is
// not nil (see allowed). A NULL column (a retainer invoice's project)
// matches no value.
func restrict(sq *bun.SelectQuery, column string, values []string) *bun.SelectQuery {
	if values == nil {
		return sq
	}
	return sq.Where("? = ANY(?::text[])", bun.Safe(column), pgdialect.Array(values))
}
