package bunstore_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/matryer/is"
	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/internal/testenv"
	"github.com/clientstatus/clientstatus/store"
	"github.com/clientstatus/clientstatus/store/bunstore"
)

// settled is a Store whose event reads first wait until every transaction
// that had begun when they were called has ended, so that the events of
// the writes before them are visible: the conformance suite reads right
// after it writes, while other tests' transactions on the same server may
// hold the horizon back for a moment.
type settled struct {
	*bunstore.Store
	db *bun.DB
}

func (s settled) settle(ctx context.Context) {
	var next string
	if err := s.db.NewRaw("SELECT pg_snapshot_xmax(pg_current_snapshot())::text").Scan(ctx, &next); err != nil {
		return // the read reports it
	}
	// Other sessions' transactions to end, not time to pass.
	testenv.Until(3*time.Minute, func() bool {
		var past bool
		err := s.db.NewRaw("SELECT pg_snapshot_xmin(pg_current_snapshot()) >= ?::xid8", next).Scan(ctx, &past)
		return err != nil || past
	})
}

func (s settled) ListEvents(ctx context.Context, orgID string, q store.EventQuery) (store.EventPage, error) {
	s.settle(ctx)
	return s.Store.ListEvents(ctx, orgID, q)
}

func (s settled) LatestEvent(ctx context.Context, orgID string) (string, error) {
	s.settle(ctx)
	return s.Store.LatestEvent(ctx, orgID)
}

// TestEventsLateCommit: tx1 takes its transaction id first (it writes
// org_b), tx2 writes org_a and commits, and only then does tx1 write
// org_a and commit. A reader of org_a sees nothing while tx1 runs (it
// holds the horizon), then tx1's event before tx2's, in (xid, seq) order;
// a reader that read a page while tx1 ran and resumes from its Last misses
// neither.
func TestEventsLateCommit(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db := migrated(t)
	st := bunstore.New(db)
	is.NoErr(st.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "A", Plan: "growth"}))
	is.NoErr(st.PutOrganization(ctx, store.Organization{ID: "org_b", Name: "B", Plan: "growth"}))
	is.NoErr(st.PutProject(ctx, store.Project{ID: "before", OrgID: "org_a", Name: "Before", Status: store.ProjectPlanned}))
	reader := settled{st, db}
	before, err := reader.ListEvents(ctx, "org_a", store.EventQuery{Limit: 10})
	is.NoErr(err)
	is.Equal(len(before.Events), 1) // project.created of "before"

	tx1, err := db.BeginTx(ctx, &sql.TxOptions{})
	is.NoErr(err)
	defer func() { _ = tx1.Rollback() }()
	insert := `INSERT INTO projects (org_id, id, name, status) VALUES (?, ?, ?, 'planned')`
	_, err = tx1.ExecContext(ctx, insert, "org_b", "x", "X")
	is.NoErr(err)
	var xid1, xid2 uint64
	is.NoErr(tx1.NewRaw("SELECT pg_current_xact_id()::text::bigint").Scan(ctx, &xid1))
	tx2, err := db.BeginTx(ctx, &sql.TxOptions{})
	is.NoErr(err)
	defer func() { _ = tx2.Rollback() }()
	_, err = tx2.ExecContext(ctx, insert, "org_a", "by_tx2", "By tx2")
	is.NoErr(err)
	is.NoErr(tx2.NewRaw("SELECT pg_current_xact_id()::text::bigint").Scan(ctx, &xid2))
	is.True(xid1 < xid2) // tx1 took the lower id
	is.NoErr(tx2.Commit())

	// tx2 committed; tx1 runs: its id is below the horizon's, which holds
	// tx2's event back.
	during, err := st.ListEvents(ctx, "org_a", store.EventQuery{After: before.Last, Limit: 10})
	is.NoErr(err)
	is.Equal(len(during.Events), 0) // tx2's event waits for tx1
	is.Equal(during.Last, before.Last)
	latest, err := st.LatestEvent(ctx, "org_a")
	is.NoErr(err)
	is.Equal(latest, before.Last) // nor is it the latest yet

	_, err = tx1.ExecContext(ctx, insert, "org_a", "by_tx1", "By tx1")
	is.NoErr(err)
	is.NoErr(tx1.Commit())

	after, err := reader.ListEvents(ctx, "org_a", store.EventQuery{After: during.Last, Limit: 10})
	is.NoErr(err)
	is.Equal(len(after.Events), 2)
	is.Equal(after.Events[0].ItemID, "by_tx1") // the lower transaction id first, though it committed last
	is.Equal(after.Events[1].ItemID, "by_tx2")
	full, err := reader.ListEvents(ctx, "org_a", store.EventQuery{Limit: 10})
	is.NoErr(err)
	is.Equal(full.Events[1:], after.Events) // the resumed read is the full read's rest
}

// TestEventsPlainSQL: a portal's plain SQL makes events: a status change
// with its previous status, an attachment's change as its message's
// (clientstatus_touch_message), and an update that changes nothing makes
// none.
func TestEventsPlainSQL(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db := migrated(t)
	st := settled{bunstore.New(db), db}
	is.NoErr(st.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "A", Plan: "growth"}))
	_, err := db.ExecContext(ctx, `
		INSERT INTO projects (org_id, id, name, status) VALUES ('org_a', 'p1', 'P', 'planned');
		INSERT INTO threads (org_id, id, project_id, status, created_at) VALUES ('org_a', 't1', 'p1', 'open', now());
		INSERT INTO messages (org_id, id, thread_id, author_name, author_side, created_at) VALUES ('org_a', 'm1', 't1', 'Ana', 'agency', now())`)
	is.NoErr(err)
	first, err := st.ListEvents(ctx, "org_a", store.EventQuery{Limit: 100})
	is.NoErr(err)
	_, err = db.ExecContext(ctx, `UPDATE projects SET status = 'in_progress' WHERE id = 'p1'`)
	is.NoErr(err)
	_, err = db.ExecContext(ctx, `UPDATE projects SET name = name WHERE id = 'p1'`) // changes nothing
	is.NoErr(err)
	_, err = db.ExecContext(ctx, `INSERT INTO attachments (org_id, id, message_id, ordinal, size_bytes, file_key) VALUES ('org_a', 'a1', 'm1', 1, 3, 'k')`)
	is.NoErr(err) // in the second of the message's own write, maybe: another transaction's change all the same
	got, err := st.ListEvents(ctx, "org_a", store.EventQuery{After: first.Last, Limit: 100})
	is.NoErr(err)
	var types []string
	for _, e := range got.Events {
		types = append(types, e.Type+" "+e.ItemID+" "+e.PreviousStatus+" "+e.ThreadID)
	}
	is.Equal(types, []string{"project.updated p1  ", "project.in_progress p1 planned ", "message.updated m1  t1", "thread.updated t1  "})
	is.Equal(got.Total, 4)
}
