package bunstore_test

import (
	"database/sql"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/store"
)

// TestEventsLateCommit: tx1 takes its transaction id first (it writes
// org_b), tx2 writes org_a and commits, and only then does tx1 write
// org_a and commit. A reader of org_a sees tx2's event at once, though
// tx1, with a lower id, still runs (events take their place as they
// become visible), then tx1's after it; a reader that read a page while
// tx1 ran and resumes from its Last misses neither, in the order a full
// read gives.
func TestEventsLateCommit(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db := migrated(t)
	st := bunstore.New(db)
	is.NoErr(st.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "A", Plan: "growth"}))
	is.NoErr(st.PutOrganization(ctx, store.Organization{ID: "org_b", Name: "B", Plan: "growth"}))
	is.NoErr(st.PutProject(ctx, store.Project{ID: "before", OrgID: "org_a", Name: "Before", Status: store.ProjectPlanned}))
	before, err := st.ListEvents(ctx, "org_a", store.EventQuery{Limit: 10})
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

	// tx2 committed; tx1 runs, and holds back nothing but its own.
	during, err := st.ListEvents(ctx, "org_a", store.EventQuery{After: before.Last, Limit: 10})
	is.NoErr(err)
	is.Equal(len(during.Events), 1) // tx2's event does not wait for tx1
	is.Equal(during.Events[0].ItemID, "by_tx2")
	latest, err := st.LatestEvent(ctx, "org_a")
	is.NoErr(err)
	is.Equal(latest, during.Last)

	_, err = tx1.ExecContext(ctx, insert, "org_a", "by_tx1", "By tx1")
	is.NoErr(err)
	is.NoErr(tx1.Commit())

	after, err := st.ListEvents(ctx, "org_a", store.EventQuery{After: during.Last, Limit: 10})
	is.NoErr(err)
	is.Equal(len(after.Events), 1)
	is.Equal(after.Events[0].ItemID, "by_tx1") // after tx2's: it became visible last
	full, err := st.ListEvents(ctx, "org_a", store.EventQuery{Limit: 10})
	is.NoErr(err)
	is.Equal(full.Events[1:], append(during.Events, after.Events...)) // the resumed reads are the full read's rest
	is.Equal(full.Total, 3)
}

