package bunstore_test

import (
	"database/sql"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/store"
)

// TestSyncedThroughOverlappingTransactions runs a schedule of
// overlapping writers in plain SQL: tx2 writes A; tx1 writes C, then waits on tx2's row lock
// of A to write A too; tx2 writes B and commits; a client syncs; tx1
// commits. The next
// sync, from the first one's SyncedThrough, fetches C. A deletion inside
// tx1 reaches the deletions feed the same way. All of it in one
// organization: its writers do not wait for each other
// (20261001000003_lockfree), only tx1 for the row tx2 holds.
func TestSyncedThroughOverlappingTransactions(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db := migrated(t)
	st := bunstore.New(db)
	is.NoErr(st.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "A", Plan: "growth"}))
	is.NoErr(st.PutProject(ctx, store.Project{ID: "gone", OrgID: "org_a", Name: "Gone", Status: store.ProjectPlanned}))
	is.NoErr(st.PutProject(ctx, store.Project{ID: "A", OrgID: "org_a", Name: "A", Status: store.ProjectPlanned}))
	first, err := st.ListProjects(ctx, "org_a", store.ProjectQuery{PageRequest: all, ListFilter: store.ListFilter{UpdatedSince: time.Unix(1, 0)}})
	is.NoErr(err)
	since := first.SyncedThrough
	is.True(!since.IsZero()) // a list with UpdatedSince carries SyncedThrough

	tx1, err := db.BeginTx(ctx, &sql.TxOptions{})
	is.NoErr(err)
	defer func() { _ = tx1.Rollback() }()
	tx2, err := db.BeginTx(ctx, &sql.TxOptions{})
	is.NoErr(err)
	defer func() { _ = tx2.Rollback() }()
	insert := `INSERT INTO projects (org_id, id, name, status) VALUES (?, ?, ?, 'planned')`
	_, err = tx2.ExecContext(ctx, `UPDATE projects SET name = 'A by tx2' WHERE org_id = 'org_a' AND id = 'A'`)
	is.NoErr(err)
	_, err = tx1.ExecContext(ctx, insert, "org_a", "C", "C")
	is.NoErr(err)
	_, err = tx1.ExecContext(ctx, `DELETE FROM projects WHERE org_id = 'org_a' AND id = 'gone'`)
	is.NoErr(err)
	waited := make(chan error, 1)
	go func() { // waits on tx2's row lock of A
		res, err := tx1.ExecContext(ctx, `UPDATE projects SET name = 'A by tx1' WHERE org_id = 'org_a' AND id = 'A'`)
		if err == nil {
			if n, _ := res.RowsAffected(); n != 1 {
				err = fmt.Errorf("tx1 updated %d rows of A", n)
			}
		}
		waited <- err
	}()
	_, err = tx2.ExecContext(ctx, insert, "org_a", "B", "B")
	is.NoErr(err)
	is.NoErr(tx2.Commit())
	is.NoErr(<-waited)

	// The sync while tx1 is in flight: it sees A and B, not C.
	changed, err := st.ListProjects(ctx, "org_a", store.ProjectQuery{PageRequest: all, ListFilter: store.ListFilter{UpdatedSince: since}})
	is.NoErr(err)
	got := ids(changed.Items)
	is.True(slices.Contains(got, "A") && slices.Contains(got, "B")) // tx2's writes are visible
	is.True(!slices.Contains(got, "C"))                             // tx1's are not yet
	deleted, err := st.ListDeletions(ctx, "org_a", store.DeletionQuery{PageRequest: all, Since: since})
	is.NoErr(err)
	is.Equal(len(deleted.Items), 0)                   // nor its deletion
	is.True(!changed.SyncedThrough.After(time.Now())) // a second that has begun
	next := changed.SyncedThrough                     // the smallest of the pages walked
	if deleted.SyncedThrough.Before(next) {
		next = deleted.SyncedThrough
	}
	is.NoErr(tx1.Commit())

	changed, err = st.ListProjects(ctx, "org_a", store.ProjectQuery{PageRequest: all, ListFilter: store.ListFilter{UpdatedSince: next}})
	is.NoErr(err)
	got = ids(changed.Items)
	is.True(slices.Contains(got, "C"))                                                             // the next sync, from SyncedThrough, fetches C
	is.True(slices.Contains(got, "A") && changed.Items[slices.Index(got, "A")].Name == "A by tx1") // and tx1's change of A
	deleted, err = st.ListDeletions(ctx, "org_a", store.DeletionQuery{PageRequest: all, Since: next})
	is.NoErr(err)
	is.Equal(len(deleted.Items), 1) // and the deletion of the late transaction
}

// TestSyncedThroughHeldByOpenTransaction checks that a transaction in
// flight holds SyncedThrough at or before its stamps for as long as it is
// open, and that every stamp is a whole second.
func TestSyncedThroughHeldByOpenTransaction(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db := migrated(t)
	st := bunstore.New(db)
	is.NoErr(st.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "A", Plan: "growth"}))
	tx, err := db.BeginTx(ctx, &sql.TxOptions{})
	is.NoErr(err)
	defer func() { _ = tx.Rollback() }()
	var stamp time.Time
	is.NoErr(tx.NewRaw(`INSERT INTO projects (org_id, id, name, status, started_at) VALUES ('org_a', 'p1', 'P', 'planned', '2026-01-01T00:00:00.654321Z')
		RETURNING updated_at`).Scan(ctx, &stamp))
	is.True(stamp.Equal(stamp.Truncate(time.Second))) // stamps are whole seconds
	for range 3 {
		page, err := st.ListProjects(ctx, "org_a", store.ProjectQuery{PageRequest: all, ListFilter: store.ListFilter{UpdatedSince: time.Unix(1, 0)}})
		is.NoErr(err)
		is.True(!page.SyncedThrough.After(stamp)) // held at or before the open transaction's stamp
	}
	is.NoErr(tx.Commit())
	p, err := st.GetProject(ctx, "org_a", "p1")
	is.NoErr(err)
	is.Equal(*p.StartedAt, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)) // plain SQL's times are kept to the second
}

var all = store.PageRequest{Page: 1, Limit: store.MaxLimit}

func ids(ps []store.Project) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.ID
	}
	return out
}
