package bunstore

import (
	"context"
	"fmt"

	"github.com/clientstatus/clientstatus/store"
)

var _ store.Versions = (*Store)(nil)

// DataVersion returns the organization's data version (see
// store.Versions): the sum of its rows of data_version_log, one of which
// (n = 1) triggers on every table its reads return (organizations,
// projects, milestones, deliverables, invoices, threads, messages,
// attachments and deletions) insert for each writing statement, in the
// writer's transaction, so that the version moves with the data, a
// portal's plain-SQL writes included, and no writer waits for another
// (migration 20261001000003_lockfree, whose writers also fold committed
// rows into one of the same sum). It reads a few rows of an index: those
// not yet folded, more while a transaction that folded stays open. An
// organization without rows has version 0; the rows outlive the
// organization, so a deleted organization put again goes on from its
// version. A statement that writes no row, such as a put that
// changes nothing, leaves the version where it was. On pgx (Open's db),
// concurrent reads are answered together, by one statement that starts
// after each of them was asked (batch.go).
func (s *Store) DataVersion(ctx context.Context, orgID string) (int64, error) {
	if !storable(orgID) {
		return 0, unmatched(ctx, nil)
	}
	what := func() string { return fmt.Sprintf("data version of organization %q", orgID) }
	if version, ok, err := s.pgxVersion(ctx, orgID); ok {
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
