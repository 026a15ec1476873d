package statusclient_test

import (
	"testing"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/internal/test/pgtest"
	"github.com/clientstatus/clientstatus/internal/test/testenv"
	"github.com/clientstatus/clientstatus/store"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// TestSyncKeepsAnExactCopyOnPostgres runs the scripted sync test on the
// PostgreSQL store, in a schema of its own.
func TestSyncKeepsAnExactCopyOnPostgres(t *testing.T) {
	db, cs := pgtest.Schema(t, "statusclient_sync")
	st := bunstore.New(db, cs)
	testSyncExact(t, st, func(store.Organizations) *bunstore.Store { return st })
}

var _ auth.KeyStore = (*bunstore.Store)(nil)
