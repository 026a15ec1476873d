package bunstore

import (
	"context"
	"fmt"

	"github.com/clientstatus/clientstatus/store"
)

// Ping checks that the database answers, for a readiness check (see
// statusapi.Ready): a SELECT 1 through the store's pool, within the
// store's query timeout (WithQueryTimeout) and ctx. Any failure wraps
// store.ErrUnavailable, and ctx's error when ctx ended first. Ping serves
// the store and its key methods alike: both use the same pool.
func (s *Store) Ping(ctx context.Context) error {
	ctx, cancel := s.query(ctx)
	defer cancel()
	var one int
	if err := s.db.NewRaw("SELECT 1").Scan(ctx, &one); err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return fmt.Errorf("bunstore: ping: %w: %w: %w", store.ErrUnavailable, ctxErr, err)
		}
		return fmt.Errorf("bunstore: ping: %w: %w", store.ErrUnavailable, err)
	}
	return nil
}