// TestEventsPlainSQL: a portal's plain SQL makes events: a status change
// with its previous status, an attachment's change as its message's
// (clientstatus_touch_message), and an update that changes nothing makes
// none.
func TestEventsPlainSQL(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db := migrated(t)
	st := bunstore.New(db)
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

// eventWrites are plain SQL writes of org_a in three goes: creations,
// changes of status, a deletion and a cascade, changes of nothing.
var eventWrites = []string{`
	INSERT INTO projects (org_id, id, name, status) VALUES ('org_a', 'p1', 'P1', 'planned'), ('org_a', 'p2', 'P2', 'planned');
	INSERT INTO milestones (org_id, id, project_id, status, due_at) VALUES ('org_a', 'm1', 'p1', 'pending', '2026-01-01Z');
	INSERT INTO invoices (org_id, id, project_id, status, currency, total, amount_due, issued_at, due_at) VALUES
		('org_a', 'i1', 'p1', 'draft', 'EUR', 1, 1, '2026-01-01Z', '2026-01-01Z'),
		('org_a', 'i2', NULL, 'open', 'EUR', 1, 1, '2026-01-01Z', '2026-01-01Z'),
		('org_a', 'i3', 'p2', 'open', 'EUR', 1, 1, '2026-01-01Z', '2026-01-01Z')`, `
	UPDATE invoices SET status = 'paid', paid_at = '2026-01-02Z' WHERE org_id = 'org_a' AND id IN ('i2', 'i3');
	UPDATE projects SET status = 'in_progress' WHERE org_id = 'org_a' AND id = 'p1';
	UPDATE milestones SET status = 'completed' WHERE org_id = 'org_a';
	INSERT INTO threads (org_id, id, project_id, status, created_at) VALUES ('org_a', 't1', 'p2', 'open', now());
	DELETE FROM invoices WHERE org_id = 'org_a' AND id = 'i2'`, `
	UPDATE invoices SET status = 'open', total = total + 1 WHERE org_id = 'org_a';
	UPDATE invoices SET total = total + 1 WHERE org_id = 'org_a';
	UPDATE projects SET name = name WHERE org_id = 'org_a';
	UPDATE threads SET status = 'resolved' WHERE org_id = 'org_a';
	UPDATE invoices SET status = 'paid', paid_at = '2026-01-03Z' WHERE org_id = 'org_a' AND id = 'i1';
	DELETE FROM projects WHERE org_id = 'org_a' AND id = 'p2'`,
}

// checkEventTotals reads org_a's events in full, then, for queries of
// every kind and after every cursor, checks that a page of two and its
// total are what the full read says.
func checkEventTotals(t *testing.T, st *bunstore.Store) {
	t.Helper()
	is := is.New(t)
	var full []store.Event
	for after := ""; ; {
		p, err := st.ListEvents(ctx, "org_a", store.EventQuery{After: after, Limit: 7})
		is.NoErr(err)
		if len(p.Events) == 0 {
			break
		}
		full, after = append(full, p.Events...), p.Last
	}
	queries := []store.EventQuery{{},
		{OnlyKinds: []store.Kind{store.KindInvoice}},
		{OnlyKinds: []store.Kind{store.KindProject, store.KindThread, store.KindInvoice}},
		{Types: []string{"invoice.paid", "invoice.updated", "thread.resolved"}},
		{Types: []string{"invoice.paid", "project.created"}, OnlyKinds: []store.Kind{store.KindInvoice}},
		{OnlyProjects: []string{"p1"}},
		{Types: []string{"invoice.paid"}, OnlyProjects: []string{"p2"}}}
	types := map[string]bool{}
	for _, e := range full {
		if !types[e.Type] {
			types[e.Type] = true
			queries = append(queries, store.EventQuery{Types: []string{e.Type}})
		}
	}
	is.True(len(types) >= 12) // every family of event is there
	for _, q := range queries {
		keep := func(e store.Event) bool {
			return (len(q.Types) == 0 || slices.Contains(q.Types, e.Type)) &&
				(q.OnlyKinds == nil || slices.Contains(q.OnlyKinds, e.Kind)) &&
				(q.OnlyProjects == nil || slices.Contains(q.OnlyProjects, e.ProjectID))
		}
		for i := -1; i < len(full); i++ {
			q := q
			q.Limit, q.After = 2, ""
			if i >= 0 {
				q.After = full[i].ID
			}
			want := []store.Event{}
			for _, e := range full[i+1:] {
				if keep(e) {
					want = append(want, e)
				}
			}
			p, err := st.ListEvents(ctx, "org_a", q)
			is.NoErr(err)
			if p.Total != len(want) || !slices.Equal(p.Events, want[:min(2, len(want))]) {
				t.Fatalf("%+v: total %d, want %d; events %v, want %v", q, p.Total, len(want), p.Events, want[:min(2, len(want))])
			}
		}
	}
}

// TestEventTotals: the totals of the running counts (the migration
// 20261006000001_event_ordinals) are the counts of the events after each
// cursor, for every filter: with rows numbered in two goes and a third
// not numbered yet (another transaction holds the numbering lock, so that
// readers count those rows), then numbered too.
func TestEventTotals(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db := migrated(t)
	st := bunstore.New(db)
	is.NoErr(st.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "A", Plan: "growth"}))
	for _, w := range eventWrites[:2] {
		_, err := db.ExecContext(ctx, w)
		is.NoErr(err)
		_, err = st.ListEvents(ctx, "org_a", store.EventQuery{Limit: 1}) // numbers them
		is.NoErr(err)
	}
	lock, err := db.BeginTx(ctx, &sql.TxOptions{})
	is.NoErr(err)
	defer func() { _ = lock.Rollback() }()
	_, err = lock.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtextextended(clientstatus_lock_class()::text || '/events/' || 'org_a', 0))")
	is.NoErr(err)
	_, err = db.ExecContext(ctx, eventWrites[2])
	is.NoErr(err)
	var numbered, unnumbered int
	is.NoErr(db.NewRaw("SELECT count(ord), count(*) - count(ord) FROM changes").Scan(ctx, &numbered, &unnumbered))
	is.True(numbered > 0 && unnumbered > 0)
	checkEventTotals(t, st)
	is.NoErr(lock.Commit())
	checkEventTotals(t, st)
	is.NoErr(db.NewRaw("SELECT count(*) - count(ord) FROM changes").Scan(ctx, &unnumbered))
	is.Equal(unnumbered, 0) // all numbered now
}

// TestEventOrdinalsBackfill: the migration numbers the events already
// there; its up file runs again over itself.
func TestEventOrdinalsBackfill(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db := migrated(t)
	const ordinals, visible = "20261006000001_event_ordinals.tx", "20261128000001_visible_order.tx"
	for _, m := range []string{visible, ordinals} {
		_, err := db.ExecContext(ctx, migration(t, db, m+".down.sql"))
		is.NoErr(err)
		_, err = db.NewDelete().Table("clientstatus_migrations").Where("name = ?", strings.Split(m, "_")[0]).Exec(ctx)
		is.NoErr(err)
	}
	st := bunstore.New(db)
	is.NoErr(st.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "A", Plan: "growth"}))
	for _, w := range eventWrites {
		_, err := db.ExecContext(ctx, w)
		is.NoErr(err)
	}
	is.NoErr(bunstore.Migrate(ctx, db))
	var unnumbered int
	is.NoErr(db.NewRaw("SELECT count(*) - count(ord) FROM changes").Scan(ctx, &unnumbered))
	is.Equal(unnumbered, 0) // the backfill numbered them all
	for _, m := range []string{ordinals, visible} {
		_, err := db.ExecContext(ctx, migration(t, db, m+".up.sql"))
		is.NoErr(err)
	}
	checkEventTotals(t, st)
}
