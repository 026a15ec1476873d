package bunstore

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/clientstatus/clientstatus/option"
	"github.com/clientstatus/clientstatus/store"
)

// DefaultStatementTimeout is the server-side statement_timeout that Open
// sets when neither the URL nor WithStatementTimeout gives one.
const DefaultStatementTimeout = 5 * time.Second

// DefaultLockTimeout is the server-side lock_timeout that Open sets when
// the URL gives none: under DefaultQueryTimeout, so that a write waiting
// for a lock another transaction holds on the same row fails as
// store.ErrLockTimeout (contention) before its deadline would make it
// store.ErrUnavailable (an outage). Writers of one organization that write
// different rows never wait for each other (migration
// 20261001000003_lockfree).
const DefaultLockTimeout = 2 * time.Second

// OpenOption configures Open. It is a type apart from Option, as no
// option is read by both Open and New: the compiler then refuses one given
// to the function that would ignore it. The rule is Option's (see package
// [github.com/clientstatus/clientstatus/option]): a nil OpenOption is
// ignored, a zero value means the option's default, and a value that no
// default stands for (a negative timeout) is an *option.Error naming the
// option, which Open returns.
type OpenOption func(*openConfig)

type openConfig struct {
	statementTimeout time.Duration
}

// WithStatementTimeout sets the server-side statement_timeout of every
// connection: PostgreSQL cancels a statement that runs longer, even when
// the client that sent it is gone. It should exceed the store's query
// timeout (WithQueryTimeout), which cancels first in the usual case. A
// statement_timeout in the URL takes precedence. 0 means
// DefaultStatementTimeout; Open returns an *option.Error for a negative
// d, or one under a millisecond, which PostgreSQL would read as no timeout
// at all.
func WithStatementTimeout(d time.Duration) OpenOption {
	return func(c *openConfig) { c.statementTimeout = cmp.Or(d, DefaultStatementTimeout) }
}

// Open connects to the PostgreSQL database at dsn (a postgres:// URL or a
// libpq key=value string) through the pgx driver, checks that it answers,
// and returns a *bun.DB for New and Migrate. Unknown URL parameters become
// run-time parameters ("?search_path=tenant_a"). Every connection gets a
// statement_timeout, a lock_timeout, plan_cache_mode=force_generic_plan
// unless dsn sets them, and cancels a statement on the server when its
// context ends; the pool keeps at most 4 x GOMAXPROCS connections. A
// portal that builds its own *bun.DB sets the same (docs/operations.md).
//
// The error wraps store.ErrUnavailable when the database cannot be
// reached; the caller closes the db.
func Open(ctx context.Context, dsn string, opts ...OpenOption) (*bun.DB, error) {
	c := openConfig{statementTimeout: DefaultStatementTimeout}
	option.Apply(&c, opts)
	switch {
	case c.statementTimeout < 0:
		return nil, option.Errorf("bunstore", "WithStatementTimeout", "%v is negative", c.statementTimeout)
	case c.statementTimeout < time.Millisecond:
		return nil, option.Errorf("bunstore", "WithStatementTimeout", "%v is under a millisecond, which PostgreSQL would read as no timeout", c.statementTimeout)
	}
	if strings.TrimSpace(dsn) == "" {
		// pgx would fall back to libpq's defaults and connect to whatever
		// database the environment names: refuse instead.
		return nil, fmt.Errorf("bunstore: open: %w: no database URL given (is DATABASE_URL set?)", store.ErrInvalid)
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		// pgx's message may quote the URL, password included.
		return nil, fmt.Errorf("bunstore: open: %w: the database URL does not parse", store.ErrInvalid)
	}
	if _, ok := cfg.RuntimeParams["statement_timeout"]; !ok {
		cfg.RuntimeParams["statement_timeout"] = strconv.FormatInt(c.statementTimeout.Milliseconds(), 10)
	}
	if _, ok := cfg.RuntimeParams["lock_timeout"]; !ok {
		cfg.RuntimeParams["lock_timeout"] = strconv.FormatInt(DefaultLockTimeout.Milliseconds(), 10)
	}
	if _, ok := cfg.RuntimeParams["timezone"]; !ok {
		cfg.RuntimeParams["timezone"] = "UTC"
	}
	if _, ok := cfg.RuntimeParams["plan_cache_mode"]; !ok {
		// The store's prepared reads (prepared.go) are planned once per
		// connection: left to choose, PostgreSQL plans them again on
		// every run, for the custom plan of a one-element array always
		// looks cheaper than the generic one.
		cfg.RuntimeParams["plan_cache_mode"] = "force_generic_plan"
	}
	// Bun writes the values into the query text itself; the simple
	// protocol then sends it in one round trip, without preparing a
	// statement per distinct text.
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	cfg.BuildContextWatcherHandler = func(conn *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{
			Conn: conn,
			// If the server does not answer the cancel request, give up
			// on the connection.
			DeadlineDelay: 500 * time.Millisecond,
		}
	}

	sqldb := sql.OpenDB(stdlib.GetConnector(*cfg))
	conns := 4 * runtime.GOMAXPROCS(0)
	sqldb.SetMaxOpenConns(conns)
	sqldb.SetMaxIdleConns(conns)
	sqldb.SetConnMaxIdleTime(5 * time.Minute)
	sqldb.SetConnMaxLifetime(time.Hour)
	if err := sqldb.PingContext(ctx); err != nil {
		sqldb.Close()
		return nil, failure(ctx, store.ErrUnavailable, "open", err)
	}
	return bun.NewDB(sqldb, pgdialect.New()), nil
}
