package bunstore

import (
	"cmp"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/clientstatus/clientstatus/option"
	"github.com/clientstatus/clientstatus/store"
)

var (
	_ store.WebhookEndpoints = (*Store)(nil)
	_ store.WebhookQueue     = (*Store)(nil)
)

// endpointRow is a row of webhook_endpoints.
type endpointRow struct {
	OrgID               string    `bun:"org_id"`
	ID                  string    `bun:"id"`
	URL                 string    `bun:"url"`
	Types               []string  `bun:"types,array"`
	Scopes              []string  `bun:"scopes,array"`
	ProjectIDs          []string  `bun:"project_ids,array"`
	Enabled             bool      `bun:"enabled"`
	DisabledReason      string    `bun:"disabled_reason"`
	Secret              []byte    `bun:"secret"`
	PreviousSecret      []byte    `bun:"previous_secret"`
	PreviousSecretUntil time.Time `bun:"previous_secret_until"` // NULL: zero, as Bun scans it
	Cursor              string    `bun:"event_cursor"`
	FailingSince        time.Time `bun:"failing_since"`
	CreatedAt           time.Time `bun:"created_at"`
	UpdatedAt           time.Time `bun:"updated_at"`
}

const endpointColumns = "org_id, id, url, types, scopes, project_ids, enabled, disabled_reason, secret, previous_secret, " +
	"previous_secret_until, event_cursor, failing_since, created_at, updated_at"

// endpointColumnsOf is endpointColumns of the table named alias.
func endpointColumnsOf(alias string) string {
	return alias + "." + strings.ReplaceAll(endpointColumns, ", ", ", "+alias+".")
}

