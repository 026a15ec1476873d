package bunstore_test

import (
	"context"
	"database/sql"
	"errors"
	"net"
	"net/url"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/matryer/is"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/internal/test/testenv"
	"github.com/clientstatus/clientstatus/option"
	"github.com/clientstatus/clientstatus/store"
)

// lockedProjects opens a migrated schema whose connections carry a name of
// their own (application_name), and locks its projects table until the
// test ends, so that any query on it waits. It returns the db and the
// transaction holding the lock.
func lockedProjects(t *testing.T, opts ...bunstore.OpenOption) (*bun.DB, bun.Tx, string) {
	t.Helper()
	schema, dsn := newSchema(t)
	db, err := bunstore.Open(ctx, withParams(dsn, map[string]string{"search_path": schema, "application_name": schema}), opts...)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	if err := bunstore.Migrate(ctx, db); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatalf("begin: %v", err)
	}
	t.Cleanup(func() { _ = tx.Rollback() })
	if _, err := tx.ExecContext(ctx, "LOCK TABLE projects IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatalf("lock: %v", err)
	}
	return db, tx, schema
}

// waiting counts the statements of the application that are running,
// other than tx's own.
func waiting(t *testing.T, tx bun.Tx, app string) int {
	t.Helper()
	var n int
	err := tx.NewSelect().TableExpr("pg_stat_activity").ColumnExpr("count(*)").
		Where("application_name = ? AND state = 'active' AND pid <> pg_backend_pid()", app).
		Scan(ctx, &n)
	if err != nil {
		t.Fatalf("pg_stat_activity: %v", err)
	}
	return n
}

func pgCode(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	return ""
}

// TestQueryTimeout checks that a query that outlives the store's deadline
// fails as unavailable, and is cancelled on the server, not left running.
func TestQueryTimeout(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db, tx, app := lockedProjects(t)
	st := bunstore.New(db, bunstore.WithQueryTimeout(200*time.Millisecond))

	_, err := st.ListProjects(ctx, "org_a", store.ProjectQuery{PageRequest: store.PageRequest{Page: 1, Limit: 20}})
	is.True(errors.Is(err, store.ErrUnavailable))     // a timeout is 503 UNAVAILABLE
	is.True(errors.Is(err, context.DeadlineExceeded)) // because the deadline passed
	is.Equal(pgCode(err), "57014")                    // the server was running it, and cancelled it
	is.Equal(waiting(t, tx, app), 0)                  // nothing left running behind
}

// TestStatementTimeout checks that the server's statement_timeout, set by
// Open, stops a statement even when the caller's deadline is far.
func TestStatementTimeout(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db, tx, app := lockedProjects(t, bunstore.WithStatementTimeout(200*time.Millisecond))
	st := bunstore.New(db, bunstore.WithQueryTimeout(time.Minute))

	_, err := st.GetProject(ctx, "org_a", "p1")
	is.True(errors.Is(err, store.ErrUnavailable))      // a timeout is 503 UNAVAILABLE
	is.True(!errors.Is(err, context.DeadlineExceeded)) // the server's, not the caller's
	is.Equal(pgCode(err), "57014")                     // query_canceled
	is.Equal(waiting(t, tx, app), 0)                   // nothing left running behind
}

// TestCancelled checks that a caller's cancellation is passed on, not
// reported as an outage.
func TestCancelled(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db, tx, app := lockedProjects(t)
	st := bunstore.New(db)
	cctx, cancel := context.WithCancel(ctx)
	time.AfterFunc(100*time.Millisecond, cancel)

	_, err := st.ListProjects(cctx, "org_a", store.ProjectQuery{PageRequest: store.PageRequest{Page: 1, Limit: 20}})
	is.True(errors.Is(err, context.Canceled))      // the caller's cancellation
	is.True(!errors.Is(err, store.ErrUnavailable)) // is not an outage
	is.Equal(waiting(t, tx, app), 0)               // nothing left running behind
}

