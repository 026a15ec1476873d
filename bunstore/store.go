package bunstore

import (
	"cmp"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/schema"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/option"
	"github.com/clientstatus/clientstatus/store"
)

// DefaultQueryTimeout is how long a Store method may take, round trips
// included, when New is given no WithQueryTimeout.
const DefaultQueryTimeout = 3 * time.Second

// Store is a store.Store, store.Writer, store.Deleter, store.ThreadWriter,
// store.RequestLog, store.WebhookEndpoints and auth.KeyStore on
// PostgreSQL, and an auth.Invalidations that reports changes to keys and
// organizations (see Subscribe). It is safe for concurrent use when its db
// is (a *bun.DB is; a transaction is not, see WithTx).
//
// Ids are unique per organization. Writes insert or replace by
// (organization, id) and leave an unchanged row untouched. UpdatedAt is
// the database's statement_timestamp(), set by triggers that hold for a
// portal's own SQL too; deletes cascade through foreign keys, and a
// trigger records each item removed for ListDeletions. Errors wrap
// store.ErrNotFound, store.ErrInvalid, store.ErrUnavailable or
// store.ErrLockTimeout. What each promises in detail: docs/library.md.
type Store struct {
	db      bun.IDB
	timeout time.Duration
	schema  string           // of the tables (WithSchema); "" for the search path
	notify  *notifier        // Subscribe's listening connection
	clock   func() time.Time // WithClock; nil for the server's
	// statements are the texts of the reads prepared on pgx
	// (prepared.go).
	statements *statements
	batches    *batches     // the hot reads, coalesced (batch.go)
	schemaOK   *atomic.Bool // Ping found the schema this version's (ready.go)
}

var (
	_ store.Store   = (*Store)(nil)
	_ store.Writer  = (*Store)(nil)
	_ auth.KeyStore = (*Store)(nil)
)

// Option configures New and Migrate. Options follow the module's one
// policy (see package [github.com/clientstatus/clientstatus/option]): a
// nil Option is ignored, nil or a zero value means the option's default,
// and a value that no default stands for is an *option.Error naming the
// option, which Migrate and Validate return and with which New panics.
type Option func(*config)

// config is what the options of New and Migrate set, defaults first.
type config struct {
	queryTimeout time.Duration
	schema       string
	logger       *slog.Logger     // WithLogger
	listenConfig *pgx.ConnConfig  // WithListenConfig
	clock        func() time.Time // WithClock; nil for the server's
}

// newConfig applies opts to the defaults and checks them: the error is
// an *option.Error naming the first option given a value no default
// stands for.
func newConfig(opts []Option) (config, error) {
	c := config{queryTimeout: DefaultQueryTimeout, logger: slog.Default()}
	option.Apply(&c, opts)
	if c.queryTimeout < 0 {
		return c, option.Errorf("bunstore", "WithQueryTimeout", "%v is negative", c.queryTimeout)
	}
	if c.schema != "" && !schemaName.MatchString(c.schema) {
		return c, option.Errorf("bunstore", "WithSchema", "%q is not a lower-case identifier such as clientstatus", c.schema)
	}
	return c, nil
}

// Validate reports the *option.Error with which New would panic, and
// which Migrate would return, given opts, or nil: a program that builds
// its options from configuration calls it first.
func Validate(opts ...Option) error {
	_, err := newConfig(opts)
	return err
}

// WithQueryTimeout sets how long one Store method may take, from the
// request's context (whichever deadline comes first wins); 0 means
// DefaultQueryTimeout, and a negative d is an error. When it passes, the
// query is cancelled on the server and the method returns an error
// wrapping store.ErrUnavailable and context.DeadlineExceeded. Migrate
// ignores it.
func WithQueryTimeout(d time.Duration) Option {
	return func(c *config) { c.queryTimeout = cmp.Or(d, DefaultQueryTimeout) }
}

// New returns a Store on db, whose tables Migrate has brought up to date
// (in the schema given by WithSchema, the same for both). db is usually a
// *bun.DB, the portal's pool or Open's; it may also be a bun.Tx or a
// bun.Conn, and every method then runs in it (see WithTx). A *bun.DB must
// use the pgx driver, as Open's does, or Bun's own pgdriver: the Store
// LISTENs through it for revocations (see Subscribe); a db of the
// caller's should also set a server-side statement_timeout (see Open).
// New panics when db is nil, when it is a *bun.DB on any other driver and
// WithListenConfig is not given (the message names the drivers to use),
// or, with the *option.Error that Validate reports, when an option's value
// is one no default stands for.
func New(db bun.IDB, opts ...Option) *Store {
	if v := reflect.ValueOf(db); db == nil || v.Kind() == reflect.Pointer && v.IsNil() {
		panic("bunstore: New needs a *bun.DB (or a bun.Tx)")
	}
	c, err := newConfig(opts)
	if err != nil {
		panic(err)
	}
	driver, err := driverOf(db, c)
	if err != nil {
		panic(err.Error())
	}
	s := &Store{db: db, timeout: c.queryTimeout, schema: c.schema, notify: newNotifier(db, c, driver), clock: c.clock, statements: &statements{}, schemaOK: new(atomic.Bool)}
	s.batches = newBatches(s)
	return s
}

