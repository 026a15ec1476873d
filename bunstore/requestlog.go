package bunstore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/clientstatus/clientstatus/store"
)

// The request log and the usage per key (store.RequestLog), in the tables
// of migration 20261003000001_request_log. Replicas on one database write
// and read the same rows: each lists what all of them recorded.

var (
	_ store.RequestLog  = (*Store)(nil)
	_ store.UsageTotals = (*Store)(nil)
)

// pruneBatch is how many rows one statement of PruneRequestLogs deletes.
const pruneBatch = 5000

type requestLogRow struct {
	bun.BaseModel `bun:"table:request_logs,alias:rl"`
	total

	Seq        int64     `bun:"seq,pk"`
	OrgID      string    `bun:"org_id"`
	ID         string    `bun:"id"`
	KeyID      string    `bun:"key_id"`
	Method     string    `bun:"method"`
	Path       string    `bun:"path"`
	Route      string    `bun:"route"`
	Query      []string  `bun:"query,array"`
	Status     int       `bun:"status"`
	ErrorCode  string    `bun:"error_code"`
	DurationUS int64     `bun:"duration_us"`
	CreatedAt  time.Time `bun:"created_at"`
}

func (row requestLogRow) record() store.RequestRecord {
	q := row.Query
	if q == nil {
		q = []string{}
	}
	return store.RequestRecord{
		ID: row.ID, OrgID: row.OrgID, KeyID: row.KeyID, Method: row.Method, Path: row.Path, Route: row.Route,
		Query: q, Status: row.Status, ErrorCode: row.ErrorCode,
		Duration: time.Duration(row.DurationUS) * time.Microsecond, CreatedAt: row.CreatedAt.UTC(),
	}
}

// AppendRequests writes records in one statement: the rows of the
// organizations that exist, and each key's counts of each day added to
// key_usage (an upsert per key and day, in key order, so that replicas
// writing the same keys wait for each other rather than deadlock).
func (s *Store) AppendRequests(ctx context.Context, records []store.RequestRecord) error {
	if err := store.ValidateRequests(records); err != nil {
		return fmt.Errorf("bunstore: append requests: %w", err)
	}
	if len(records) == 0 {
		return unmatched(ctx, nil)
	}
	ctx, cancel := s.query(ctx)
	defer cancel()
	n := len(records)
	ids, orgs, keys, methods, paths, routes, queries, codes := make([]string, n), make([]string, n), make([]string, n),
		make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	statuses, durations, times := make([]int64, n), make([]int64, n), make([]time.Time, n)
	for i, rec := range records {
		q, _ := json.Marshal(rec.Query) // []string: never fails
		if rec.Query == nil {
			q = []byte("[]")
		}
		ids[i], orgs[i], keys[i], methods[i], paths[i], routes[i], queries[i], codes[i] =
			rec.ID, rec.OrgID, rec.KeyID, rec.Method, rec.Path, rec.Route, string(q), rec.ErrorCode
		statuses[i], durations[i], times[i] = int64(rec.Status), rec.Duration.Microseconds(), rec.CreatedAt
	}
	_, err := s.db.NewRaw(`WITH r AS (
			SELECT r.* FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::int[], ?::text[], ?::bigint[], ?::timestamptz[])
				AS r (id, org_id, key_id, method, path, route, query, status, error_code, duration_us, created_at)
			WHERE EXISTS (SELECT 1 FROM ? AS o WHERE o.id = r.org_id)
		), logged AS (
			INSERT INTO ? (org_id, id, key_id, method, path, route, query, status, error_code, duration_us, created_at)
			SELECT r.org_id, r.id, r.key_id, r.method, r.path, r.route,
				ARRAY(SELECT jsonb_array_elements_text(r.query::jsonb)), r.status, r.error_code, r.duration_us, date_trunc('second', r.created_at)
			FROM r
		)
		INSERT INTO ? AS u (org_id, key_id, day, requests, errors, last_used_at)
		SELECT r.org_id, r.key_id, (r.created_at AT TIME ZONE 'UTC')::date, count(*), count(*) FILTER (WHERE r.status >= 400), max(r.created_at)
		FROM r WHERE r.key_id <> ''
		GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
		ON CONFLICT (org_id, key_id, day) DO UPDATE SET requests = u.requests + EXCLUDED.requests,
			errors = u.errors + EXCLUDED.errors, last_used_at = greatest(u.last_used_at, EXCLUDED.last_used_at)`,
		pgdialect.Array(ids), pgdialect.Array(orgs), pgdialect.Array(keys), pgdialect.Array(methods), pgdialect.Array(paths),
		pgdialect.Array(routes), pgdialect.Array(queries), pgdialect.Array(statuses), pgdialect.Array(codes),
		pgdialect.Array(durations), pgdialect.Array(times),
		s.table("organizations"), s.table("request_logs"), s.table("key_usage"),
	).Exec(ctx)
	if err != nil {
		return failure(ctx, store.ErrUnavailable, fmt.Sprintf("append %d requests", n), err)
	}
	return nil
}

// ListRequestLogs returns a page of the organization's requests of the
// last store.RequestLogRetention (on the database's clock), newest first,
// through the index request_logs_list (request_logs_list_key for a key's
// own). The total counts the matching rows of the 7 days.
func (s *Store) ListRequestLogs(ctx context.Context, orgID string, q store.RequestLogQuery) (store.Page[store.RequestRecord], error) {
	if !storable(orgID, q.KeyID) {
		return none[store.RequestRecord](ctx, q.PageRequest)
	}
	filter := func(sq *bun.SelectQuery) *bun.SelectQuery {
		sq = sq.Where("rl.org_id = ?", orgID).
			Where("rl.created_at >= now() - ?::interval", fmt.Sprintf("%d seconds", int64(store.RequestLogRetention/time.Second)))
		if q.KeyID != "" {
			sq = sq.Where("rl.key_id = ?", q.KeyID)
		}
		if q.Status != 0 {
			sq = sq.Where("rl.status = ?", q.Status)
		}
		if q.Class != 0 {
			sq = sq.Where("rl.status BETWEEN ? AND ?", q.Class*100, q.Class*100+99)
		}
		return sq
	}
	return list(ctx, s, "request logs", q.PageRequest, time.Time{}, filter, nil, "rl.created_at DESC, rl.id, rl.seq DESC", nil, requestLogRow.record)
}

