package bunstore_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/store"
	"github.com/clientstatus/clientstatus/storetest"
)

// TestSyncRandomInterleavings is the sync property on PostgreSQL:
// writers of one organization, in plain SQL and through the library, each
// in transactions left open across the others' writes and a syncing
// client's syncs, committed or rolled back in random order, upsert and
// delete projects; the client follows the contract's rule (deletions,
// then changes, each walked page by page; the next since is the smallest
// SyncedThrough of the pages walked; upsert by id). After the last sync
// its copy equals the store. Each seed is an organization of its own in
// one schema, a few dozen steps, on the database's own clock (its stamps
// and SyncedThrough read the locks of the transactions in flight, which
// a test clock would bypass); nothing waits for time to pass.
func TestSyncRandomInterleavings(t *testing.T) {
	t.Parallel()
	db := migrated(t)
	db.SetMaxOpenConns(8)
	st := bunstore.New(db)
	for seed := range 100 {
		if !t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) { syncSeed(t, db, st, uint64(seed)) }) {
			return
		}
	}
}

// writer is one writer of syncSeed: its open transaction, if any, and
// whether it writes in plain SQL.
type writer struct {
	tx    *bun.Tx
	plain bool
}

func syncSeed(t *testing.T, db *bun.DB, st *bunstore.Store, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 19))
	org := fmt.Sprint("org_", seed)
	if err := st.PutOrganization(ctx, store.Organization{ID: org, Plan: store.PlanGrowth}); err != nil {
		t.Fatal(err)
	}
	c := storetest.ProjectCopy{Since: dbNow(t, db).Truncate(time.Second)}
	sync := func() {
		t.Helper()
		if err := c.Sync(ctx, st, org); err != nil {
			t.Fatal(err)
		}
	}

	writers := []*writer{{plain: true}, {}, {plain: true}, {}}
	const ids = 3 // per writer, so that no two transactions write one row
	finish := func(w *writer) {
		if w.tx == nil {
			return
		}
		var err error
		if r.IntN(5) == 0 {
			err = w.tx.Rollback()
		} else {
			err = w.tx.Commit()
		}
		if err != nil {
			t.Fatal(err)
		}
		w.tx = nil
	}
	for range 30 {
		switch k := r.IntN(10); {
		case k < 2:
			sync()
		case k < 4:
			finish(writers[r.IntN(len(writers))])
		default:
			n := r.IntN(len(writers))
			w := writers[n]
			if w.tx == nil {
				tx, err := db.BeginTx(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				w.tx = &tx
			}
			id := fmt.Sprintf("w%d-p%d", n, r.IntN(ids))
			name := fmt.Sprint("name ", r.Uint32())
			del := r.IntN(3) == 0
			var err error
			switch {
			case w.plain && del:
				_, err = w.tx.ExecContext(ctx, "DELETE FROM projects WHERE org_id = ? AND id = ?", org, id)
			case w.plain:
				_, err = w.tx.ExecContext(ctx, `INSERT INTO projects (org_id, id, name, status) VALUES (?, ?, ?, 'planned')
					ON CONFLICT (org_id, id) DO UPDATE SET name = EXCLUDED.name`, org, id, name)
			case del:
				err = st.WithTx(*w.tx).DeleteProject(ctx, org, id)
				if err != nil && isNotFound(err) {
					err = nil
				}
			default:
				err = st.WithTx(*w.tx).PutProject(ctx, store.Project{ID: id, OrgID: org, Name: name, Status: store.ProjectPlanned})
			}
			if err != nil {
				t.Fatalf("write %s: %v", id, err)
			}
		}
	}
	for _, w := range writers {
		finish(w)
	}
	sync()
	if err := c.Check(ctx, st, org); err != nil {
		t.Fatal(err)
	}
}

// isNotFound reports whether err wraps store.ErrNotFound.
func isNotFound(err error) bool { return errors.Is(err, store.ErrNotFound) }
