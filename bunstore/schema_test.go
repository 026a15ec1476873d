package bunstore_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/matryer/is"
	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/store"
)

// storeSchema returns a name for the store's own schema beside db's, which
// Migrate creates; it is dropped when the test ends.
func storeSchema(t *testing.T, db *bun.DB) string {
	t.Helper()
	var portal string
	if err := db.NewRaw("SELECT current_schema()").Scan(ctx, &portal); err != nil {
		t.Fatalf("current_schema: %v", err)
	}
	name := portal + "_cs"
	t.Cleanup(func() {
		if _, err := db.ExecContext(context.Background(), "DROP SCHEMA IF EXISTS ? CASCADE", bun.Ident(name)); err != nil {
			t.Errorf("drop schema %s: %v", name, err)
		}
	})
	return name
}

// tablesIn lists the tables of a schema.
func tablesIn(t *testing.T, db bun.IDB, schema string) []string {
	t.Helper()
	names := []string{}
	err := db.NewSelect().TableExpr("information_schema.tables").
		Column("table_name").
		Where("table_schema = ?", schema).
		OrderExpr("table_name").
		Scan(ctx, &names)
	if err != nil {
		t.Fatalf("list tables: %v", err)
	}
	return names
}

// TestWithSchemaBesideAPortal checks that a store given WithSchema keeps
// its tables in that schema, named in every query, beside a portal's own
// table of the same name in the portal's schema (one of the test's own,
// standing for public), with no search_path change; and that the portal
// writes its rows and the store's in one transaction, on its one pool.
func TestWithSchemaBesideAPortal(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db := openSchema(t) // the portal's pool, its search_path on its own schema
	var portal, searchPath string
	is.NoErr(db.NewRaw("SELECT current_schema(), current_setting('search_path')").Scan(ctx, &portal, &searchPath))
	_, err := db.ExecContext(ctx, "CREATE TABLE projects (id bigserial PRIMARY KEY, title text NOT NULL)")
	is.NoErr(err)
	_, err = db.ExecContext(ctx, "INSERT INTO projects (title) VALUES ('the portal''s own')")
	is.NoErr(err)

	cs := storeSchema(t, db)
	is.NoErr(bunstore.Migrate(ctx, db, bunstore.WithSchema(cs)))
	is.NoErr(bunstore.Migrate(ctx, db, bunstore.WithSchema(cs))) // again: nothing to do
	is.Equal(tablesIn(t, db, portal), []string{"projects"})      // the portal's schema holds its table only
	is.True(len(tablesIn(t, db, cs)) > 6)                        // the store's tables are in its own
	st := bunstore.New(db, bunstore.WithSchema(cs))

	portalRows := func(q bun.IDB) (n int) {
		is.NoErr(q.NewRaw("SELECT count(*) FROM projects").Scan(ctx, &n))
		return n
	}
	write := func(tx bun.Tx, id string) {
		_, err := tx.ExecContext(ctx, "INSERT INTO projects (title) VALUES (?)", "portal "+id)
		is.NoErr(err)
		in := st.WithTx(tx)
		is.NoErr(in.PutOrganization(ctx, store.Organization{ID: "org_a", Plan: store.PlanGrowth}))
		is.NoErr(in.PutProject(ctx, store.Project{ID: id, OrgID: "org_a", Name: "Site", Status: store.ProjectPlanned}))
		_, err = in.GetProject(ctx, "org_a", id)
		is.NoErr(err) // the transaction sees its own write
		_, err = st.GetProject(ctx, "org_a", id)
		is.True(errors.Is(err, store.ErrNotFound)) // which no one else sees before it commits
	}

	tx, err := db.BeginTx(ctx, nil)
	is.NoErr(err)
	write(tx, "p1")
	is.NoErr(tx.Rollback())
	is.Equal(portalRows(db), 1) // the portal's row rolled back
	_, err = st.GetProject(ctx, "org_a", "p1")
	is.True(errors.Is(err, store.ErrNotFound)) // and the store's with it

	is.NoErr(db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		write(tx, "p2")
		return nil
	}))
	is.Equal(portalRows(db), 2) // the portal's row committed
	p, err := st.GetProject(ctx, "org_a", "p2")
	is.NoErr(err) // and the store's with it
	is.Equal(p.Name, "Site")
	page, err := bunstore.New(db, bunstore.WithSchema(cs)).ListProjects(ctx, "org_a", store.ProjectQuery{PageRequest: store.PageRequest{Page: 1, Limit: 10}})
	is.NoErr(err)
	is.Equal(page.Total, 1) // one project in the store's table

	var after string
	is.NoErr(db.NewRaw("SELECT current_setting('search_path')").Scan(ctx, &after))
	is.Equal(after, searchPath) // no search_path was changed
}

// TestNewOnATx checks that New takes a transaction as well as a pool.
func TestNewOnATx(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db := migrated(t)
	tx, err := db.BeginTx(ctx, nil)
	is.NoErr(err)
	defer tx.Rollback()
	st := bunstore.New(tx)
	is.NoErr(st.PutOrganization(ctx, store.Organization{ID: "org_a", Plan: store.PlanGrowth}))
	_, err = st.Organization(ctx, "org_a")
	is.NoErr(err) // written and read in tx
	_, err = bunstore.New(db).Organization(ctx, "org_a")
	is.True(errors.Is(err, store.ErrNotFound)) // not committed
}

// TestWithSchemaRefusesBadNames checks that a schema name that would need
// quotes is refused, at construction, with a message naming the option.
func TestWithSchemaRefusesBadNames(t *testing.T) {
	t.Parallel()
	db := openSchema(t)
	for _, name := range []string{"Bad Name; DROP", "Upper", "1st", "a.b", `q"uote`} {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			defer func() {
				r := recover()
				is.True(r != nil)                                                                                                          // a programming error panics
				is.Equal(fmt.Sprint(r), fmt.Sprintf("bunstore: WithSchema: %q is not a lower-case identifier such as clientstatus", name)) // naming the option
			}()
			bunstore.New(db, bunstore.WithSchema(name))
		})
	}
	is.New(t).True(bunstore.New(db, bunstore.WithSchema("")) != nil) // "" is the default: the search path
}
