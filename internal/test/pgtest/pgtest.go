package pgtest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/internal/test/testenv"
)

// Schema opens the test database, migrates a schema named prefix and a
// random suffix, and returns the pool and the option that puts a
// bunstore.Store in that schema.
func Schema(t testing.TB, prefix string) (*bun.DB, bunstore.Option) {
	t.Helper()
	ctx := context.Background()
	db, err := bunstore.Open(ctx, testenv.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	schema := fmt.Sprintf("%s_%08x", prefix, rand.Uint32())
	t.Cleanup(func() { _, _ = db.ExecContext(context.Background(), "DROP SCHEMA IF EXISTS "+schema+" CASCADE") })
	cs := bunstore.WithSchema(schema)
	if err := bunstore.Migrate(ctx, db, cs); err != nil {
		t.Fatal(err)
	}
	return db, cs
}
