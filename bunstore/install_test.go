package bunstore_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/matryer/is"
	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/store"
)

// widgetsTable is a test-only resource, a copy of milestones' columns, as
// a new resource's migration would make it: CREATE TABLE, an index, and
// one SELECT of clientstatus_install_resource (run twice: it is
// re-runnable).
const widgetsTable = `
CREATE TABLE widgets (
	org_id       text        NOT NULL,
	id           text        NOT NULL CHECK (id <> ''),
	project_id   text        NOT NULL,
	name         text        NOT NULL DEFAULT '',
	status       text        NOT NULL CHECK (status IN ('pending', 'in_progress', 'completed')),
	due_at       timestamptz NOT NULL,
	completed_at timestamptz,
	updated_at   timestamptz NOT NULL DEFAULT statement_timestamp(),
	PRIMARY KEY (org_id, id),
	FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id) ON DELETE CASCADE
);
CREATE INDEX widgets_list ON widgets (org_id, project_id, due_at, id);
SELECT clientstatus_install_resource('widgets', 'widget');
SELECT clientstatus_install_resource('widgets', 'widget');`

// TestInstallResource checks that clientstatus_install_resource (migration
// 20261127000001_install_resource) makes a table a resource exactly as
// the migrations made milestones one: the same triggers (names, events,
// functions, arguments) and the same functions of its own, and, written
// by plain SQL step by step, the same behaviour: the data version moves,
// times are kept to the second, updated_at is the store's, deletions,
// departures, item counts and events are recorded alike. The table is
// created in the test's own schema (migrated's search path), and
// clientstatus_drop_resource takes it away again, kinds and records.
func TestInstallResource(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db := migrated(t)
	_, err := db.ExecContext(ctx, widgetsTable)
	is.NoErr(err) // a new resource's migration

	// As milestones, the names of kind and table aside.
	same := func(s string) string {
		return strings.NewReplacer("milestones", "ITEMS", "widgets", "ITEMS", "milestone", "ITEM", "widget", "ITEM").Replace(s)
	}
	triggers := func(table string) (defs []string) {
		err := db.NewRaw(`SELECT pg_get_triggerdef(t.oid) FROM pg_trigger AS t
			WHERE t.tgrelid = ?::regclass AND NOT t.tgisinternal ORDER BY t.tgname`, table).Scan(ctx, &defs)
		is.NoErr(err)
		for i, d := range defs {
			defs[i] = same(d)
		}
		return defs
	}
	is.Equal(len(triggers("milestones")), 18)
	is.Equal(triggers("widgets"), triggers("milestones")) // the same triggers
	function := func(name string) string {
		var src string
		is.NoErr(db.NewRaw("SELECT p.prosrc FROM pg_proc AS p WHERE p.oid = ?::regproc", name).Scan(ctx, &src))
		return same(src)
	}
	is.Equal(function("clientstatus_count_widgets"), function("clientstatus_count_milestones"))     // counted the same way
	is.Equal(function("clientstatus_seconds_widgets"), function("clientstatus_seconds_milestones")) // kept to the second the same way

	st := bunstore.New(db)
	for _, org := range []string{"org_milestones", "org_widgets"} {
		is.NoErr(st.PutOrganization(ctx, store.Organization{ID: org, Plan: store.PlanGrowth}))
		for _, p := range []string{"p1", "p2"} {
			is.NoErr(st.PutProject(ctx, store.Project{ID: p, OrgID: org, Name: p, Status: store.ProjectInProgress}))
		}
	}
	// Each step is run on both tables, each with an organization of its
	// own; afterwards, both have moved their data version or neither,
	// and what the triggers keep reads the same.
	steps := []struct {
		name, sql string
		moves     bool
	}{
		{"insert", `INSERT INTO ?0 (org_id, id, project_id, name, status, due_at) VALUES
			(?1, 'a', 'p1', 'A', 'pending', '2026-01-01 10:00:00.5+00'), (?1, 'b', 'p1', 'B', 'pending', '2026-02-01Z')`, true},
		{"update changing nothing", `UPDATE ?0 SET name = name WHERE org_id = ?1`, true},
		{"status", `UPDATE ?0 SET status = 'completed', completed_at = '2026-01-02 00:00:00.25+00' WHERE org_id = ?1 AND id = 'a'`, true},
		{"move", `UPDATE ?0 SET project_id = 'p2' WHERE org_id = ?1 AND id = 'b'`, true},
		{"delete", `DELETE FROM ?0 WHERE org_id = ?1 AND id = 'a'`, true},
		{"put again elsewhere", `INSERT INTO ?0 (org_id, id, project_id, name, status, due_at) VALUES (?1, 'a', 'p2', 'A', 'in_progress', '2026-03-01Z')`, true},
		{"delete nothing", `DELETE FROM ?0 WHERE org_id = ?1 AND id = 'none'`, false},
		{"project deleted", `DELETE FROM projects WHERE org_id = ?1 AND id = 'p2'`, true},
	}
	for _, step := range steps {
		var snaps [2][]string
		for i, table := range []string{"milestones", "widgets"} {
			org := "org_" + table
			before, err := st.DataVersion(ctx, org)
			is.NoErr(err)
			_, err = db.ExecContext(ctx, step.sql, bun.Ident(table), org)
			is.NoErr(err) // plain SQL
			after, err := st.DataVersion(ctx, org)
			is.NoErr(err)
			if (after > before) != step.moves {
				t.Errorf("%s on %s: data version %d, then %d", step.name, table, before, after)
			}
			snaps[i] = kept(t, db, table, org)
		}
		if fmt.Sprint(snaps[0]) != fmt.Sprint(snaps[1]) {
			t.Errorf("%s: milestones keep\n%s\nwidgets keep\n%s", step.name, strings.Join(snaps[0], "\n"), strings.Join(snaps[1], "\n"))
		}
	}

	// The kinds the records allow follow the resources installed.
	_, err = db.ExecContext(ctx, "INSERT INTO deletions (org_id, kind, id, deleted_at) VALUES ('org_widgets', 'gadget', 'g', now())")
	is.True(isCode(err, "23514")) // a kind no resource has is refused
	_, err = db.ExecContext(ctx, "SELECT clientstatus_drop_resource('widgets')")
	is.NoErr(err) // a new resource's down migration
	var left int
	is.NoErr(db.NewRaw(`SELECT (SELECT count(*) FROM deletions WHERE kind = 'widget') + (SELECT count(*) FROM changes WHERE kind = 'widget')
		+ (SELECT count(*) FROM item_counts WHERE kind = 'widget') + (SELECT count(*) FROM departures WHERE kind = 'widget')
		+ (SELECT count(*) FROM resource_kinds WHERE kind = 'widget')`).Scan(ctx, &left))
	is.Equal(left, 0) // its records went with it
	_, err = db.ExecContext(ctx, "INSERT INTO deletions (org_id, kind, id, deleted_at) VALUES ('org_widgets', 'widget', 'w', now())")
	is.True(isCode(err, "23514"))             // and its kind
	is.Equal(len(triggers("milestones")), 18) // milestones keep theirs
}

