package bunstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/clientstatus/clientstatus/store"
)

var (
	_ store.Changes = (*Store)(nil)
	_ store.Deleter = (*Store)(nil)
)

// deletionRow is the record of a removed item, written by the trigger
// clientstatus_record_deletion when the row goes, whoever deletes it.
type deletionRow struct {
	bun.BaseModel `bun:"table:deletions,alias:x"`

	OrgID     string    `bun:"org_id,pk"`
	Kind      string    `bun:"kind,pk"`
	ID        string    `bun:"id,pk"`
	ProjectID *string   `bun:"project_id"`
	DeletedAt time.Time `bun:"deleted_at,notnull"`
}

func (row deletionRow) deletion() store.Deletion {
	d := store.Deletion{Kind: store.Kind(row.Kind), ID: row.ID, DeletedAt: row.DeletedAt.UTC()}
	if row.ProjectID != nil {
		d.ProjectID = *row.ProjectID
	}
	return d
}

// deletionPageRow is a row of ListDeletions' query: the horizon, the count
// of matching records (null when since is before the horizon), and a
// record of the page or, when the page is empty or since is before the
// horizon, nulls.
type deletionPageRow struct {
	Horizon   time.Time `bun:"horizon"`
	Matching  *int      `bun:"matching"`
	Kind      *string   `bun:"kind"`
	ID        string    `bun:"id"`
	ProjectID *string   `bun:"project_id"`
	DeletedAt time.Time `bun:"deleted_at"`
}

// ListDeletions returns a page of the organization's deletion records at
// or after q.Since, in the order of the contract (DeletedAt, then kind,
// then id), through the index deletions_list (deletions_list_kind with a
// Kind), in one round trip, the total counted from the same index.
//
// With q.OnlyProjects, the records also hold the departures of items
// still stored (the table departures) that left one of those projects and
// are in none of them now, merged in the same order and counted in the
// same total (a UNION ALL, ordered and paged by the database).
//
// Records are kept store.DeletionRetention and a day more, then pruned by
// the statements that delete. The error wraps store.ErrSinceTooOld when
// q.Since is before the horizon: the later of the database's now minus
// store.DeletionRetention and when the schema began recording (the
// migration that added them; the table sync_horizon).
func (s *Store) ListDeletions(ctx context.Context, orgID string, q store.DeletionQuery) (store.Page[store.Deletion], error) {
	r := q.PageRequest
	if r.Page < 1 || r.Limit < 1 {
		return store.Page[store.Deletion]{}, fmt.Errorf("bunstore: list deletions: %w page request %+v", store.ErrInvalid, r)
	}
	// A restriction that keeps nothing still asks the database: a since
	// before the horizon is refused all the same.
	projects, _ := allowed(q.OnlyProjects)
	kinds, _ := allowed(q.OnlyKinds)
	if !storable(orgID, string(q.Kind)) {
		return none[store.Deletion](ctx, r)
	}
	ctx, cancel := s.query(ctx)
	defer cancel()
	what := fmt.Sprintf("list deletions of organization %q", orgID)
	synced, err := s.syncedThrough(ctx, q.Since.Add(time.Nanosecond)) // set even for a zero since
	if err != nil {
		return store.Page[store.Deletion]{}, failure(ctx, store.ErrUnavailable, what, err)
	}
	filter := func(sq *bun.SelectQuery, kind string) *bun.SelectQuery {
		sq = sq.Where("x.org_id = ?", orgID)
		if q.Kind != "" {
			sq = sq.Where("? = ?", bun.Safe(kind), q.Kind)
		}
		return restrict(sq, kind, kinds)
	}
	// records is the organization's records at or after since, as
	// x (kind, id, project_id, deleted_at): the deletion records, and with
	// OnlyProjects the departures (see 20261001000004_departures) of items
	// that left one of those projects and are in none of them now, one
	// per item, the latest.
	var records func() *bun.SelectQuery
	records = func() *bun.SelectQuery {
		dels := restrict(filter(s.newSelect((*deletionRow)(nil)), "x.kind"), "x.project_id", projects).
			Where("x.deleted_at >= ?", q.Since)
		if projects == nil {
			return dels
		}
		dels = dels.ColumnExpr("x.kind, x.id, x.project_id, x.deleted_at")
		deps := filter(s.db.NewSelect().TableExpr("? AS x", s.table("departures")), "x.kind").
			DistinctOn("x.kind, x.id").
			ColumnExpr("x.kind, x.id, x.project_id, x.departed_at AS deleted_at").
			Where("x.project_id = ANY(?::text[])", pgdialect.Array(projects)).
			Where("x.to_project_id IS NULL OR NOT x.to_project_id = ANY(?::text[])", pgdialect.Array(projects)).
			Where("x.departed_at >= ?", q.Since).
			OrderExpr("x.kind, x.id, x.departed_at DESC")
		return s.db.NewSelect().TableExpr("(? UNION ALL (?)) AS x", dels, deps)
	}
	if !q.After.IsZero() { // a walk by cursor: the records that follow it
		all := records
		records = func() *bun.SelectQuery {
			return s.db.NewSelect().TableExpr("(?) AS x", all().ColumnExpr("x.kind, x.id, x.project_id, x.deleted_at")).
				Where("(x.deleted_at, x.kind, x.id) > (?, ?, ?)", q.After.At, q.After.Kind, q.After.ID)
		}
	}
	page := records().
		ColumnExpr("x.kind, x.id, x.project_id, x.deleted_at").
		OrderExpr("x.deleted_at, x.kind, x.id").
		Limit(int64(r.Limit)).
		Offset(offset(r))
	var rows []deletionPageRow
	err = s.db.NewSelect().
		// Whole seconds, as clients give since: nothing was deleted in the
		// second the recording began before it began.
		TableExpr("(SELECT date_trunc('second', greatest(statement_timestamp() - ? * interval '1 second', h.recording_since)) AS horizon FROM ? AS h) AS h",
			int64(store.DeletionRetention/time.Second), s.table("sync_horizon")).
		Join("LEFT JOIN LATERAL (?) AS x ON ?::timestamptz >= h.horizon", page, q.Since).
		// The count only when since is within the horizon: an InitPlan
		// runs when first needed.
		ColumnExpr("h.horizon, CASE WHEN ?::timestamptz >= h.horizon THEN (?) END AS matching, x.*",
			q.Since, records().ColumnExpr("count(*)")).
		OrderExpr("x.deleted_at, x.kind, x.id").
		Scan(ctx, &rows)
	if err != nil {
		return store.Page[store.Deletion]{}, failure(ctx, store.ErrUnavailable, what, err)
	}
	if len(rows) == 0 {
		return store.Page[store.Deletion]{}, fmt.Errorf("bunstore: %s: the table sync_horizon is empty (run Migrate)", what)
	}
	if q.Since.Before(rows[0].Horizon) {
		return store.Page[store.Deletion]{}, fmt.Errorf("bunstore: %s: since %s is before %s, the oldest time it knows: %w",
			what, q.Since.UTC().Format(time.RFC3339Nano), rows[0].Horizon.UTC().Format(time.RFC3339Nano), store.ErrSinceTooOld)
	}
	items := make([]store.Deletion, 0, len(rows))
	for _, row := range rows {
		if row.Kind == nil { // the page is empty
			break
		}
		items = append(items, deletionRow{Kind: *row.Kind, ID: row.ID, ProjectID: row.ProjectID, DeletedAt: row.DeletedAt}.deletion())
	}
	n := 0
	if rows[0].Matching != nil {
		n = *rows[0].Matching
	}
	return store.Page[store.Deletion]{Items: items, Total: n, SyncedThrough: synced}, nil
}

