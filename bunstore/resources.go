package bunstore

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"reflect"

	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/store"
)

// A resource's list and get are made from a description of its table
// (resource), so that a new resource's bunstore part is its row type, its
// conversions, its writes and one resource value: its reads follow the
// same rules as every other's, which these queries are the one copy of.
//
//   - Scoping: every query starts with the organization (the first column
//     of every index), then the resource's visibility condition, if any,
//     then its filters in index order (parent, project, status), then
//     DueBefore.
//   - OnlyProjects: the restriction is a WHERE clause on the project
//     column (restrict), so the page and its total hold only what the key
//     may see; an empty one answers without a query (allowed).
//   - UpdatedSince: the list's own order becomes (updated_at, id), its
//     total is counted, and the page carries SyncedThrough (list).
//   - Totals: summed from item_counts for a resource its triggers count,
//     when item_counts holds the list's filters (tallied), counted from
//     the list's index otherwise (selectPage).
//   - A value no PostgreSQL text can hold matches nothing (storable).
//   - Errors: a missing item wraps store.ErrNotFound, a failed query is
//     failure's (store.ErrUnavailable on a timeout or a lost database).

// resource describes the table of one kind of item for the generic list
// and get: R is its row, T its item.
type resource[R counted, T any] struct {
	kind   string // singular, as in errors and in item_counts: "milestone"
	plural string // as in errors: "milestones"
	alias  string // R's table alias: "m"
	// order is the list's ORDER BY without UpdatedSince, on alias, ending
	// in a unique column (id) so that pages do not overlap.
	order string
	// parent, project and status are the columns (on alias) of the list's
	// filters, in the order its indexes hold them; "" for a filter the
	// resource does not have. project is also the column a restriction to
	// some projects applies to (a project's own id for projects).
	parent, project, status string
	// visible is the condition on the rows clients may see, which every
	// read adds; "" when they see every row.
	visible string
	// counted says item_counts holds the resource's totals, under kind;
	// else a list counts its rows.
	counted bool
	// columns, when not nil, adds columns to every row read, after a
	// page's limit (a message's attachments, gathered as JSON).
	columns func(*Store, *bun.SelectQuery) *bun.SelectQuery
	// item converts a row to the item a read returns; rowOf, for a resource
	// put by putItems, an item to its row.
	item  func(R) T
	rowOf func(T) R
}

// putItems puts items as rows of r (see put), in one statement per
// thousand: either all of them or, on an error, none. It validates every
// one first, and returns the first invalid one's error without writing
// any.
func putItems[R interface {
	counted
	keyed
}, T interface{ Validate() error }](ctx context.Context, s *Store, r resource[R, T], items ...T) error {
	rows := make([]R, len(items))
	for i, v := range items {
		if err := v.Validate(); err != nil {
			return err
		}
		rows[i] = r.rowOf(v)
	}
	what := fmt.Sprintf("%d %s", len(rows), r.plural)
	if len(rows) == 1 {
		what = fmt.Sprintf("%s %q", r.kind, rows[0].key()[1])
	}
	return put(ctx, s, what, rows)
}

// listing is a list request in a resource's terms: its query's page,
// status ("" for any) and filters, and the parent a list under one (a
// thread's messages) is of.
type listing struct {
	store.PageRequest
	store.ListFilter
	status, parent string
	// what names the list in its errors, after "list "; "" for the
	// plural.
	what string
}

// list returns a page of the organization's items that l asks for (see
// resource): one round trip, two with UpdatedSince (its SyncedThrough
// first).
func (r resource[R, T]) list(ctx context.Context, s *Store, orgID string, l listing) (store.Page[T], error) {
	only, nothing := allowed(l.OnlyProjects)
	if !storable(orgID, l.parent, l.ProjectID) || nothing {
		return none[T](ctx, l.PageRequest)
	}
	var count *bun.SelectQuery // nil: counted by selectPage
	if r.counted {
		count = s.tallied(orgID, r.kind, l, only)
	}
	order := r.order
	if !l.UpdatedSince.IsZero() { // the order of changes
		order = r.alias + ".updated_at, " + r.alias + ".id"
	}
	var columns func(*bun.SelectQuery) *bun.SelectQuery
	if r.columns != nil {
		columns = func(q *bun.SelectQuery) *bun.SelectQuery { return r.columns(s, q) }
	}
	return list(ctx, s, cmp.Or(l.what, r.plural), l.PageRequest, l.UpdatedSince, r.filter(s, orgID, l, only), count, order, columns, r.item)
}