// kept is what the triggers keep of an organization's items of table, the
// names of kind and table replaced by ITEM, and times as the second they
// hold: its rows, deletion records, departures, counts and events.
func kept(t *testing.T, db *bun.DB, table, org string) []string {
	t.Helper()
	var lines []string
	for _, q := range []string{
		`SELECT format('row %s %s %s %s %s %s', r.id, r.project_id, r.status, r.due_at, r.completed_at,
			r.updated_at = date_trunc('second', r.updated_at) AND r.updated_at <= now()) FROM ?0 AS r WHERE r.org_id = ?1 ORDER BY r.id`,
		`SELECT format('deleted %s %s %s', d.kind, d.id, d.project_id) FROM deletions AS d
			WHERE d.org_id = ?1 AND d.kind <> 'project' ORDER BY d.kind, d.id`,
		`SELECT format('departed %s %s %s %s', d.kind, d.id, d.project_id, d.to_project_id) FROM departures AS d
			WHERE d.org_id = ?1 ORDER BY d.kind, d.id, d.project_id`,
		`SELECT format('counted %s %s %s %s', c.kind, c.status, c.project_id, sum(c.n)) FROM item_counts AS c
			WHERE c.org_id = ?1 AND c.kind <> 'project' GROUP BY c.kind, c.status, c.project_id HAVING sum(c.n) <> 0 ORDER BY 1`,
		`SELECT format('event %s %s %s %s %s %s', c.kind, c.item_id, c.action, c.project_id, c.status, c.previous_status) FROM changes AS c
			WHERE c.org_id = ?1 AND c.kind <> 'project' ORDER BY c.xid, c.item_id, c.seq`, // the order of a cascade's rows is its plan's
	} {
		var got []string
		if err := db.NewRaw(q, bun.Ident(table), org).Scan(ctx, &got); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		lines = append(lines, got...)
	}
	r := strings.NewReplacer("milestones", "ITEMS", "widgets", "ITEMS", "milestone", "ITEM", "widget", "ITEM")
	for i, l := range lines {
		lines[i] = r.Replace(l)
	}
	return lines
}

// isCode reports whether err is PostgreSQL's error of that code.
func isCode(err error, code string) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == code
}

// TestInstallResourceMigrationRunsAgain checks that the migration's down
// file undoes it (the kinds back to the lists the earlier migrations
// made) and that its up file runs again over itself, as a crash before
// bun/migrate recorded it would have it.
func TestInstallResourceMigrationRunsAgain(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db := migrated(t)
	const name = "20261127000001_install_resource.tx"
	_, err := db.ExecContext(ctx, migration(t, db, name+".down.sql"))
	is.NoErr(err) // down
	is.Equal(slices.Contains(tables(t, db), "resource_kinds"), false)
	for range 2 {
		_, err = db.ExecContext(ctx, migration(t, db, name+".up.sql"))
		is.NoErr(err) // up, and up again
	}
	var kinds []string
	is.NoErr(db.NewRaw("SELECT kind FROM resource_kinds ORDER BY kind").Scan(ctx, &kinds))
	is.Equal(kinds, []string{"deliverable", "invoice", "message", "milestone", "project", "thread"}) // the resources there are
	_, err = db.ExecContext(ctx, widgetsTable)
	is.NoErr(err) // and a new one installs
}