// WithTx returns a Store like s (same schema and options) whose methods
// all run in tx, the caller's transaction on the same database: what they
// write commits or rolls back with the caller's own writes, and they see
// what tx wrote before. A write of many items that the store would split
// runs under a savepoint of tx. Like any statement in a PostgreSQL
// transaction, one that fails (an item whose project does not exist, a
// timeout) aborts tx: the caller rolls it back.
//
// The Store it returns is for tx's lifetime and, as tx, for one goroutine
// at a time; s itself is unchanged.
func (s *Store) WithTx(tx bun.Tx) *Store {
	c := *s
	c.db = tx
	return &c
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
	if isViolation(err, lockNotAvailable) {
		return fmt.Errorf("bunstore: %s: %w: %w", what, store.ErrLockTimeout, err)
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
	lockNotAvailable    = "55P03" // lock_timeout, or NOWAIT: a failure of its own (store.ErrLockTimeout)
)

// maxBatch is how many rows one INSERT writes: put splits a longer batch
// into statements of this many rows, in one transaction.
const maxBatch = 1000

// keyed is a row of one of the store's tables: key is its primary key, the
// organization and id.
type keyed interface{ key() [2]string }

// put inserts rows, or replaces the row with the same key when a column
// other than updated_at differs, in one statement per maxBatch rows (one
// transaction, or a savepoint of the Store's, for more). A row that would
// not change is left as it is, not even rewritten, and so keeps its
// updated_at, which is the database's (the trigger clientstatus_touch),
// never the row's. Rows are written in key order, and of rows with the
// same key the last wins, as if they had been put one by one (see
// inKeyOrder). The query timeout bounds each statement. A
// reference to a missing organization or project wraps store.ErrNotFound,
// and then nothing is written.
func put[R keyed](ctx context.Context, s *Store, what string, rows []R) error {
	rows = inKeyOrder(rows)
	if len(rows) <= maxBatch {
		return s.write(ctx, "put "+what, func(s *Store) error { return insert(ctx, s, what, rows) })
	}
	return s.inTx(ctx, "put "+what, func(in *Store) error {
		for start := 0; start < len(rows); start += maxBatch {
			if err := insert(ctx, in, what, rows[start:min(start+maxBatch, len(rows))]); err != nil {
				return err
			}
		}
		return nil
	})
}

// inKeyOrder returns rows sorted by key, without those that a later row
// of the same key replaces: PostgreSQL refuses an INSERT ... ON CONFLICT
// that would update a row twice, and rows written in key order lock in
// key order, so two batches over the same rows wait for each other rather
// than deadlock. It sorts a copy: the caller's slice is left as it was.
func inKeyOrder[R keyed](rows []R) []R {
	if len(rows) < 2 {
		return rows
	}
	out := slices.Clone(rows)
	slices.SortStableFunc(out, func(a, b R) int {
		ka, kb := a.key(), b.key()
		return cmp.Or(strings.Compare(ka[0], kb[0]), strings.Compare(ka[1], kb[1]))
	})
	// Of a run of equal keys, the last is the last given: the sort is
	// stable.
	kept := out[:0]
	for i, r := range out {
		if i+1 < len(out) && out[i+1].key() == r.key() {
			continue // a later one replaces it
		}
		kept = append(kept, r)
	}
	return kept
}

// insert is one statement of put.
func insert[R keyed](ctx context.Context, s *Store, what string, rows []R) error {
	if len(rows) == 0 {
		return nil
	}
	ctx, cancel := s.query(ctx)
	defer cancel()
	_, err := s.upserting(&rows).Exec(ctx)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == foreignKeyViolation {
		return fmt.Errorf("bunstore: put %s: an organization or project it names does not exist (put it first): %s: %w", what, pgErr.Detail, store.ErrNotFound)
	}
	if err != nil {
		return failure(ctx, store.ErrUnavailable, "put "+what, err)
	}
	return nil
}

// upserting is the INSERT of rows (a pointer to a slice) that put makes:
// a row replaces the one with its key only where a column other than
// updated_at differs, and updated_at is left to the database.
func (s *Store) upserting(rows any) *bun.InsertQuery {
	u := upsertOf(s.tableOf(rows))
	q := s.newInsert(rows)
	if u.updatedAt {
		q = q.ExcludeColumn("updated_at")
	}
	return q.On("CONFLICT ? DO UPDATE", u.key).Where("? IS DISTINCT FROM ?", u.old, u.new)
}

// upsert is what put adds to an INSERT of a table's rows.
type upsert struct {
	key       bun.Safe // the conflict target: the primary key's columns
	old, new  bun.Safe // the columns compared, of the row and of EXCLUDED
	updatedAt bool     // whether the table has updated_at, which put leaves to the database
}

// upserts holds the upsert of each table, by *schema.Table.
var upserts sync.Map

func upsertOf(t *schema.Table) upsert {
	if u, ok := upserts.Load(t); ok {
		return u.(upsert)
	}
	_, updatedAt := t.FieldMap["updated_at"]
	u := upsert{key: columns(t.PKs, ""), old: changes(t, string(t.SQLAlias)), new: changes(t, "EXCLUDED"), updatedAt: updatedAt}
	upserts.Store(t, u)
	return u
}

// changes is the row of t's columns that a put compares, all but the
// key and updated_at, qualified by table (an alias, or EXCLUDED).
func changes(t *schema.Table, table string) bun.Safe {
	data := slices.DeleteFunc(slices.Clone(t.DataFields), func(f *schema.Field) bool { return f.Name == "updated_at" })
	return "ROW" + columns(data, table) // ROW: even of one column
}

// columns is the parenthesized list of fields' names, each qualified by
// table unless it is "".
func columns(fields []*schema.Field, table string) bun.Safe {
	b := []byte("(")
	for i, f := range fields {
		if i > 0 {
			b = append(b, ", "...)
		}
		if table != "" {
			b = append(b, table...)
			b = append(b, '.')
		}
		b = append(b, f.SQLName...)
	}
	return bun.Safe(append(b, ')'))
}

// counted is a row of a page query: it carries the count of all the rows
// the query matches, and whether it is a row of the page at all (see
// selectPage).
type counted interface {
	matching() int
	listed() bool
}

// total is the columns of a page query that count all matching rows and
// tell the rows of the page from the one row of an empty page, whose
// table columns are null.
type total struct {
	Matching int  `bun:"matching,scanonly"`
	Listed   bool `bun:"listed,scanonly"`
}

func (t total) matching() int { return t.Matching }
func (t total) listed() bool  { return t.Listed }

// list runs a list method: one page of R's table, filtered and ordered,
// converted to items, under the store's query timeout, with its
// SyncedThrough when since (its UpdatedSince) is not zero. count is the
// query of its total, or nil to count the rows filter matches, and
// columns adds to each row of the page, or is nil (see selectPage).
func list[R counted, T any](ctx context.Context, s *Store, what string, r store.PageRequest, since time.Time, filter func(*bun.SelectQuery) *bun.SelectQuery, count *bun.SelectQuery, order string, columns func(*bun.SelectQuery) *bun.SelectQuery, item func(R) T) (store.Page[T], error) {
	ctx, cancel := s.query(ctx)
	defer cancel()
	synced, err := s.syncedThrough(ctx, since)
	if err != nil {
		return store.Page[T]{}, failure(ctx, store.ErrUnavailable, "list "+what, err)
	}
	rows, n, err := selectPage[R](ctx, s, r, filter, count, order, columns)
	if err != nil {
		return store.Page[T]{}, failure(ctx, store.ErrUnavailable, "list "+what, err)
	}
	return store.Page[T]{Items: mapped(rows, item), Total: n, SyncedThrough: synced}, nil
}

// storable reports whether a read that compares these values (ids and
// filters) can match a row. PostgreSQL's text holds no NUL and no invalid
// UTF-8, and the driver would drop the one and replace the other with
// U+FFFD when it sends the value, so "p1\x00" would match "p1" and "p\xff"
// "p\ufffd". A value that is not store.Storable matches nothing: every read
// asks storable before it sends a query, and answers without one when it
// says no.
func storable(values ...string) bool {
	return !slices.ContainsFunc(values, func(v string) bool { return !store.Storable(v) })
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
		return store.Page[T]{}, fmt.Errorf("bunstore: %w page request %+v", store.ErrInvalid, r)
	}
	return store.Page[T]{Items: []T{}}, unmatched(ctx, nil)
}

