package bunstore

import (
	"context"
	"database/sql/driver"
	"embed"
	"fmt"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"

	"github.com/clientstatus/clientstatus/store"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrateLockID is the key of the session-level advisory lock that Migrate
// holds, combined with the schema, so that replicas starting together
// migrate one after the other while tests in other schemas do not wait.
const migrateLockID = "clientstatus/bunstore migrate"

// Migrate brings the schema in db's search path up to date: it creates
// the tables of organizations, API keys, projects, milestones, deliverables
// and invoices, or adds what a newer version needs. A portal runs it at
// start-up.
//
// It is safe to run again (applied migrations are skipped) and safe to run
// from several replicas at once: they take turns under a PostgreSQL
// advisory lock, held by one connection of db's pool while the migrations
// run through another (so db must allow two open connections). Migrations are marked applied only once they have
// succeeded, and each one is written to be re-runnable, so a crash between
// the two does no harm. The bookkeeping lives in the tables bun_migrations
// and bun_migration_locks of the same schema.
func Migrate(ctx context.Context, db *bun.DB) error {
	migrations := migrate.NewMigrations()
	if err := migrations.Discover(migrationFiles); err != nil {
		return fmt.Errorf("bunstore: migrate: %w", err)
	}
	// The lock is held by one connection taken out of the pool; the
	// migrator works through the pool while other replicas wait for it.
	conn, err := db.Conn(ctx)
	if err != nil {
		return failure(ctx, store.ErrUnavailable, "migrate", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock(hashtext(current_schema() || ?))", migrateLockID); err != nil {
		return failure(ctx, store.ErrUnavailable, "migrate: lock", err)
	}
	defer func() {
		// The lock must go even when ctx is done; when it cannot be
		// released, the session holding it is closed rather than pooled.
		_, err := conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock(hashtext(current_schema() || ?))", migrateLockID)
		if err != nil {
			_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		}
	}()

	m := migrate.NewMigrator(db, migrations, migrate.WithMarkAppliedOnSuccess(true))
	if err := m.Init(ctx); err != nil {
		return failure(ctx, store.ErrUnavailable, "migrate: init", err)
	}
	if _, err := m.Migrate(ctx); err != nil {
		return failure(ctx, store.ErrUnavailable, "migrate", err)
	}
	return nil
}
