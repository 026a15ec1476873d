package bunstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/clientstatus/clientstatus/store"
)

var _ store.Versions = (*Store)(nil)

// DataVersion returns the organization's data version (see
// store.Versions): its row of the table data_versions, which triggers on
// every table its reads return (organizations, projects, milestones,
// deliverables, invoices, threads, messages, attachments and deletions)
// move from the sequence data_version_seq, in the writing statement, so
// that the version moves with the data, a portal's plain-SQL writes
// included (migration 20260801000001_versions). It is one primary-key
// lookup. An organization without a row, one that has had no write since
// the migration, has version 0, which the sequence never gives; the row
// outlives the organization, so a deleted organization put again goes on
// from the sequence. A statement that writes no row, such as a put that
// changes nothing, leaves the version where it was.
func (s *Store) DataVersion(ctx context.Context, orgID string) (int64, error) {
	if !storable(orgID) {
		return 0, unmatched(ctx, nil)
	}
	ctx, cancel := s.query(ctx)
	defer cancel()
	var version int64
	err := s.db.NewSelect().
		TableExpr("? AS v", s.table("data_versions")).
		Column("v.version").
		Where("v.org_id = ?", orgID).
		Scan(ctx, &version)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, failure(ctx, store.ErrUnavailable, fmt.Sprintf("data version of organization %q", orgID), err)
	}
	return version, nil
}
