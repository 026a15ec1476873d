// Package bunstore keeps the status API's data and API key records in
// PostgreSQL, through Bun (github.com/uptrace/bun) and its pgdialect.
//
// A portal brings its own *bun.DB, so the store shares its pool, or opens
// one with Open; it runs Migrate at start-up, then hands New(db) to the
// handler as its store.Store and to auth as its auth.KeyStore:
//
//	db, err := bunstore.Open(ctx, os.Getenv("DATABASE_URL"))
//	...
//	if err := bunstore.Migrate(ctx, db); err != nil { ... }
//	st := bunstore.New(db)
//
// Every query is scoped by organization and uses Bun's placeholders, never
// text pasted into SQL; every list has an index that starts with the
// organization and follows the list's order, so a page costs the same
// however many rows other organizations have. A page and its total take at
// most two round trips. Each method runs under a deadline (WithQueryTimeout)
// and the server under statement_timeout (see Open), so a slow or lost
// database answers store.ErrUnavailable promptly.
package bunstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/store"
)

// DefaultQueryTimeout is how long a Store method may take, round trips
// included, when New is given no WithQueryTimeout.
const DefaultQueryTimeout = 3 * time.Second

// Store is a store.Store, a store.Writer and an auth.KeyStore on
// PostgreSQL, and an auth.Invalidations that reports changes to keys and
// organizations (see Subscribe). It is safe for concurrent use, as its
// *bun.DB is.
//
// Ids are unique per organization: two organizations may each have a
// project "p1", and neither ever sees the other's. Writes insert or
// replace by (organization, id) and leave a row untouched when nothing in
// it changes, so loading the same data twice changes nothing. Every time is
// returned in UTC.
//
// Errors wrap store.ErrNotFound (auth.ErrInvalidKey or auth.ErrKeyNotFound
// in the key methods) for a missing item; store.ErrInvalid for an item or
// request refused for what it holds (a Validate error, a page below 1, a
// key record without an id); and store.ErrUnavailable (the same error as
// auth.ErrUnavailable) when the database cannot be reached, does not answer
// in time or cancels the statement. On a deadline they also wrap
// context.DeadlineExceeded, and on cancellation ctx's error.
type Store struct {
	db      *bun.DB
	timeout time.Duration
	notify  *notifier // Subscribe's listening connection
}

var (
	_ store.Store   = (*Store)(nil)
	_ store.Writer  = (*Store)(nil)
	_ auth.KeyStore = (*Store)(nil)
)

// Option configures New. A zero value means the option's default; a value
// that no default stands for makes New panic with a message naming the
// option, as it is a mistake in the code. A nil Option is ignored.
type Option func(*config)

// config is what the options of New set, defaults first.
type config struct {
	queryTimeout time.Duration
	logger       *slog.Logger    // WithLogger
	listenConfig *pgx.ConnConfig // WithListenConfig
}

// WithQueryTimeout sets how long one Store method may take, from the
// request's context (whichever deadline comes first wins); 0 means
// DefaultQueryTimeout, and New panics on a negative d. When it passes, the
// query is cancelled on the server and the method returns an error
// wrapping store.ErrUnavailable and context.DeadlineExceeded.
func WithQueryTimeout(d time.Duration) Option {
	return func(c *config) {
		if d == 0 {
			d = DefaultQueryTimeout
		}
		c.queryTimeout = d
	}
}

// New returns a Store on db, whose schema Migrate has brought up to date.
// db should use the pgx driver, as Open's does; a db of the caller's should
// also set a server-side statement_timeout (see Open). New panics when db
// is nil or an option's value is one no default stands for.
func New(db *bun.DB, opts ...Option) *Store {
	if db == nil {
		panic("bunstore: New needs a *bun.DB")
	}
	c := config{queryTimeout: DefaultQueryTimeout}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if c.queryTimeout < 0 {
		panic(fmt.Sprintf("bunstore: WithQueryTimeout: %v is negative", c.queryTimeout))
	}
	return &Store{db: db, timeout: c.queryTimeout, notify: newNotifier(db, c)}
}

