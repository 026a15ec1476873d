package bunstore

import (
	"context"
	"time"

	"github.com/clientstatus/clientstatus/store"
)

// WithClock makes now the clock that the store's writes are dated from and
// that Page.SyncedThrough reads, instead of the database server's: it is
// for tests, which then let time pass by moving now (a
// testenv.Clock's Now, say) instead of sleeping. Each write of the Store
// runs in a transaction of its own (a savepoint under WithTx) that sets
// the transaction-local setting clientstatus.clock to now(), which the
// triggers' stamp function clientstatus_stamp() reads instead of the
// server's clock (migration 20261001000001_spine), and a list with
// UpdatedSince gives now() to clientstatus_synced_through. Writes made
// without the setting (another Store, a portal's plain SQL) keep the
// server's clock, which a test moving now away from it should not mix
// with. Never give it in production: stamps dated by a clock that is not
// the database's lose the guarantee of Page.SyncedThrough. nil keeps the
// server's clock. Migrate ignores it.
func WithClock(now func() time.Time) Option {
	return func(c *config) { c.clock = now }
}

// write runs fn, one write of the Store, on s itself; or, with WithClock,
// in a transaction of its own (inTx), whose first statement sets
// clientstatus.clock to the clock's time.
func (s *Store) write(ctx context.Context, what string, fn func(*Store) error) error {
	if s.clock == nil {
		return fn(s)
	}
	return s.inTx(ctx, what, fn)
}

// inTx runs fn on s in a transaction of its own (a savepoint of s's,
// under WithTx) that starts by setting clientstatus.clock (setClock),
// committed when fn succeeds and rolled back when it fails. It rolls back
// only what did not commit: under WithTx, tx is a savepoint, and rolling
// back to one already released would fail, and with it the caller's
// whole transaction.
func (s *Store) inTx(ctx context.Context, what string, fn func(*Store) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return failure(ctx, store.ErrUnavailable, what, err)
	}
	committed := false
	defer func() {
		if !committed {
			_ = tx.Rollback()
		}
	}()
	in := s.WithTx(tx)
	if err := in.setClock(ctx); err != nil {
		return failure(ctx, store.ErrUnavailable, what, err)
	}
	if err := fn(in); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return failure(ctx, store.ErrUnavailable, what, err)
	}
	committed = true
	return nil
}

// setClock sets clientstatus.clock, with WithClock, in the transaction
// that s runs in (a Store of WithTx): the setting lasts until it ends.
func (s *Store) setClock(ctx context.Context) error {
	if s.clock == nil {
		return nil
	}
	_, err := s.db.NewRaw("SELECT set_config('clientstatus.clock', ?, true)", s.clock().UTC().Format(time.RFC3339Nano)).Exec(ctx)
	return err
}

// clockArg is the argument of clientstatus_synced_through: the clock's
// time with WithClock, else null (the statement's start).
func (s *Store) clockArg() *time.Time {
	if s.clock == nil {
		return nil
	}
	t := s.clock().UTC()
	return &t
}