// filter is the WHERE clause of a list: the organization, what clients
// see, then l's filters, one clause each: its parent, project and status,
// the restriction only (allowed's), DueBefore, UpdatedSince and After. A
// filter of a column R has not matches no row (see where).
func (r resource[R, T]) filter(s *Store, orgID string, l listing, only []string) func(*bun.SelectQuery) *bun.SelectQuery {
	return func(sq *bun.SelectQuery) *bun.SelectQuery {
		sq = sq.Where("?.org_id = ?", bun.Ident(r.alias), orgID)
		if r.visible != "" {
			sq = sq.Where(r.visible)
		}
		for _, f := range [...]struct{ column, value string }{{r.parent, l.parent}, {r.project, l.ProjectID}, {r.status, l.status}} {
			if f.value != "" {
				sq = sq.Where("? = ?", bun.Safe(f.column), f.value)
			}
		}
		sq = restrict(sq, r.project, only) // a NULL project (an invoice of none) matches no restriction
		if !l.DueBefore.IsZero() {
			sq = r.where(s, sq, "due_at", "? < ?", l.DueBefore) // a NULL due_at matches nothing
		}
		if !l.UpdatedSince.IsZero() {
			alias := bun.Ident(r.alias)
			sq = sq.Where("?.updated_at >= ?", alias, l.UpdatedSince)
			if !l.After.IsZero() { // a range of the changes indexes
				sq = sq.Where("(?.updated_at, ?.id) > (?, ?)", alias, alias, l.After.At, l.After.ID)
			}
		}
		return sq
	}
}

// where adds the condition cond on R's column name (the first ?) and
// value, or, for a column R has not, one that no row meets.
func (r resource[R, T]) where(s *Store, sq *bun.SelectQuery, name, cond string, value any) *bun.SelectQuery {
	if !s.tableOf((*R)(nil)).HasField(name) {
		return sq.Where("false")
	}
	return sq.Where(cond, bun.Safe(r.alias+"."+name), value)
}

// beyond reports whether f sets a filter that known does not clear: a
// list whose fast answer (item_counts' tallies, the prepared page) knows
// only those filters must take the generic one, so that a filter added to
// store.ListFilter is never answered wrong.
func beyond(f store.ListFilter, known func(*store.ListFilter)) bool {
	known(&f)
	return !reflect.ValueOf(f).IsZero()
}

// get returns the organization's item with that id, one that clients may
// see and, when onlyProjects is not nil, of one of those projects; the
// error wraps store.ErrNotFound when there is none.
func (r resource[R, T]) get(ctx context.Context, s *Store, orgID, id string, onlyProjects []string) (T, error) {
	row, err := r.row(ctx, s, orgID, id, onlyProjects)
	if err != nil {
		var zero T
		return zero, err
	}
	return r.item(row), nil
}

// row is get's row, every column of the table read (the triggers' too).
func (r resource[R, T]) row(ctx context.Context, s *Store, orgID, id string, onlyProjects []string) (R, error) {
	var row R
	only, nothing := allowed(onlyProjects)
	if !storable(orgID, id) || nothing {
		return row, unmatched(ctx, fmt.Errorf("bunstore: %s %q: %w", r.kind, id, store.ErrNotFound))
	}
	ctx, cancel := s.query(ctx)
	defer cancel()
	q := s.newSelect(&row).ColumnExpr("?TableAlias.*")
	if r.columns != nil {
		q = r.columns(s, q)
	}
	q = q.Where("?.org_id = ? AND ?.id = ?", bun.Ident(r.alias), orgID, bun.Ident(r.alias), id)
	if r.visible != "" {
		q = q.Where(r.visible)
	}
	if r.project != "" {
		q = restrict(q, r.project, only)
	}
	err := q.Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return row, fmt.Errorf("bunstore: %s %q: %w", r.kind, id, store.ErrNotFound)
	}
	if err != nil {
		return row, failure(ctx, store.ErrUnavailable, fmt.Sprintf("%s %q", r.kind, id), err)
	}
	return row, nil
}

// under is list for a list under a parent (a project's milestones, a
// thread's messages), with l.what naming it: a page with items proves the
// parent; an empty one takes a second round trip, under the same
// deadline, that looks for it with parent (a SELECT of its row), and
// answers notFound when there is none.
func (r resource[R, T]) under(ctx context.Context, s *Store, orgID string, l listing, parent *bun.SelectQuery, notFound error) (store.Page[T], error) {
	ctx, cancel := s.query(ctx)
	defer cancel()
	p, err := r.list(ctx, s, orgID, l)
	if err != nil || len(p.Items) > 0 {
		return p, err
	}
	var found bool
	if err := s.db.NewSelect().ColumnExpr("EXISTS (?)", parent.ColumnExpr("1")).Scan(ctx, &found); err != nil {
		return store.Page[T]{}, failure(ctx, store.ErrUnavailable, "list "+l.what, err)
	}
	if !found {
		return store.Page[T]{}, notFound
	}
	return p, nil
}