// TestLostDatabase checks that a store whose database goes away, or stops
// answering, fails as unavailable within its deadline.
func TestLostDatabase(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		lose func(*testenv.Proxy)
	}{
		{"gone", (*testenv.Proxy).Cut},
		{"silent", (*testenv.Proxy).Blackhole},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			is := is.New(t)
			schema, dsn := newSchema(t)
			u, err := url.Parse(dsn)
			is.NoErr(err)
			p := testenv.NewProxy(t, u.Host)
			u.Host = p.Addr()
			db, err := bunstore.Open(ctx, withParams(u.String(), map[string]string{"search_path": schema}))
			is.NoErr(err)
			t.Cleanup(func() { db.Close() })
			is.NoErr(bunstore.Migrate(ctx, db))
			st := bunstore.New(db, bunstore.WithQueryTimeout(300*time.Millisecond))
			is.NoErr(st.PutOrganization(ctx, store.Organization{ID: "org_a", Plan: "starter"}))

			tt.lose(p)
			_, err = st.ListProjects(ctx, "org_a", store.ProjectQuery{PageRequest: store.PageRequest{Page: 1, Limit: 20}})
			is.True(errors.Is(err, store.ErrUnavailable)) // a lost database is 503 UNAVAILABLE
			_, _, err = st.LookupKey(ctx, auth.HashKey("csk_any"))
			is.True(errors.Is(err, auth.ErrUnavailable)) // key lookups fail as unavailable too
		})
	}
}

// TestOpenUnreachable checks that Open reports a database it cannot reach
// as unavailable.
func TestOpenUnreachable(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	is.NoErr(err)
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	_, err = bunstore.Open(ctx, "postgres://postgres@"+addr+"/test?sslmode=disable")
	is.True(errors.Is(err, store.ErrUnavailable)) // 503, not 500
}

// TestTimeoutOptions checks the options' rule: zero is the default, and a
// value no default stands for is an *option.Error naming the option,
// before anything is connected: New panics with it, Open returns it.
func TestTimeoutOptions(t *testing.T) {
	sqldb, err := sql.Open("pgx", "postgres://u@127.0.0.1:1/x") // never connected
	if err != nil {
		t.Fatal(err)
	}
	db := bun.NewDB(sqldb, pgdialect.New())
	t.Cleanup(func() { db.Close() })
	// open is Open's configuration error, nil for another (the empty URL).
	open := func(opts ...bunstore.OpenOption) error {
		_, err := bunstore.Open(ctx, "", opts...)
		if errors.Is(err, store.ErrInvalid) {
			return nil // past the options: refused for its URL
		}
		return err
	}
	newStore := func(opts ...bunstore.Option) (err error) {
		defer func() {
			if v := recover(); v != nil {
				err, _ = v.(error)
			}
		}()
		bunstore.New(db, opts...)
		return nil
	}
	tests := []struct {
		name string
		call func() error
		want string // the error; "" for none
	}{
		{"query timeout zero", func() error { return newStore(bunstore.WithQueryTimeout(0), bunstore.WithSchema(""), nil) }, ""},
		{"query timeout negative", func() error { return newStore(bunstore.WithQueryTimeout(-time.Second)) },
			"bunstore: WithQueryTimeout: -1s is negative"},
		{"statement timeout negative", func() error { return open(bunstore.WithStatementTimeout(-time.Second)) },
			"bunstore: WithStatementTimeout: -1s is negative"},
		{"statement timeout under a millisecond", func() error { return open(bunstore.WithStatementTimeout(time.Microsecond)) },
			"bunstore: WithStatementTimeout: 1µs is under a millisecond, which PostgreSQL would read as no timeout"},
		{"statement timeout zero", func() error { return open(bunstore.WithStatementTimeout(0), nil) }, ""},
		{"schema empty", func() error { return newStore(bunstore.WithSchema("")) }, ""},
		{"schema not an identifier", func() error { return newStore(bunstore.WithSchema("Bad Name; DROP")) },
			`bunstore: WithSchema: "Bad Name; DROP" is not a lower-case identifier such as clientstatus`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			err := tt.call()
			if tt.want == "" {
				is.NoErr(err) // the default
				return
			}
			var oe *option.Error
			is.True(errors.As(err, &oe))  // a typed configuration error
			is.Equal(oe.Error(), tt.want) // naming the option
		})
	}
}

// TestStatementTimeoutZeroIsDefault checks that WithStatementTimeout(0)
// sets DefaultStatementTimeout on the server.
func TestStatementTimeoutZeroIsDefault(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db := openSchema(t, bunstore.WithStatementTimeout(time.Minute), bunstore.WithStatementTimeout(0))
	var got string
	is.NoErr(db.NewRaw("SHOW statement_timeout").Scan(ctx, &got))
	is.Equal(got, "5s") // DefaultStatementTimeout, the later option winning
}