func (r endpointRow) endpoint() store.WebhookEndpoint {
	return store.WebhookEndpoint{ID: r.ID, OrgID: r.OrgID, URL: r.URL, Types: r.Types, Scopes: r.Scopes, ProjectIDs: r.ProjectIDs,
		Enabled: r.Enabled, DisabledReason: r.DisabledReason, Secret: r.Secret, PreviousSecret: r.PreviousSecret,
		PreviousSecretUntil: r.PreviousSecretUntil.UTC(), Cursor: r.Cursor, FailingSince: r.FailingSince.UTC(),
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
}

func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// array is a text[] parameter: NULL for nil.
func array(s []string) any {
	if s == nil {
		return nil
	}
	return pgdialect.Array(s)
}

func endpointNotFound(id string) error {
	return fmt.Errorf("bunstore: webhook endpoint %q: %w", id, store.ErrNotFound)
}

// CreateWebhookEndpoint implements store.WebhookEndpoints. Its CreatedAt
// and UpdatedAt are the database's.
func (s *Store) CreateWebhookEndpoint(ctx context.Context, e store.WebhookEndpoint) error {
	if !storable(e.OrgID, e.ID, e.URL) {
		return fmt.Errorf("bunstore: webhook endpoint %q: %w: not valid UTF-8 without NUL", e.ID, store.ErrInvalid)
	}
	ctx, cancel := s.query(ctx)
	defer cancel()
	_, err := s.db.ExecContext(ctx, `INSERT INTO ? (org_id, id, url, types, scopes, project_ids, enabled, disabled_reason, secret,
		previous_secret, previous_secret_until, event_cursor, failing_since) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		s.table("webhook_endpoints"), e.OrgID, e.ID, e.URL, pgdialect.Array(e.Types), array(e.Scopes), array(e.ProjectIDs),
		e.Enabled, e.DisabledReason, e.Secret, e.PreviousSecret, nullTime(e.PreviousSecretUntil), e.Cursor, nullTime(e.FailingSince))
	switch {
	case isViolation(err, uniqueViolation):
		return fmt.Errorf("bunstore: webhook endpoint %q: %w", e.ID, store.ErrConflict)
	case isViolation(err, foreignKeyViolation):
		return fmt.Errorf("bunstore: organization %q: %w", e.OrgID, store.ErrNotFound)
	case err != nil:
		return failure(ctx, store.ErrUnavailable, "create webhook endpoint", err)
	}
	return nil
}

// getEndpoint reads one endpoint through db, locked FOR UPDATE when lock.
func (s *Store) getEndpoint(ctx context.Context, db bun.IDB, orgID, id string, lock bool) (store.WebhookEndpoint, error) {
	if !storable(orgID, id) {
		return store.WebhookEndpoint{}, endpointNotFound(id)
	}
	suffix := ""
	if lock {
		suffix = " FOR UPDATE"
	}
	var rows []endpointRow
	err := db.NewRaw("SELECT "+endpointColumns+" FROM ? WHERE org_id = ? AND id = ?"+suffix,
		s.table("webhook_endpoints"), orgID, id).Scan(ctx, &rows)
	if err != nil {
		return store.WebhookEndpoint{}, failure(ctx, store.ErrUnavailable, "webhook endpoint", err)
	}
	if len(rows) == 0 {
		return store.WebhookEndpoint{}, endpointNotFound(id)
	}
	return rows[0].endpoint(), nil
}

// GetWebhookEndpoint implements store.WebhookEndpoints.
func (s *Store) GetWebhookEndpoint(ctx context.Context, orgID, id string) (store.WebhookEndpoint, error) {
	ctx, cancel := s.query(ctx)
	defer cancel()
	return s.getEndpoint(ctx, s.db, orgID, id, false)
}

// ListWebhookEndpoints implements store.WebhookEndpoints.
func (s *Store) ListWebhookEndpoints(ctx context.Context, orgID string, q store.WebhookEndpointQuery) (store.Page[store.WebhookEndpoint], error) {
	if !storable(orgID) {
		return none[store.WebhookEndpoint](ctx, q.PageRequest)
	}
	// The status filter: enabled IN (true, false) for any.
	enabled := []bool{true, false}
	if q.Status != "" {
		enabled = []bool{q.Status == store.WebhookEndpointEnabled}
	}
	ctx, cancel := s.query(ctx)
	defer cancel()
	return rawPage(ctx, s, "list webhook endpoints", endpointRow.endpoint, q.PageRequest, endpointColumns,
		"? WHERE org_id = ? AND enabled IN (?)", "created_at, id", s.table("webhook_endpoints"), orgID, bun.List(enabled))
}

// rawPage is a page of a list in plain SQL: the rows of from, which is
// given args, counted, and the page of their columns, in order.
func rawPage[R, T any](ctx context.Context, s *Store, what string, item func(R) T, r store.PageRequest, columns, from, order string, args ...any) (store.Page[T], error) {
	var rows []R
	var total int
	err := s.db.NewRaw("SELECT count(*) FROM "+from, args...).Scan(ctx, &total)
	if err == nil {
		err = s.db.NewRaw("SELECT "+columns+" FROM "+from+" ORDER BY "+order+" LIMIT ? OFFSET ?",
			append(args, r.Limit, offset(r))...).Scan(ctx, &rows)
	}
	if err != nil {
		return store.Page[T]{}, failure(ctx, store.ErrUnavailable, what, err)
	}
	return store.Page[T]{Items: mapped(rows, item), Total: total}, nil
}

// UpdateWebhookEndpoint implements store.WebhookEndpoints: fn runs with
// the endpoint's row locked (FOR UPDATE), in one transaction with the
// write.
func (s *Store) UpdateWebhookEndpoint(ctx context.Context, orgID, id string, fn func(*store.WebhookEndpoint) error) (store.WebhookEndpoint, error) {
	ctx, cancel := s.query(ctx)
	defer cancel()
	var out store.WebhookEndpoint
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		e, err := s.getEndpoint(ctx, tx, orgID, id, true)
		if err != nil {
			return err
		}
		if err := fn(&e); err != nil {
			return err
		}
		var rows []endpointRow
		err = tx.NewRaw(`UPDATE ? SET url = ?, types = ?, scopes = ?, project_ids = ?, enabled = ?, disabled_reason = ?,
			secret = ?, previous_secret = ?, previous_secret_until = ?, failing_since = ?,
			updated_at = greatest(statement_timestamp(), updated_at)
			WHERE org_id = ? AND id = ? RETURNING `+endpointColumns,
			s.table("webhook_endpoints"), e.URL, pgdialect.Array(e.Types), array(e.Scopes), array(e.ProjectIDs), e.Enabled,
			e.DisabledReason, e.Secret, e.PreviousSecret, nullTime(e.PreviousSecretUntil), nullTime(e.FailingSince),
			orgID, id).Scan(ctx, &rows)
		if err != nil {
			return failure(ctx, store.ErrUnavailable, "update webhook endpoint", err)
		}
		out = rows[0].endpoint()
		return nil
	})
	return out, err
}

// DeleteWebhookEndpoint implements store.WebhookEndpoints; its jobs and
// deliveries go with it (ON DELETE CASCADE).
func (s *Store) DeleteWebhookEndpoint(ctx context.Context, orgID, id string) error {
	if !storable(orgID, id) {
		return endpointNotFound(id)
	}
	ctx, cancel := s.query(ctx)
	defer cancel()
	res, err := s.db.ExecContext(ctx, "DELETE FROM ? WHERE org_id = ? AND id = ?", s.table("webhook_endpoints"), orgID, id)
	if err != nil {
		return failure(ctx, store.ErrUnavailable, "delete webhook endpoint", err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return endpointNotFound(id)
	}
	return nil
}

// deliveryRow is a row of webhook_deliveries, its NULLs read as zeros.
type deliveryRow struct {
	ID          string    `bun:"id"`
	EndpointID  string    `bun:"endpoint_id"`
	EventID     string    `bun:"event_id"`
	EventType   string    `bun:"event_type"`
	Attempt     int       `bun:"attempt"`
	AttemptedAt time.Time `bun:"attempted_at"`
	StatusCode  int       `bun:"status_code"`
	Error       string    `bun:"error"`
	DurationUs  int64     `bun:"duration_us"`
}

func (r deliveryRow) delivery() store.WebhookDelivery {
	return store.WebhookDelivery{ID: r.ID, EndpointID: r.EndpointID, EventID: r.EventID, EventType: r.EventType, Attempt: r.Attempt,
		AttemptedAt: r.AttemptedAt.UTC(), StatusCode: r.StatusCode, Error: r.Error, Duration: time.Duration(r.DurationUs) * time.Microsecond}
}

// ListWebhookDeliveries implements store.WebhookEndpoints.
func (s *Store) ListWebhookDeliveries(ctx context.Context, orgID, endpointID string, q store.WebhookDeliveryQuery) (store.Page[store.WebhookDelivery], error) {
	ctx, cancel := s.query(ctx)
	defer cancel()
	if _, err := s.getEndpoint(ctx, s.db, orgID, endpointID, false); err != nil {
		return store.Page[store.WebhookDelivery]{}, err
	}
	return rawPage(ctx, s, "list webhook deliveries", deliveryRow.delivery, q.PageRequest,
		"id, endpoint_id, event_id, event_type, attempt, attempted_at, coalesce(status_code, 0) AS status_code, coalesce(error, '') AS error, duration_us",
		"? WHERE org_id = ? AND endpoint_id = ? AND attempted_at >= ?", "attempted_at DESC, id DESC",
		s.table("webhook_deliveries"), orgID, endpointID, q.Since)
}

// EnabledWebhookEndpoints implements store.WebhookQueue.
func (s *Store) EnabledWebhookEndpoints(ctx context.Context) ([]store.WebhookEndpoint, error) {
	ctx, cancel := s.query(ctx)
	defer cancel()
	var rows []endpointRow
	err := s.db.NewRaw("SELECT "+endpointColumns+" FROM ? WHERE enabled ORDER BY org_id, id", s.table("webhook_endpoints")).Scan(ctx, &rows)
	if err != nil {
		return nil, failure(ctx, store.ErrUnavailable, "enabled webhook endpoints", err)
	}
	return mapped(rows, endpointRow.endpoint), nil
}

// EnqueueWebhookJobs implements store.WebhookQueue, in one transaction:
// it locks the endpoint's row (FOR UPDATE SKIP LOCKED: a replica that
// finds it locked leaves the work to the one holding it, ErrConflict),
// checks its cursor, inserts the jobs (an event already queued is
// skipped) and moves the cursor; it also drops the endpoint's attempts and
// finished jobs older than store.WebhookRetention.
func (s *Store) EnqueueWebhookJobs(ctx context.Context, orgID, endpointID, from, to string, jobs []store.WebhookJob) error {
	ctx, cancel := s.query(ctx)
	defer cancel()
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var rows []endpointRow
		err := tx.NewRaw("SELECT "+endpointColumns+" FROM ? WHERE org_id = ? AND id = ? FOR UPDATE SKIP LOCKED",
			s.table("webhook_endpoints"), orgID, endpointID).Scan(ctx, &rows)
		if err != nil {
			return failure(ctx, store.ErrUnavailable, "queue webhooks", err)
		}
		if len(rows) == 0 || rows[0].Cursor != from || !rows[0].Enabled {
			return fmt.Errorf("bunstore: webhook endpoint %q: locked, moved or disabled: %w", endpointID, store.ErrConflict)
		}
		if len(jobs) > 0 {
			ids, types, bodies, queued := make([]string, len(jobs)), make([]string, len(jobs)), make([][]byte, len(jobs)), make([]time.Time, len(jobs))
			dues := make([]time.Time, len(jobs))
			for i, j := range jobs {
				ids[i], types[i], bodies[i], queued[i], dues[i] = j.EventID, j.EventType, j.Body, j.QueuedAt, j.Due
				if queued[i].IsZero() {
					queued[i] = time.Now()
				}
				if dues[i].IsZero() {
					dues[i] = queued[i]
				}
			}
			_, err = tx.ExecContext(ctx, `INSERT INTO ? (org_id, endpoint_id, event_id, event_type, body, due, queued_at)
				SELECT ?, ?, u.id, u.type, u.body, u.due, u.queued FROM unnest(?::text[], ?::text[], ?::bytea[], ?::timestamptz[], ?::timestamptz[]) AS u (id, type, body, due, queued)
				ON CONFLICT DO NOTHING`,
				s.table("webhook_jobs"), orgID, endpointID, pgdialect.Array(ids), pgdialect.Array(types), pgdialect.Array(bodies),
				pgdialect.Array(dues), pgdialect.Array(queued))
			if err != nil {
				return failure(ctx, store.ErrUnavailable, "queue webhooks", err)
			}
		}
		_, err = tx.ExecContext(ctx, "UPDATE ? SET event_cursor = ? WHERE org_id = ? AND id = ?", s.table("webhook_endpoints"), to, orgID, endpointID)
		if err != nil {
			return failure(ctx, store.ErrUnavailable, "queue webhooks", err)
		}
		// What is past store.WebhookRetention goes, a page of events at
		// a time rather than on every attempt.
		horizon := time.Now().Add(-store.WebhookRetention)
		if _, err := tx.ExecContext(ctx, "DELETE FROM ? WHERE org_id = ? AND endpoint_id = ? AND attempted_at < ?",
			s.table("webhook_deliveries"), orgID, endpointID, horizon); err != nil {
			return failure(ctx, store.ErrUnavailable, "prune webhook attempts", err)
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM ? WHERE org_id = ? AND endpoint_id = ? AND due IS NULL AND queued_at < ?",
			s.table("webhook_jobs"), orgID, endpointID, horizon); err != nil {
			return failure(ctx, store.ErrUnavailable, "prune webhook jobs", err)
		}
		return nil
	})
}

// jobRow is a row of webhook_jobs, with its endpoint's row.
type jobRow struct {
	OrgID      string      `bun:"j_org_id"`
	EndpointID string      `bun:"j_endpoint_id"`
	EventID    string      `bun:"event_id"`
	EventType  string      `bun:"event_type"`
	Body       []byte      `bun:"body"`
	Attempts   int         `bun:"attempts"`
	Due        time.Time   `bun:"due"`
	QueuedAt   time.Time   `bun:"queued_at"`
	Claim      string      `bun:"claim"`
	Endpoint   endpointRow `bun:"embed:"`
}

// ClaimWebhookJobs implements store.WebhookQueue: in one statement, the
// due jobs of enabled endpoints are locked FOR UPDATE SKIP LOCKED (so
// replicas claiming at once take different jobs), marked with a claim
// token of this call and made due again when the claim expires, and
// returned with their endpoints' rows; the statement commits before any
// attempt is made.
func (s *Store) ClaimWebhookJobs(ctx context.Context, now time.Time, limit int, claim time.Duration) ([]store.WebhookJob, error) {
	ctx, cancel := s.query(ctx)
	defer cancel()
	token := newToken()
	var rows []jobRow
	err := s.db.NewRaw(`UPDATE ? AS j SET claim = ?, due = ?
		FROM (SELECT j.org_id, j.endpoint_id, j.event_id FROM ? AS j
			JOIN ? AS e ON e.org_id = j.org_id AND e.id = j.endpoint_id AND e.enabled
			WHERE j.due <= ? ORDER BY j.due LIMIT ? FOR UPDATE OF j SKIP LOCKED) AS c, ? AS e
		WHERE j.org_id = c.org_id AND j.endpoint_id = c.endpoint_id AND j.event_id = c.event_id
			AND e.org_id = j.org_id AND e.id = j.endpoint_id
		RETURNING j.org_id AS j_org_id, j.endpoint_id AS j_endpoint_id, j.event_id, j.event_type, j.body, j.attempts, j.due, j.queued_at, j.claim,
			`+endpointColumnsOf("e"),
		s.table("webhook_jobs"), token, now.Add(claim), s.table("webhook_jobs"), s.table("webhook_endpoints"), now, limit,
		s.table("webhook_endpoints")).Scan(ctx, &rows)
	if err != nil {
		return nil, failure(ctx, store.ErrUnavailable, "claim webhooks", err)
	}
	return mapped(rows, func(r jobRow) store.WebhookJob {
		return store.WebhookJob{OrgID: r.OrgID, EndpointID: r.EndpointID, EventID: r.EventID, EventType: r.EventType,
			Body: r.Body, Attempts: r.Attempts, Due: r.Due.UTC(), QueuedAt: r.QueuedAt.UTC(), Claim: r.Claim,
			Endpoint: r.Endpoint.endpoint()}
	}), nil
}

func newToken() string {
	b := make([]byte, 12)
	rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}

// FinishWebhookAttempt implements store.WebhookQueue, in one transaction:
// the attempt is logged and, when the job's claim still holds,
// the job and the endpoint updated. A success of an endpoint that was not
// failing leaves the endpoint's row alone: the attempts to one endpoint
// finish side by side rather than queue for its row's lock.
func (s *Store) FinishWebhookAttempt(ctx context.Context, job store.WebhookJob, d store.WebhookDelivery, o store.WebhookOutcome) error {
	ctx, cancel := s.query(ctx)
	defer cancel()
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var status, failed any
		if d.StatusCode != 0 {
			status = d.StatusCode
		}
		if d.Error != "" {
			failed = d.Error
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO ? (org_id, endpoint_id, id, event_id, event_type, attempt, attempted_at, status_code, error, duration_us)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
			s.table("webhook_deliveries"), job.OrgID, job.EndpointID, d.ID, d.EventID, d.EventType, d.Attempt, d.AttemptedAt,
			status, failed, d.Duration.Microseconds())
		if isViolation(err, foreignKeyViolation) {
			return endpointNotFound(job.EndpointID)
		}
		if err != nil {
			return failure(ctx, store.ErrUnavailable, "log webhook attempt", err)
		}
		res, err := tx.ExecContext(ctx, "UPDATE ? SET attempts = ?, due = ?, claim = '' WHERE org_id = ? AND endpoint_id = ? AND event_id = ? AND claim = ?",
			s.table("webhook_jobs"), d.Attempt, nullTime(o.Retry), job.OrgID, job.EndpointID, job.EventID, job.Claim)
		if err != nil {
			return failure(ctx, store.ErrUnavailable, "finish webhook job", err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return nil // the claim expired and another replica has the job
		}
		_, err = tx.ExecContext(ctx, `UPDATE ? SET
			failing_since = CASE WHEN ? THEN NULL ELSE coalesce(failing_since, ?) END,
			enabled = enabled AND ? = '',
			disabled_reason = CASE WHEN enabled AND ? <> '' THEN ? ELSE disabled_reason END,
			updated_at = CASE WHEN enabled AND ? <> '' THEN greatest(statement_timestamp(), updated_at) ELSE updated_at END
			WHERE org_id = ? AND id = ? AND NOT (? AND failing_since IS NULL AND ? = '')`,
			s.table("webhook_endpoints"), o.Success, d.AttemptedAt, o.Disable, o.Disable, o.Disable, o.Disable, job.OrgID, job.EndpointID,
			o.Success, o.Disable)
		if err != nil {
			return failure(ctx, store.ErrUnavailable, "finish webhook job", err)
		}
		return nil
	})
}

// RequeueWebhookJob implements store.WebhookQueue.
func (s *Store) RequeueWebhookJob(ctx context.Context, orgID, endpointID, eventID string, now time.Time) error {
	if !storable(orgID, endpointID, eventID) {
		return endpointNotFound(endpointID)
	}
	ctx, cancel := s.query(ctx)
	defer cancel()
	res, err := s.db.ExecContext(ctx, "UPDATE ? SET due = ?, claim = '', queued_at = ? WHERE org_id = ? AND endpoint_id = ? AND event_id = ? AND queued_at >= ?",
		s.table("webhook_jobs"), now, now, orgID, endpointID, eventID, now.Add(-store.WebhookRetention))
	if err != nil {
		return failure(ctx, store.ErrUnavailable, "redeliver webhook", err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return fmt.Errorf("bunstore: webhook endpoint %q: event %q: %w", endpointID, eventID, store.ErrNotFound)
	}
	return nil
}

// LeadWebhooks implements webhook.Leader (give the Store to
// webhook.WithLeader) with a session advisory lock of
// PostgreSQL, one per schema, held on a connection of its own (opened
// with the configuration of the listening connection, see Subscribe) and
// closed when ctx is done: of the dispatchers on one database, the one
// whose connection holds the lock queues events. A call of the function
// it returns takes the lock when it is free (one statement); once the lock
// is held, a call costs no statement but one every leadCheck, checking
// that the connection is alive. A Store that cannot hold it (in a
// transaction, or on a connection it cannot open) reports that it leads:
// queueing by two replicas at once is safe, only dearer.
func (s *Store) LeadWebhooks(ctx context.Context) func(context.Context) bool {
	s.notify.mu.Lock()
	given := s.notify.cfg != nil // WithListenConfig's
	s.notify.mu.Unlock()
	if s.notify.db == nil && !given {
		return func(context.Context) bool { return true }
	}
	var mu sync.Mutex
	var conn *pgx.Conn
	var heldAt time.Time // when a statement last showed the lock held
	drop := func() {
		heldAt = time.Time{}
		if conn != nil {
			closeCtx, cancel := context.WithTimeout(context.Background(), listenTimeout)
			_ = conn.Close(closeCtx)
			cancel()
			conn = nil
		}
	}
	context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		drop()
	})
	return func(call context.Context) bool {
		mu.Lock()
		defer mu.Unlock()
		if ctx.Err() != nil {
			return false
		}
		if conn != nil && conn.IsClosed() {
			drop()
		}
		if !heldAt.IsZero() && time.Since(heldAt) < leadCheck {
			return true // the session's lock lasts as long as its connection
		}
		call, cancel := context.WithTimeout(call, listenTimeout)
		defer cancel()
		if conn == nil {
			cfg, err := s.notify.config(call)
			if err == nil {
				conn, err = pgx.ConnectConfig(call, cfg)
			}
			if err != nil {
				conn = nil
				return true
			}
		}
		if !heldAt.IsZero() {
			// Held: the connection alive is the lock held.
			if err := conn.Ping(call); err != nil {
				drop()
				return true
			}
			heldAt = time.Now()
			return true
		}
		var held bool
		err := conn.QueryRow(call, "SELECT pg_try_advisory_lock(hashtext('clientstatus webhooks ' || coalesce(nullif($1, ''), current_schema())))",
			s.schema).Scan(&held)
		if err != nil {
			drop()
			return true
		}
		if held {
			heldAt = time.Now()
		}
		return held
	}
}

// leadCheck is how long LeadWebhooks' function answers that it leads
// without a statement once one showed the lock held: a session's lock is
// held until its connection closes, so the leader only checks, at that
// pace, that its connection is alive (one empty statement).
const leadCheck = 10 * time.Second

// dispatcherPing reports whether DispatcherStore's pool pings a
// connection before reusing it: only one idle for longer than listenIdle,
// not (as pgx's default) each one idle for a second, which a dispatcher
// polling every second would pay on most polls. A connection broken in
// between fails its statement instead, which the dispatcher makes again
// (a claim or a queueing on its next poll, an attempt once its claim
// expires) on another connection.
func dispatcherPing(_ context.Context, p stdlib.ShouldPingParams) bool {
	return p.IdleDuration > listenIdle
}

// DefaultDispatcherConns is the size of DispatcherStore's pool when none
// is given: a claim, the queueing and a few attempts' records at once.
const DefaultDispatcherConns = 3

// DispatcherStore returns a Store like s (its schema, options and
// listening connection) whose statements run on a pool of their own, of
// at most conns connections (DefaultDispatcherConns when 0), opened with
// the configuration of s's pool; and the function that closes that pool,
// to call once the dispatcher has stopped. Give it to
// webhook.NewDispatcher as its store and its events: the dispatcher's
// reads, claims and records then never wait for a connection behind
// request traffic, nor take one that requests need (the database sees
// conns more connections per replica). s's db must be a pool on the pgx
// driver (Open's).
func (s *Store) DispatcherStore(ctx context.Context, conns int) (*Store, func() error, error) {
	if conns < 0 {
		return nil, nil, option.Errorf("bunstore", "DispatcherStore", "%d connections is negative", conns)
	}
	conns = cmp.Or(conns, DefaultDispatcherConns)
	if s.notify.db == nil {
		return nil, nil, fmt.Errorf("bunstore: DispatcherStore: %w: the Store's db is not a pool", store.ErrInvalid)
	}
	cfg, err := poolConfig(ctx, s.notify.db)
	if err != nil {
		return nil, nil, fmt.Errorf("bunstore: DispatcherStore: %w: %w", store.ErrUnavailable, err)
	}
	sqldb := sql.OpenDB(stdlib.GetConnector(*cfg, stdlib.OptionShouldPing(dispatcherPing)))
	sqldb.SetMaxOpenConns(conns)
	sqldb.SetMaxIdleConns(conns)
	sqldb.SetConnMaxIdleTime(5 * time.Minute)
	sqldb.SetConnMaxLifetime(time.Hour)
	c := *s
	c.db = bun.NewDB(sqldb, pgdialect.New())
	c.statements = &statements{}
	c.batches = newBatches(&c)
	return &c, sqldb.Close, nil
}
