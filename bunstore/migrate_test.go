package bunstore_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"text/template"
	"time"

	"github.com/matryer/is"
	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/store"
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

// migrations is the number of migrations in the migrations directory.
func migrations(t *testing.T) int64 {
	t.Helper()
	ups, err := filepath.Glob(filepath.Join("migrations", "*.up.sql"))
	if err != nil || len(ups) == 0 {
		t.Fatalf("no migrations found: %v", err)
	}
	return int64(len(ups))
}

func TestMigrateFromEmptyAndAgain(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db := openSchema(t)
	is.Equal(len(tables(t, db)), 0) // the schema starts empty

	is.NoErr(bunstore.Migrate(ctx, db))
	// Every table the migrations make is one of storeTables, on which
	// Migrate refuses to build, and every one of those is made; the rest
	// is bun/migrate's bookkeeping. A new resource's table is one line of
	// storeTables, and this test derives from it.
	want := slices.Sorted(slices.Values(append([]string{"clientstatus_migrations", "clientstatus_migrations_locks"}, bunstore.StoreTables...)))
	is.Equal(tables(t, db), want)
	is.True(len(want) > 20) // the tables of the migrations until resource_kinds, at least

	st := bunstore.New(db)
	is.NoErr(st.PutOrganization(ctx, store.Organization{ID: "org_a", Plan: "starter"}))
	is.NoErr(bunstore.Migrate(ctx, db)) // running it again is fine
	is.Equal(tables(t, db), want)       // and changes no table
	applied, err := db.NewSelect().Table("clientstatus_migrations").Count(ctx)
	is.NoErr(err)
	is.Equal(applied, migrations(t)) // each migration recorded once
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
	is.Equal(applied, migrations(t)) // each migration ran once
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

func TestOpenRefusesBadInput(t *testing.T) {
	is := is.New(t)
	_, err := bunstore.Open(ctx, "")
	is.True(err != nil && strings.Contains(err.Error(), "no database URL")) // not libpq's defaults
	is.True(errors.Is(err, store.ErrInvalid))                               // the caller's mistake, not an outage
	_, err = bunstore.Open(ctx, "postgres://u:secret@127.0.0.1:notaport/x")
	is.True(errors.Is(err, store.ErrInvalid))         // a URL that does not parse
	is.True(!errors.Is(err, store.ErrUnavailable))    // is not an outage
	is.True(!strings.Contains(err.Error(), "secret")) // and its password is not repeated
	_, err = bunstore.Open(ctx, "postgres://u:secret@127.0.0.1:1/x?sslmode=disable")
	is.True(err != nil)                               // nothing listens there
	is.True(!strings.Contains(err.Error(), "secret")) // and the message keeps the password
}

// migration renders one of the migration files for db's schema, as
// Migrate does.
func migration(t *testing.T, db *bun.DB, file string) string {
	t.Helper()
	text, err := os.ReadFile(filepath.Join("migrations", file))
	if err != nil {
		t.Fatal(err)
	}
	var schema string
	if err := db.NewRaw("SELECT quote_ident(current_schema())").Scan(ctx, &schema); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := template.Must(template.New(file).Parse(string(text))).Execute(&b, struct{ Schema string }{schema}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestMigrateUpgradesData checks the change-tracking migration on a schema
// that has data from before it: milestones and invoices get an updated_at,
// a project's updated_at in the future is brought back to the present, and
// the data survives. It also runs the migration's down and up files again
// by hand, as a crash before bun/migrate recorded them would.
func TestMigrateUpgradesData(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db := migrated(t)
	const changes = "20260401000001_changes.tx"
	// Back to the first migration's schema, with data: every later
	// migration is rolled back first, newest first, so that a new one
	// (a resource's table and triggers) needs no edit here.
	downs, err := filepath.Glob(filepath.Join("migrations", "*.down.sql"))
	is.NoErr(err)
	var later []string
	for _, f := range downs {
		if name := strings.TrimSuffix(filepath.Base(f), ".down.sql"); name >= changes {
			later = append(later, name)
		}
	}
	slices.Sort(later)
	slices.Reverse(later)
	for _, name := range later {
		_, err := db.ExecContext(ctx, migration(t, db, name+".down.sql"))
		is.NoErr(err)
		_, err = db.NewDelete().Table("clientstatus_migrations").Where("name = ?", strings.Split(name, "_")[0]).Exec(ctx)
		is.NoErr(err)
	}
	_, err = db.ExecContext(ctx, `
		INSERT INTO organizations (id, plan) VALUES ('org_a', 'growth');
		INSERT INTO projects (org_id, id, status, updated_at) VALUES ('org_a', 'p1', 'planned', '2099-01-01Z'), ('org_a', 'p2', 'planned', '2026-01-01Z');
		INSERT INTO milestones (org_id, id, project_id, status, due_at) VALUES ('org_a', 'm1', 'p1', 'pending', '2026-01-01Z');
		INSERT INTO invoices (org_id, id, status, currency, total, amount_due, issued_at, due_at) VALUES ('org_a', 'i1', 'open', 'EUR', 1, 1, '2026-01-01Z', '2026-01-01Z')`)
	is.NoErr(err)

	before := dbNow(t, db).Truncate(time.Second) // times are kept to the second (20261001000001_spine)
	is.NoErr(bunstore.Migrate(ctx, db))
	after := dbNow(t, db)
	st := bunstore.New(db)
	page := store.PageRequest{Page: 1, Limit: 10}
	ms, err := st.ListMilestones(ctx, "org_a", "p1", store.MilestoneQuery{PageRequest: page})
	is.NoErr(err)
	is.True(len(ms.Items) == 1 && !ms.Items[0].UpdatedAt.Before(before) && !ms.Items[0].UpdatedAt.After(after)) // a milestone's updated_at is the migration's time
	invs, err := st.ListInvoices(ctx, "org_a", store.InvoiceQuery{PageRequest: page})
	is.NoErr(err)
	is.True(len(invs.Items) == 1 && !invs.Items[0].UpdatedAt.Before(before)) // so is an invoice's
	p1, err := st.GetProject(ctx, "org_a", "p1")
	is.NoErr(err)
	is.True(!p1.UpdatedAt.After(after)) // a time in the future is brought back
	p2, err := st.GetProject(ctx, "org_a", "p2")
	is.NoErr(err)
	is.Equal(p2.UpdatedAt, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)) // a past one is kept

	var since time.Time
	is.NoErr(db.NewRaw("SELECT recording_since FROM sync_horizon").Scan(ctx, &since))
	_, err = db.ExecContext(ctx, migration(t, db, changes+".up.sql"))
	is.NoErr(err) // the up file runs again over itself
	var again time.Time
	is.NoErr(db.NewRaw("SELECT recording_since FROM sync_horizon").Scan(ctx, &again))
	is.Equal(again, since) // and keeps when recording began
	is.NoErr(st.PutMilestone(ctx, store.Milestone{ID: "m1", OrgID: "org_a", ProjectID: "p1", Status: store.MilestoneCompleted, DueAt: p2.UpdatedAt}))
	ms, err = st.ListMilestones(ctx, "org_a", "p1", store.MilestoneQuery{PageRequest: page})
	is.NoErr(err)
	is.True(ms.Items[0].UpdatedAt.After(after)) // with its triggers in place
}

// TestMigrateKeyRestrictions runs the key-restriction migration's files
// again by hand, as a crash before bun/migrate recorded them would: the up
// file runs over itself, and the down file revokes every restricted key
// before it drops the restrictions, so that none reads everything after.
func TestMigrateKeyRestrictions(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db := migrated(t)
	const restrictions = "20260501000001_key_restrictions.tx"
	_, err := db.ExecContext(ctx, migration(t, db, restrictions+".up.sql"))
	is.NoErr(err) // the up file runs again over itself
	st := bunstore.New(db)
	is.NoErr(st.PutOrganization(ctx, store.Organization{ID: "org_a", Plan: "starter"}))
	at := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	is.NoErr(st.CreateKey(ctx, auth.Key{ID: "key_all", OrgID: "org_a", Hash: "h1", CreatedAt: at}))
	is.NoErr(st.CreateKey(ctx, auth.Key{ID: "key_some", OrgID: "org_a", Hash: "h2", CreatedAt: at,
		Restriction: auth.Restriction{ProjectIDs: []string{"p1"}}}))

	_, err = db.ExecContext(ctx, migration(t, db, restrictions+".down.sql"))
	is.NoErr(err)
	all, _, err := st.LookupKey(ctx, "h1")
	is.NoErr(err)
	is.True(all.RevokedAt == nil) // an unrestricted key keeps working
	some, _, err := st.LookupKey(ctx, "h2")
	is.NoErr(err)
	is.True(some.RevokedAt != nil) // a restricted one is revoked, not widened
	_, err = db.ExecContext(ctx, migration(t, db, restrictions+".up.sql"))
	is.NoErr(err) // and up again
}
