package statusclient_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/internal/test/testenv"
	"github.com/clientstatus/clientstatus/store"
	"github.com/clientstatus/clientstatus/store/bunstore"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// TestSyncKeepsAnExactCopyOnPostgres runs the scripted sync test on the
// PostgreSQL store, in a schema of its own.
func TestSyncKeepsAnExactCopyOnPostgres(t *testing.T) {
	dsn := testenv.PostgresURL(t)
	ctx := context.Background()
	db, err := bunstore.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	schema := fmt.Sprintf("statusclient_sync_%08x", rand.Uint32())
	t.Cleanup(func() { _, _ = db.ExecContext(context.Background(), "DROP SCHEMA IF EXISTS "+schema+" CASCADE") })
	cs := bunstore.WithSchema(schema)
	if err := bunstore.Migrate(ctx, db, cs); err != nil {
		t.Fatal(err)
	}
	st := bunstore.New(db, cs)
	testSyncExact(t, st, func(store.Organizations) *bunstore.Store { return st })
}

var _ auth.KeyStore = (*bunstore.Store)(nil)
