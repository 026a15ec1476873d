package bunstore_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/internal/test/testenv"
	"github.com/clientstatus/clientstatus/store"
)

// TestPing checks that Ping answers while the database does, and fails as
// unavailable within the query timeout when it is gone or silent, then
// answers again when it is back.
func TestPing(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		lose func(*testenv.Proxy)
	}{
		{"gone", (*testenv.Proxy).Cut},
		{"silent", (*testenv.Proxy).Blackhole},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			is := is.New(t)
			schema, dsn := newSchema(t)
			u, err := url.Parse(withParams(dsn, map[string]string{"search_path": schema}))
			is.NoErr(err)
			p := testenv.NewProxy(t, u.Host)
			u.Host = p.Addr()
			db, err := bunstore.Open(ctx, u.String())
			is.NoErr(err)
			is.NoErr(bunstore.Migrate(ctx, db)) // ready needs a migrated schema
			is.NoErr(err)
			t.Cleanup(func() { db.Close() })
			const timeout = 300 * time.Millisecond
			st := bunstore.New(db, bunstore.WithQueryTimeout(timeout))
			is.NoErr(st.Ping(ctx)) // the database answers

			tt.lose(p)
			start := time.Now()
			err = st.Ping(ctx)
			is.True(errors.Is(err, store.ErrUnavailable))    // a lost database is unavailable
			is.True(time.Since(start) < timeout+time.Second) // within the query timeout

			p.Restore()
			testenv.Poll(t, 10*time.Second, func() error { return st.Ping(ctx) }) // the pool reconnects: ready again
		})
	}
}

// TestPingCancelled checks that Ping with a cancelled ctx fails as
// unavailable, wrapping ctx's error.
func TestPingCancelled(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	st := bunstore.New(openSchema(t))
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	err := st.Ping(cctx)
	is.True(errors.Is(err, store.ErrUnavailable)) // not ready
	is.True(errors.Is(err, context.Canceled))     // because the caller gave up
}

// TestPingNotMigrated: a schema never migrated, or migrated by a newer
// version (a migration this one does not know), is not ready, with a
// reason that says what to do and holds no internals; once migrated, the
// store is ready.
func TestPingNotMigrated(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db := openSchema(t)
	st := bunstore.New(db)
	err := st.Ping(ctx)
	var se *store.SchemaError
	is.True(errors.As(err, &se))                             // never migrated: not ready
	is.True(strings.Contains(se.Reason, "bunstore.Migrate")) // says what to do
	is.True(!strings.Contains(se.Reason, "127.0.0.1"))

	is.NoErr(bunstore.Migrate(ctx, db))
	is.NoErr(st.Ping(ctx)) // migrated: ready

	newer := migrated(t)
	_, err = newer.ExecContext(ctx, "INSERT INTO clientstatus_migrations (name, group_id) VALUES ('29991231000001', 99)")
	is.NoErr(err)
	err = bunstore.New(newer).Ping(ctx)
	is.True(errors.As(err, &se)) // migrated by a newer version: not ready
	is.True(strings.Contains(se.Reason, "newer"))
	is.True(strings.Contains(se.Reason, "29991231000001")) // which migration
}

// TestDataVersionOutage: with the database blackholed, concurrent data
// version reads (batched, more of them than statements may run at once)
// each fail as unavailable within the query timeout, not twice it.
func TestDataVersionOutage(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	schema, dsn := newSchema(t)
	u, err := url.Parse(withParams(dsn, map[string]string{"search_path": schema}))
	is.NoErr(err)
	p := testenv.NewProxy(t, u.Host)
	u.Host = p.Addr()
	db, err := bunstore.Open(ctx, u.String())
	is.NoErr(err)
	t.Cleanup(func() { db.Close() })
	is.NoErr(bunstore.Migrate(ctx, db))
	const timeout = 2 * time.Second
	st := bunstore.New(db, bunstore.WithQueryTimeout(timeout))
	_, err = st.DataVersion(ctx, "org_a")
	is.NoErr(err)

	p.Blackhole()
	errs := make(chan error, 6)
	took := make(chan time.Duration, 6)
	for i := range 6 {
		go func() {
			start := time.Now()
			_, err := st.DataVersion(ctx, fmt.Sprintf("org_%d", i))
			took <- time.Since(start)
			errs <- err
		}()
	}
	for range 6 {
		is.True(errors.Is(<-errs, store.ErrUnavailable))
		d := <-took
		is.True(d < timeout+timeout/2) // within the deadline (twice it before)
	}
	p.Restore()
}
