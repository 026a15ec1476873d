package bunstore

import (
	"context"
	"database/sql/driver"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/migrate"

	"github.com/clientstatus/clientstatus/store"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrateLockID is the key of the session-level advisory lock that Migrate
// holds, combined with the schema, so that replicas starting together
// migrate one after the other while tests in other schemas do not wait.
const migrateLockID = "clientstatus/bunstore migrate"

// Migrate creates the store's tables, triggers and functions, or adds what
// a newer version needs; a portal runs it at start-up. It works in the
// schema of WithSchema (the only option it reads), creating it if need be,
// else in the first schema of db's search path, and refuses a schema that
// holds a table of its names that it did not create.
//
// It is safe to run again and from several replicas at once: they take
// turns under an advisory lock held by one connection of db's pool while
// the migrations run through another, so db must allow two open
// connections. The details: docs/operations.md.
func Migrate(ctx context.Context, db *bun.DB, opts ...Option) error {
	cfg, err := newConfig(opts)
	if err != nil {
		return err
	}
	migrations := migrate.NewMigrations()
	if err := migrations.Discover(migrationFiles); err != nil {
		return fmt.Errorf("bunstore: migrate: %w", err)
	}
	if db.Stats().MaxOpenConnections == 1 {
		return errors.New("bunstore: migrate: db's pool allows one connection, and Migrate needs two (one holds the lock while the other migrates); raise SetMaxOpenConns")
	}
	// The schema the migrations fill: WithSchema's, or the search path's.
	var schema, quoted string
	err = db.NewRaw("SELECT s, quote_ident(s) FROM coalesce(NULLIF(?, ''), current_schema()) AS s", cfg.schema).Scan(ctx, &schema, &quoted)
	if err != nil {
		return failure(ctx, store.ErrUnavailable, "migrate", err)
	}
	if schema == "" {
		return errors.New("bunstore: migrate: no schema to migrate: db's search_path names none that exists; give one with bunstore.WithSchema")
	}
	// The lock is held by one connection taken out of the pool; the
	// migrator works through the pool while other replicas wait for it.
	conn, err := db.Conn(ctx)
	if err != nil {
		return failure(ctx, store.ErrUnavailable, "migrate", err)
	}
	defer conn.Close()
	// Another replica may migrate for longer than the pool's lock_timeout
	// and statement_timeout (Open's): the wait for the lock is bounded by
	// ctx only, and the session's settings come back once it is taken.
	if err := execAll(ctx, conn, "SET lock_timeout = 0", "SET statement_timeout = 0"); err != nil {
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		return failure(ctx, store.ErrUnavailable, "migrate: lock", err)
	}
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock(hashtext(?::text || ?))", schema, migrateLockID); err != nil {
		_ = conn.Raw(func(any) error { return driver.ErrBadConn }) // not pooled with its timeouts off
		return failure(ctx, store.ErrUnavailable, "migrate: lock", err)
	}
	if err := execAll(ctx, conn, "RESET lock_timeout", "RESET statement_timeout"); err != nil {
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		return failure(ctx, store.ErrUnavailable, "migrate: lock", err)
	}
	defer func() {
		// The lock must go even when ctx is done; when it cannot be
		// released, the session holding it is closed rather than pooled.
		_, err := conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock(hashtext(?::text || ?))", schema, migrateLockID)
		if err != nil {
			_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		}
	}()

	if cfg.schema != "" {
		// Under the lock: two replicas creating it at once would collide.
		if _, err := db.ExecContext(ctx, "CREATE SCHEMA IF NOT EXISTS ?", bun.Ident(schema)); err != nil {
			return failure(ctx, store.ErrUnavailable, "migrate: create schema "+schema, err)
		}
	}
	if err := checkNoForeignTables(ctx, db, schema); err != nil {
		return err
	}
	// Each migration starts with SET LOCAL search_path TO {{.Schema}}, and
	// names the schema where a name must hold whatever the search_path of
	// the session that later runs it (in a trigger's function).
	m := migrate.NewMigrator(db, migrations, migrate.WithMarkAppliedOnSuccess(true),
		migrate.WithTableName(quoted+"."+migrationsTable), migrate.WithLocksTableName(quoted+"."+migrationsTable+"_locks"),
		migrate.WithTemplateData(struct{ Schema string }{quoted}))
	if err := m.Init(ctx); err != nil {
		return failure(ctx, store.ErrUnavailable, "migrate: init", err)
	}
	if _, err := m.Migrate(ctx); err != nil {
		return failure(ctx, store.ErrUnavailable, "migrate", err)
	}
	return nil
}

// migrationsTable is where Migrate records what it applied.
const migrationsTable = "clientstatus_migrations"

// storeTables are the tables Migrate creates: those its up migrations
// create and do not drop again, read from the migrations themselves, so
// that a new resource's table needs no list of its own.
// TestMigrateFromEmptyAndAgain checks them against a migrated schema.
var storeTables = tablesOf(migrationFiles)

// createOrDropTable matches a migration's CREATE TABLE or DROP TABLE and
// the table's name (schema-qualified by the template, or not).
var createOrDropTable = regexp.MustCompile(`(?im)^\s*(CREATE|DROP) TABLE (?:IF (?:NOT )?EXISTS )?(?:\{\{\.Schema\}\}\.)?"?([a-z_][a-z0-9_]*)"?`)

// tablesOf returns the tables that fsys's up migrations leave, applied in
// order: created and not dropped by a later one.
func tablesOf(fsys fs.FS) []string {
	files, err := fs.Glob(fsys, "migrations/*.up.sql")
	if err != nil {
		panic(err) // a malformed pattern: the code's mistake
	}
	slices.Sort(files)
	var tables []string
	for _, f := range files {
		text, err := fs.ReadFile(fsys, f)
		if err != nil {
			panic(err) // embedded: always there
		}
		for _, m := range createOrDropTable.FindAllStringSubmatch(string(text), -1) {
			if strings.EqualFold(m[1], "CREATE") {
				if !slices.Contains(tables, m[2]) {
					tables = append(tables, m[2])
				}
			} else {
				tables = slices.DeleteFunc(tables, func(t string) bool { return t == m[2] })
			}
		}
	}
	return tables
}

// checkNoForeignTables refuses a schema that has tables named as the
// store's but no record of Migrate having made them: they belong to
// someone else, and CREATE TABLE IF NOT EXISTS would quietly build on them.
func checkNoForeignTables(ctx context.Context, db *bun.DB, schema string) error {
	var clash []string
	err := db.NewRaw(`SELECT t FROM unnest(?::text[]) AS t
		WHERE to_regclass(quote_ident(?) || '.' || quote_ident(t)) IS NOT NULL
		  AND to_regclass(quote_ident(?) || '.' || quote_ident(?)) IS NULL
		ORDER BY t`, pgdialect.Array(storeTables), schema, schema, migrationsTable).Scan(ctx, &clash)
	if err != nil {
		return failure(ctx, store.ErrUnavailable, "migrate: check the schema", err)
	}
	if len(clash) > 0 {
		return fmt.Errorf("bunstore: migrate: the schema already has tables that bunstore did not create (%s); give bunstore a schema of its own with bunstore.WithSchema or search_path", strings.Join(clash, ", "))
	}
	return nil
}

// execAll runs each statement on conn in turn, up to the first error.
func execAll(ctx context.Context, conn bun.Conn, stmts ...string) error {
	for _, q := range stmts {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}
