package bunstore

import (
	"context"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/clientstatus/clientstatus/store"
)

// Ping checks that the database answers, for a readiness check (see
// statusapi.Ready): a SELECT 1 through the store's pool, within the
// store's query timeout (WithQueryTimeout) and ctx. Any failure wraps
// store.ErrUnavailable, and ctx's error when ctx ended first. Until it
// has once found the schema migrated to this version, it also reads
// what Migrate applied: a schema never migrated, or migrated by a newer
// version, is a *store.SchemaError that says what to do. Ping serves the
// store and its key methods alike: both use the same pool.
func (s *Store) Ping(ctx context.Context) error {
	ctx, cancel := s.query(ctx)
	defer cancel()
	var one int
	if err := s.db.NewRaw("SELECT 1").Scan(ctx, &one); err != nil {
		return pingFailure(ctx, err)
	}
	if s.schemaOK.Load() {
		return nil
	}
	var applied []string
	var exists bool
	if err := s.db.NewRaw(`SELECT to_regclass(quote_ident(coalesce(NULLIF(?, ''), current_schema())) || '.' || ?) IS NOT NULL`,
		s.schema, migrationsTable).Scan(ctx, &exists); err != nil {
		return pingFailure(ctx, err)
	}
	if exists {
		if err := s.db.NewRaw("SELECT name FROM ? ORDER BY name", s.table(migrationsTable)).Scan(ctx, &applied); err != nil {
			return pingFailure(ctx, err)
		}
	}
	if err := checkMigrations(applied); err != nil {
		return fmt.Errorf("bunstore: ping: %w", err)
	}
	s.schemaOK.Store(true)
	return nil
}

// pingFailure wraps a failed Ping statement's err.
func pingFailure(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("bunstore: ping: %w: %w: %w", store.ErrUnavailable, ctxErr, err)
	}
	return fmt.Errorf("bunstore: ping: %w: %w", store.ErrUnavailable, err)
}

// knownMigrations are the names of this version's migrations, in order,
// as Migrate records them (the file name up to its first "_").
var knownMigrations = migrationNames(migrationFiles)

func migrationNames(fsys fs.FS) []string {
	files, err := fs.Glob(fsys, "migrations/*.up.sql")
	if err != nil {
		panic(err)
	}
	var names []string
	for _, f := range files {
		name, _, _ := strings.Cut(strings.TrimPrefix(f, "migrations/"), "_")
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// checkMigrations compares the migrations a schema has applied with this
// version's, and says what an operator should do when they differ.
func checkMigrations(applied []string) error {
	var unknown, missing []string
	for _, a := range applied {
		if !slices.Contains(knownMigrations, a) {
			unknown = append(unknown, a)
		}
	}
	for _, k := range knownMigrations {
		if !slices.Contains(applied, k) {
			missing = append(missing, k)
		}
	}
	switch {
	case len(unknown) > 0:
		return &store.SchemaError{Reason: fmt.Sprintf("the database schema was migrated by a newer version of clientstatus (migration %s is unknown to this one): deploy that version, or roll the schema back with it", strings.Join(unknown, ", "))}
	case len(applied) == 0:
		return &store.SchemaError{Reason: "the database schema was never migrated: run bunstore.Migrate before serving (the example server migrates at start)"}
	case len(missing) > 0:
		return &store.SchemaError{Reason: fmt.Sprintf("the database schema lacks %d migration(s) of this version (%s first): run bunstore.Migrate before serving (the example server migrates at start)", len(missing), missing[0])}
	}
	return nil
}
