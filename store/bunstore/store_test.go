package bunstore_test

import (
	"testing"

	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/store/bunstore"
	"github.com/clientstatus/clientstatus/store/storetest"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) storetest.Subject {
		db := migrated(t)
		return settled{bunstore.New(db), db}
	})
}

// inOwnSchema returns a store in a schema of its own, named in every
// query, on a pool whose search_path holds only a portal's empty schema:
// a query that did not name the store's schema would find no table.
func inOwnSchema(t *testing.T) *bunstore.Store {
	st, _ := inOwnSchemaOn(t)
	return st
}

// inOwnSchemaOn is inOwnSchema, with the pool it is on.
func inOwnSchemaOn(t *testing.T) (*bunstore.Store, *bun.DB) {
	t.Helper()
	db := openSchema(t)
	cs := storeSchema(t, db)
	if err := bunstore.Migrate(ctx, db, bunstore.WithSchema(cs)); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return bunstore.New(db, bunstore.WithSchema(cs)), db
}

func TestConformanceWithSchema(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) storetest.Subject {
		st, db := inOwnSchemaOn(t)
		return settled{st, db}
	})
}
