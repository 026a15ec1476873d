package bunstore_test

import (
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
	want := []string{"api_keys", "bun_migration_locks", "bun_migrations", "deliverables", "invoices", "milestones", "organizations", "projects"}
	is.Equal(tables(t, db), want) // every table, and bun/migrate's bookkeeping

	st := bunstore.New(db)
	is.NoErr(st.PutOrganization(ctx, store.Organization{ID: "org_a", Plan: "starter"}))
	is.NoErr(bunstore.Migrate(ctx, db)) // running it again is fine
	is.Equal(tables(t, db), want)       // and changes no table
	applied, err := db.NewSelect().Table("bun_migrations").Count(ctx)
	is.NoErr(err)
	is.Equal(applied, 1) // each migration recorded once
	_, err = st.Account(ctx, "org_a")
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
	applied, err := dbs[0].NewSelect().Table("bun_migrations").Count(ctx)
	is.NoErr(err)
	is.Equal(applied, 1) // the migration ran once
}