// query returns ctx bounded by the store's query timeout.
func (s *Store) query(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.timeout)
}

// failure wraps err, returned by a query run under ctx, with what was being
// done. When ctx is done, the error wraps ctx.Err() (and unavailable too on
// a deadline); when err says the database is unreachable, overloaded or
// cancelled the statement, it wraps unavailable.
func failure(ctx context.Context, unavailable error, what string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		if errors.Is(ctxErr, context.DeadlineExceeded) {
			return fmt.Errorf("bunstore: %s: %w: %w: %w", what, unavailable, ctxErr, err)
		}
		return fmt.Errorf("bunstore: %s: %w: %w", what, ctxErr, err)
	}
	if isUnavailable(err) {
		return fmt.Errorf("bunstore: %s: %w: %w", what, unavailable, err)
	}
	return fmt.Errorf("bunstore: %s: %w", what, err)
}

// isUnavailable reports whether err means the database could not answer,
// rather than that the query was wrong.
func isUnavailable(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code[:min(2, len(pgErr.Code))] { // the class
		case "08", // connection exception
			"53", // insufficient resources: too many connections, out of memory or disk
			"57": // operator intervention: statement_timeout (57014), shutdown, restart
			return true
		}
		return false
	}
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	return errors.As(err, &connectErr) || errors.As(err, &netErr) ||
		pgconn.Timeout(err) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// isViolation reports whether err is PostgreSQL's error code, such as
// 23503 (a reference to a missing row).
func isViolation(err error, code string) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == code
}

// The PostgreSQL error codes that a write turns into a clearer error.
const (
	foreignKeyViolation = "23503"
	uniqueViolation     = "23505"
)

// put inserts row, or replaces the row with its primary key when anything
// in it differs; alias is the table's alias in row's model. A reference to
// a missing organization or project wraps store.ErrNotFound.
func (s *Store) put(ctx context.Context, what, alias string, row any) error {
	ctx, cancel := s.query(ctx)
	defer cancel()
	_, err := s.db.NewInsert().Model(row).
		On("CONFLICT (org_id, id) DO UPDATE").
		Where("(?.*) IS DISTINCT FROM (EXCLUDED.*)", bun.Ident(alias)).
		Exec(ctx)
	if isViolation(err, foreignKeyViolation) {
		return fmt.Errorf("bunstore: %s: its organization or project does not exist (put it first): %w", what, store.ErrNotFound)
	}
	if err != nil {
		return failure(ctx, store.ErrUnavailable, "put "+what, err)
	}
	return nil
}

// counted is a row of a page query: it carries the count of all the rows
// the query matches.
type counted interface{ matching() int }

// total is the column of a page query that counts all matching rows.
type total struct {
	Matching int `bun:"matching,scanonly"`
}

func (t total) matching() int { return t.Matching }

// list runs a list method: one page of R's table, filtered and ordered,
// converted to items, under the store's query timeout.
func list[R counted, T any](ctx context.Context, s *Store, what string, r store.PageRequest, filter func(*bun.SelectQuery) *bun.SelectQuery, order string, item func(R) T) (store.Page[T], error) {
	ctx, cancel := s.query(ctx)
	defer cancel()
	rows, n, err := listPage[R](ctx, s.db, r, filter, order)
	if err != nil {
		return store.Page[T]{}, failure(ctx, store.ErrUnavailable, "list "+what, err)
	}
	return listed(rows, n, item), nil
}

// storable reports whether a read that compares these values (ids and
// filters) can match a row. PostgreSQL's text holds no NUL and no invalid
// UTF-8, and the driver would drop the one and replace the other with
// U+FFFD when it sends the value, so "p1\x00" would match "p1" and "p\xff"
// "p\ufffd". A value that is not store.Storable matches nothing: every read
// asks storable before it sends a query, and answers without one when it
// says no.
func storable(values ...string) bool {
	for _, v := range values {
		if !store.Storable(v) {
			return false
		}
	}
	return true
}