// selectPage returns the rows of one page, in order, and the count of all
// rows that filter matches, in one round trip. filter applies the WHERE
// clauses (the organization's first) to a query on R's table; order is the
// list's ORDER BY, on the table's alias; count is the query of the total,
// one row with the column matching (see tallied), or nil for one that
// counts the rows filter matches (see counting). columns, when not nil,
// adds columns to the rows of the page only, computed after the limit
// (a message's attachments).
//
// The page walks the list's index in order and stops at its limit. The
// total is a query of its own: a sum of the few rows of item_counts that
// hold the filter's counts, kept by triggers, so that it costs the same
// however many items there are; or, for a filter item_counts cannot
// answer (UpdatedSince, DueBefore), a count over the same filter, which an index of
// the list's shape answers without reading the table (an index-only scan,
// where the visibility map allows) but entry by entry. count(*) OVER ()
// would read every matching row, all its columns, before returning the
// first. The page is joined to the total's one row (LEFT JOIN LATERAL), so
// that a page with no rows, past the end, is that one row with the total
// and null columns (listed false), and still has its total.
func selectPage[R counted](ctx context.Context, s *Store, r store.PageRequest, filter func(*bun.SelectQuery) *bun.SelectQuery, count *bun.SelectQuery, order string, columns func(*bun.SelectQuery) *bun.SelectQuery) ([]R, int, error) {
	if r.Page < 1 || r.Limit < 1 {
		// Bun reads a limit of 0 as none: refuse rather than list all.
		return nil, 0, fmt.Errorf("%w page request (page %d, limit %d)", store.ErrInvalid, r.Page, r.Limit)
	}
	if count == nil {
		count = counting(s, (*R)(nil), filter)
	}
	alias := bun.Ident(s.tableOf((*R)(nil)).Alias)
	page := filter(s.newSelect((*R)(nil))).
		ColumnExpr("?TableAlias.*").
		ColumnExpr("true AS listed").
		OrderExpr(order).
		Limit(int64(r.Limit)).
		Offset(offset(r))
	rows := make([]R, 0, min(r.Limit, store.MaxLimit)+1)
	q := s.db.NewSelect().
		TableExpr("(?) AS c", count).
		Join("LEFT JOIN LATERAL (?) AS ? ON true", page, alias).
		ColumnExpr("?.*, c.matching", alias)
	if columns != nil {
		q = columns(q)
	}
	err := q.OrderExpr(order).Scan(ctx, &rows)
	if err != nil || len(rows) == 0 {
		return rows[:0], 0, err
	}
	return paged(rows), rows[0].matching(), nil
}

