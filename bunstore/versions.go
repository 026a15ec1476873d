package bunstore

import (
	"context"
	"fmt"

	"github.com/clientstatus/clientstatus/store"
)

var _ store.Versions = (*Store)(nil)

// DataVersion returns the organization's data version (see
// store.Versions): the sum of its rows of data_version_log, which triggers
// insert for each writing statement in the writer's transaction, so that
// it moves with a portal's plain-SQL writes too and no writer waits for
// another. A statement that writes no row leaves it where it was; an
// organization without rows has version 0. On pgx, concurrent reads are
// answered together by one statement (batch.go).
func (s *Store) DataVersion(ctx context.Context, orgID string) (int64, error) {
	if !storable(orgID) {
		return 0, unmatched(ctx, nil)
	}
	what := func() string { return fmt.Sprintf("data version of organization %q", orgID) }
	if s.onPgxDB() { // batched (batch.go)
		version, err := s.batches.versions.read(ctx, orgID)
		return version, batchError(ctx, what, err)
	}
	ctx, cancel := s.query(ctx)
	defer cancel()
	var version int64
	err := s.db.NewRaw("SELECT coalesce(sum(l.n), 0)::bigint FROM ? AS l WHERE l.org_id = ?", s.table("data_version_log"), orgID).
		Scan(ctx, &version)
	if err != nil {
		return 0, failure(ctx, store.ErrUnavailable, what(), err)
	}
	return version, nil
}
