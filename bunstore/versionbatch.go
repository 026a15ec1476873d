package bunstore

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/clientstatus/clientstatus/store"
)

// readVersions is a batch of DataVersion's reads: the data versions of
// orgs, in one statement, under the store's query timeout and no
// reader's context (a reader that leaves does not cancel the others'
// read). An organization without rows is 0: absent from the map.
func (s *Store) readVersions(orgs []string) (map[string]int64, error) {
	ctx, cancel := s.query(context.Background())
	defer cancel()
	q := s.statements.text("versions", func() string {
		return "SELECT l.org_id, coalesce(sum(l.n), 0)::bigint FROM " + s.tableText("data_version_log") + " AS l WHERE l.org_id = ANY($1::text[]) GROUP BY l.org_id"
	})
	versions := make(map[string]int64, len(orgs))
	_, err := s.onPgx(ctx, func(c *pgx.Conn) error {
		rows, err := c.Query(ctx, q, pgx.QueryExecModeCacheStatement, orgs)
		if err != nil {
			return err
		}
		var org string
		var v int64
		_, err = pgx.ForEachRow(rows, []any{&org, &v}, func() error {
			versions[org] = v
			return nil
		})
		return err
	})
	if err != nil {
		return nil, failure(ctx, store.ErrUnavailable, fmt.Sprintf("data versions of %d organizations", len(orgs)), err)
	}
	return versions, nil
}