// counting is the query that counts the rows of model's table that filter
// matches, as the column matching.
func counting(s *Store, model any, filter func(*bun.SelectQuery) *bun.SelectQuery) *bun.SelectQuery {
	return filter(s.newSelect(model)).ColumnExpr("count(*) AS matching")
}

// tallied is the query of the total of l, a list of the organization's
// items of kind, as the column matching (see selectPage): the sum of
// their rows in item_counts, counts that the migrations
// 20260901000001_counts and 20261001000003_lockfree backfill and whose
// triggers insert (a delta per writing statement, which later writers
// fold into one row per count), a few rows of its index read however
// many items there are. item_counts holds a count per status and project
// (its own id for a project, the empty string for an invoice of none),
// so it answers l's status, project and only (allowed's); for any other
// filter (a parent, any other of store.ListFilter: see beyond) tallied is
// nil and the rows are counted, never a wrong total summed.
func (s *Store) tallied(orgID, kind string, l listing, only []string) *bun.SelectQuery {
	if l.parent != "" || beyond(l.ListFilter, func(f *store.ListFilter) { f.ProjectID, f.OnlyProjects = "", nil }) {
		return nil
	}
	q := s.db.NewSelect().
		TableExpr("? AS ic", s.table("item_counts")).
		ColumnExpr("coalesce(sum(ic.n), 0)::bigint AS matching").
		Where("ic.org_id = ? AND ic.kind = ?", orgID, kind)
	if l.status != "" {
		q = q.Where("ic.status = ?", l.status)
	}
	if l.ProjectID != "" {
		q = q.Where("ic.project_id = ?", l.ProjectID)
	}
	if only != nil {
		// '' is an invoice of no project, which a restriction never lets
		// through (its project_id is NULL), however it is spelt.
		only := slices.DeleteFunc(slices.Clone(only), func(id string) bool { return id == "" })
		q = restrict(q, "ic.project_id", only)
	}
	return q
}

// paged returns the rows of a page query that are rows of the page: none
// when its one row only carries the count.
func paged[R counted](rows []R) []R {
	if len(rows) == 1 && !rows[0].listed() {
		return rows[:0]
	}
	return rows
}

// offset is the number of rows before the page; a page too far to count
// is past the end of any list.
func offset(r store.PageRequest) int64 {
	if int64(r.Page-1) > math.MaxInt64/int64(r.Limit) {
		return math.MaxInt64
	}
	return int64(r.Page-1) * int64(r.Limit)
}

// mapped converts rows to items.
func mapped[R, T any](rows []R, item func(R) T) []T {
	items := make([]T, len(rows))
	for i, row := range rows {
		items[i] = item(row)
	}
	return items
}

// utc returns t in UTC, or nil.
func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
