package bunstore_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/matryer/is"
	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/store"
	"github.com/clientstatus/clientstatus/store/bunstore"
)

// tables lists the tables of db's schema.
func tables(t *testing.T, db *bun.DB) []string {
	t.Helper()
	var names []string
	err := db.NewSelect().TableExpr("information_schema.tables").
		Column("table_name").
		Where("table_schema = current_schema()").
		OrderExpr("table_name").
		Scan(ctx, &names)
	if err != nil {
		t.Fatalf("list tables: %v", err)
	}
	return names
}

func TestMigrateFromEmptyAndAgain(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db := openSchema(t)
	is.Equal(len(tables(t, db)), 0) // the schema starts empty

	is.NoErr(bunstore.Migrate(ctx, db))
	want := []string{"api_keys", "clientstatus_migrations", "clientstatus_migrations_locks", "deliverables", "invoices", "milestones", "organizations", "projects"}
	is.Equal(tables(t, db), want) // every table, and bun/migrate's bookkeeping

	st := bunstore.New(db)
	is.NoErr(st.PutOrganization(ctx, store.Organization{ID: "org_a", Plan: "starter"}))
	is.NoErr(bunstore.Migrate(ctx, db)) // running it again is fine
	is.Equal(tables(t, db), want)       // and changes no table
	applied, err := db.NewSelect().Table("clientstatus_migrations").Count(ctx)
	is.NoErr(err)
	is.Equal(applied, int64(migrations(t))) // each migration recorded once
	_, err = st.Organization(ctx, "org_a")
	is.NoErr(err) // the data survives
}

func TestMigrateConcurrently(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	schema, dsn := newSchema(t)
	// Two replicas starting at once, each with its own pool.
	var dbs []*bun.DB
	for range 2 {
		db, err := bunstore.Open(ctx, withParams(dsn, map[string]string{"search_path": schema}))
		is.NoErr(err)
		t.Cleanup(func() { db.Close() })
		dbs = append(dbs, db)
	}
	var wg sync.WaitGroup
	errs := make([]error, len(dbs))
	for i, db := range dbs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = bunstore.Migrate(ctx, db)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		is.NoErr(err) // both replicas start
	}
	applied, err := dbs[0].NewSelect().Table("clientstatus_migrations").Count(ctx)
	is.NoErr(err)
	is.Equal(applied, int64(migrations(t))) // each migration ran once
}

// TestMigrateRefusesAPortalsTables checks that Migrate, run in a schema
// where a portal already has a table named as one of the store's, stops
// with a message saying so, rather than building on it.
func TestMigrateRefusesAPortalsTables(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db := openSchema(t)
	_, err := db.ExecContext(ctx, "CREATE TABLE projects (id bigserial PRIMARY KEY, title text)")
	is.NoErr(err)

	err = bunstore.Migrate(ctx, db)
	is.True(err != nil)                                                 // the portal's table is not the store's
	is.True(strings.Contains(err.Error(), "did not create (projects)")) // the message names it
	is.True(strings.Contains(err.Error(), "WithSchema"))                // and says what to do
	is.Equal(tables(t, db), []string{"projects"})                       // and nothing was created beside it
}

// TestMigrateWithOneConnection checks that a pool of one connection, on
// which the lock and the migrations would wait for each other forever, is
// refused at once.
func TestMigrateWithOneConnection(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db := openSchema(t)
	db.SetMaxOpenConns(1)
	err := bunstore.Migrate(ctx, db) // ctx has no deadline: a hang would hang the test
	is.True(err != nil)
	is.True(strings.Contains(err.Error(), "one connection"))
}

// TestOpenWithSchema checks that WithSchema creates the schema and that
// Migrate then builds the store there, beside whatever the portal's own
// schema holds.
func TestOpenWithSchema(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	schema, dsn := newSchema(t) // dropped when the test ends
	inner := schema + "_cs"
	db, err := bunstore.Open(ctx, withParams(dsn, map[string]string{"search_path": schema}), bunstore.WithSchema(inner))
	is.NoErr(err)
	t.Cleanup(func() {
		_, _ = db.ExecContext(context.Background(), "DROP SCHEMA IF EXISTS "+inner+" CASCADE")
		db.Close()
	})
	is.NoErr(bunstore.Migrate(ctx, db))
	var where string
	is.NoErr(db.NewRaw("SELECT table_schema FROM information_schema.tables WHERE table_name = 'projects' AND table_schema IN (?, ?)", schema, inner).Scan(ctx, &where))
	is.Equal(where, inner) // WithSchema wins over the URL's search_path
}

func TestOpenRefusesBadInput(t *testing.T) {
	is := is.New(t)
	_, err := bunstore.Open(ctx, "")
	is.True(err != nil && strings.Contains(err.Error(), "no database URL")) // not libpq's defaults
	is.True(errors.Is(err, store.ErrInvalid))                               // the caller's mistake, not an outage
	_, err = bunstore.Open(ctx, "postgres://u:secret@127.0.0.1:1/x", bunstore.WithSchema("Bad Name; DROP"))
	is.True(err != nil && strings.Contains(err.Error(), "lower-case identifier")) // checked before any connection
	is.True(errors.Is(err, store.ErrInvalid))
	is.True(!strings.Contains(err.Error(), "secret"))
	_, err = bunstore.Open(ctx, "postgres://u:secret@127.0.0.1:notaport/x")
	is.True(errors.Is(err, store.ErrInvalid))         // a URL that does not parse
	is.True(!errors.Is(err, store.ErrUnavailable))    // is not an outage
	is.True(!strings.Contains(err.Error(), "secret")) // and its password is not repeated
}

// migrations counts the migrations Migrate applies: the up files.
func migrations(t *testing.T) int {
	t.Helper()
	up, err := filepath.Glob("migrations/*.up.sql")
	if err != nil || len(up) == 0 {
		t.Fatalf("no migrations found: %v", err)
	}
	return len(up)
}