// remove deletes the organization's row of R's table (aliased alias) with
// that id; the error wraps store.ErrNotFound when there is none.
func remove[R any](ctx context.Context, s *Store, what, alias, orgID, id string) error {
	return deleting(ctx, s, what, orgID, id, func(s *Store) executor {
		return s.newDelete((*R)(nil)).Where("?.org_id = ? AND ?.id = ?", bun.Ident(alias), orgID, bun.Ident(alias), id)
	})
}

// executor is a query that del builds for deleting.
type executor interface {
	Exec(ctx context.Context, dest ...any) (sql.Result, error)
}

// deleting runs del's query, the delete of the organization's item of
// kind what with that id, as one write under the query timeout; the error
// wraps store.ErrNotFound when its last statement deletes no row. The
// schema's foreign keys cascade, and its triggers record each item that
// goes.
func deleting(ctx context.Context, s *Store, what, orgID, id string, del func(*Store) executor) error {
	notFound := fmt.Errorf("bunstore: %s %q: %w", what, id, store.ErrNotFound)
	if !storable(orgID, id) {
		return unmatched(ctx, notFound)
	}
	ctx, cancel := s.query(ctx)
	defer cancel()
	return s.write(ctx, "delete "+what, func(s *Store) error {
		res, err := del(s).Exec(ctx)
		if err != nil {
			return failure(ctx, store.ErrUnavailable, fmt.Sprintf("delete %s %q", what, id), err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return notFound
		}
		return nil
	})
}