// KeyUsage returns the usage of one of the organization's keys over the
// last store.UsageDays days, today being the database's (UTC).
func (s *Store) KeyUsage(ctx context.Context, orgID, keyID string) (store.Usage, error) {
	if !storable(orgID, keyID) {
		orgID, keyID = "", "" // matches no row; the days still come
	}
	return s.usage(ctx, orgID, keyID, false)
}

// OrganizationUsage returns the sums of the usage of the organization's
// keys over the last store.UsageDays days, today being the database's
// (UTC), in one query on the rows of key_usage of the organization and
// those days (see store.UsageTotals).
func (s *Store) OrganizationUsage(ctx context.Context, orgID string) (store.Usage, error) {
	if !storable(orgID) {
		orgID = "" // matches no row; the days still come
	}
	return s.usage(ctx, orgID, "", true)
}

// usage sums the organization's rows of key_usage of the last
// store.UsageDays days by day, those of every key when all is true, else
// those of keyID.
func (s *Store) usage(ctx context.Context, orgID, keyID string, all bool) (store.Usage, error) {
	out := store.Usage{KeyID: keyID}
	ctx, cancel := s.query(ctx)
	defer cancel()
	var rows []struct {
		Day      time.Time  `bun:"day"`
		Requests int64      `bun:"requests"`
		Errors   int64      `bun:"errors"`
		Last     *time.Time `bun:"last_used_at"`
	}
	err := s.db.NewRaw(`WITH d AS (
			SELECT day::date AS day FROM generate_series((now() AT TIME ZONE 'UTC')::date - ?::int, (now() AT TIME ZONE 'UTC')::date, interval '1 day') AS g (day)
		), u AS (
			SELECT u.day, sum(u.requests)::bigint AS requests, sum(u.errors)::bigint AS errors, max(u.last_used_at) AS last_used_at
			FROM ? AS u WHERE u.org_id = ? AND u.day >= (SELECT min(day) FROM d) AND (?::boolean OR u.key_id = ?)
			GROUP BY u.day
		)
		SELECT d.day::timestamp AT TIME ZONE 'UTC' AS day, coalesce(u.requests, 0) AS requests,
			coalesce(u.errors, 0) AS errors, u.last_used_at
		FROM d LEFT JOIN u ON u.day = d.day
		ORDER BY d.day`, store.UsageDays-1, s.table("key_usage"), orgID, all, keyID).Scan(ctx, &rows)
	if err != nil {
		return out, failure(ctx, store.ErrUnavailable, fmt.Sprintf("usage of organization %q key %q", orgID, keyID), err)
	}
	out.Days = make([]store.DayUsage, len(rows))
	for i, row := range rows {
		out.Days[i] = store.DayUsage{Day: row.Day.UTC(), Requests: row.Requests, Errors: row.Errors}
		if row.Last != nil && (out.LastUsedAt == nil || row.Last.After(*out.LastUsedAt)) {
			last := row.Last.UTC().Truncate(time.Minute)
			out.LastUsedAt = &last
		}
	}
	return out, nil
}

// PruneRequestLogs deletes the requests older than
// store.RequestLogRetention and the usage of days before the last
// store.UsageDays, pruneBatch rows a statement, oldest first, until none
// is left; rows another replica is deleting meanwhile are skipped (FOR
// UPDATE SKIP LOCKED), not waited for.
func (s *Store) PruneRequestLogs(ctx context.Context) (int, error) {
	logs, usage := s.table("request_logs"), s.table("key_usage")
	retention := fmt.Sprintf("%d seconds", int64(store.RequestLogRetention/time.Second))
	total := 0
	for _, batch := range []*bun.RawQuery{
		s.db.NewRaw(`DELETE FROM ? AS t WHERE t.seq IN (SELECT x.seq FROM ? AS x
			WHERE x.created_at < now() - ?::interval ORDER BY x.created_at LIMIT ? FOR UPDATE SKIP LOCKED)`,
			logs, logs, retention, pruneBatch),
		s.db.NewRaw(`DELETE FROM ? AS t WHERE (t.org_id, t.key_id, t.day) IN (SELECT x.org_id, x.key_id, x.day FROM ? AS x
			WHERE x.day < (now() AT TIME ZONE 'UTC')::date - ?::int ORDER BY x.day LIMIT ? FOR UPDATE SKIP LOCKED)`,
			usage, usage, store.UsageDays-1, pruneBatch),
	} {
		for {
			n, err := s.pruneOnce(ctx, batch)
			total += n
			if err != nil {
				return total, err
			}
			if n < pruneBatch {
				break
			}
		}
	}
	return total, nil
}

// pruneOnce runs one statement of PruneRequestLogs, under the query
// timeout, and returns how many rows it deleted.
func (s *Store) pruneOnce(ctx context.Context, q *bun.RawQuery) (int, error) {
	ctx, cancel := s.query(ctx)
	defer cancel()
	res, err := q.Exec(ctx)
	if err != nil {
		return 0, failure(ctx, store.ErrUnavailable, "prune request logs", err)
	}
	n, err := res.RowsAffected()
	return int(n), err
}