// unmatched is the answer of a read that storable stopped: err, or, when
// ctx is done, an error wrapping ctx.Err() as any call's would.
func unmatched(ctx context.Context, err error) error {
	switch ctxErr := ctx.Err(); {
	case errors.Is(ctxErr, context.DeadlineExceeded):
		return fmt.Errorf("bunstore: %w: %w", store.ErrUnavailable, ctxErr)
	case ctxErr != nil:
		return fmt.Errorf("bunstore: %w", ctxErr)
	}
	return err
}

// none is the page of a list that storable stopped: no items and a total
// of 0.
func none[T any](ctx context.Context, r store.PageRequest) (store.Page[T], error) {
	if r.Page < 1 || r.Limit < 1 {
		return store.Page[T]{}, fmt.Errorf("bunstore: invalid page request %+v", r)
	}
	return store.Page[T]{Items: []T{}}, unmatched(ctx, nil)
}

// get returns the organization's row of R's table (aliased alias) with
// that id; the error wraps store.ErrNotFound when there is none.
func get[R any](ctx context.Context, s *Store, what, alias, orgID, id string) (R, error) {
	var row R
	if !storable(orgID, id) {
		return row, unmatched(ctx, fmt.Errorf("bunstore: %s %q: %w", what, id, store.ErrNotFound))
	}
	ctx, cancel := s.query(ctx)
	defer cancel()
	err := s.db.NewSelect().Model(&row).
		Where("?.org_id = ? AND ?.id = ?", bun.Ident(alias), orgID, bun.Ident(alias), id).
		Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return row, fmt.Errorf("bunstore: %s %q: %w", what, id, store.ErrNotFound)
	}
	if err != nil {
		return row, failure(ctx, store.ErrUnavailable, fmt.Sprintf("%s %q", what, id), err)
	}
	return row, nil
}

// listPage returns the rows of one page, in order, and the count of all
// rows that filter matches: in one round trip, or two when the page is past
// the end. filter applies the WHERE clauses (the organization's first) to a
// query on R's table; order is the list's ORDER BY.
func listPage[R counted](ctx context.Context, db bun.IDB, r store.PageRequest, filter func(*bun.SelectQuery) *bun.SelectQuery, order string) ([]R, int, error) {
	rows, n, err := selectPage[R](ctx, db, r, filter, order)
	if err != nil || len(rows) > 0 || r.Page == 1 {
		return rows, n, err
	}
	n64, err := filter(db.NewSelect().Model((*R)(nil))).Count(ctx)
	return rows, int(n64), err
}

// selectPage is listPage in one round trip: when the page is empty, the
// count it returns is 0, whatever the true total.
func selectPage[R counted](ctx context.Context, db bun.IDB, r store.PageRequest, filter func(*bun.SelectQuery) *bun.SelectQuery, order string) ([]R, int, error) {
	if r.Page < 1 || r.Limit < 1 {
		// Bun reads a limit of 0 as none: refuse rather than list all.
		return nil, 0, fmt.Errorf("%w page request (page %d, limit %d)", store.ErrInvalid, r.Page, r.Limit)
	}
	rows := make([]R, 0, min(r.Limit, store.MaxLimit))
	err := filter(db.NewSelect().Model(&rows)).
		ColumnExpr("?TableAlias.*").
		ColumnExpr("count(*) OVER () AS matching").
		OrderExpr(order).
		Limit(int64(r.Limit)).
		Offset(offset(r)).
		Scan(ctx)
	if err != nil || len(rows) == 0 {
		return rows, 0, err
	}
	return rows, rows[0].matching(), nil
}

// offset is the number of rows before the page; a page too far to count
// is past the end of any list.
func offset(r store.PageRequest) int64 {
	if int64(r.Page-1) > math.MaxInt64/int64(r.Limit) {
		return math.MaxInt64
	}
	return int64(r.Page-1) * int64(r.Limit)
}

// listed converts the rows of a page to items.
func listed[R counted, T any](rows []R, n int, item func(R) T) store.Page[T] {
	items := make([]T, len(rows))
	for i, row := range rows {
		items[i] = item(row)
	}
	return store.Page[T]{Items: items, Total: n}
}

// utc returns t in UTC, or nil.
func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
