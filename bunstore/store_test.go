package bunstore_test

import (
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/internal/test/testenv"
	"github.com/clientstatus/clientstatus/storetest"
)

// TestConformance runs every part of the suite on a store whose clock it
// moves (bunstore.WithClock, storetest.WithClock): its pauses between
// writes that must be dated apart take no real time. Each store opened
// sets the clock to the time after its migration, which dates the start
// of deletion records.
func TestConformance(t *testing.T) {
	t.Parallel()
	clock := testenv.NewClock(time.Time{})
	storetest.Run(t, func(t *testing.T) storetest.Subject {
		db := migrated(t)
		clock.Set(time.Now())
		return bunstore.New(db, bunstore.WithClock(clock.Now))
	}, storetest.WithClock(clock.Now, clock.Advance))
}

// inOwnSchema returns a store in a schema of its own, named in every
// query, on a pool whose search_path holds only a portal's empty schema:
// a query that did not name the store's schema would find no table.
func inOwnSchema(t *testing.T, opts ...bunstore.Option) *bunstore.Store {
	st, _ := inOwnSchemaOn(t, opts...)
	return st
}

// inOwnSchemaOn is inOwnSchema, with the pool it is on.
func inOwnSchemaOn(t *testing.T, opts ...bunstore.Option) (*bunstore.Store, *bun.DB) {
	t.Helper()
	db := openSchema(t)
	cs := storeSchema(t, db)
	if err := bunstore.Migrate(ctx, db, bunstore.WithSchema(cs)); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return bunstore.New(db, append([]bunstore.Option{bunstore.WithSchema(cs)}, opts...)...), db
}

func TestConformanceWithSchema(t *testing.T) {
	t.Parallel()
	clock := testenv.NewClock(time.Time{})
	storetest.Run(t, func(t *testing.T) storetest.Subject {
		st, _ := inOwnSchemaOn(t, bunstore.WithClock(clock.Now))
		clock.Set(time.Now()) // after the migration, which dates the start of deletion records
		return st
	}, storetest.WithClock(clock.Now, clock.Advance))
}
