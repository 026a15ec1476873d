package bunstore

import (
	"context"
	"time"
)

// syncedThrough reads Page.SyncedThrough of a list asked with since (none
// when since is zero): the function clientstatus_synced_through of the
// migration 20261001000001_spine, the smaller of this statement's start
// second and the lock key second of every writing transaction in flight.
// It is a statement of its own, run before the list's, so that the list's
// snapshot is taken after it (in a REPEATABLE READ or SERIALIZABLE
// transaction of the caller's, WithTx, the snapshot may be older, and the
// horizon then too late: run such lists in READ COMMITTED). Every write
// the list cannot see is then dated at or after it.
func (s *Store) syncedThrough(ctx context.Context, since time.Time) (time.Time, error) {
	if since.IsZero() {
		return time.Time{}, nil
	}
	var at time.Time
	err := s.db.NewRaw("SELECT ?(?::timestamptz)", s.table("clientstatus_synced_through"), s.clockArg()).Scan(ctx, &at)
	return at.UTC(), err
}
