package bunstore_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"
	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/store"
)

// seedThreads gives each organization that seed made (prefix_0,
// prefix_1...) perOrg threads t0, t1... with four messages each (t7_m0 to
// t7_m3), one in four of them internal, and one in seven threads internal;
// most threads belong to one of the projects p0 to p9, every fifth to none,
// and every message has an attachment. It writes fast, with the triggers
// off in its transaction, then counts as the triggers would, and runs
// ANALYZE.
func seedThreads(t testing.TB, db *bun.DB, prefix string, orgs, perOrg int) {
	t.Helper()
	n := orgs * perOrg
	_, err := db.ExecContext(ctx, `
		ALTER TABLE threads DISABLE TRIGGER USER;
		ALTER TABLE messages DISABLE TRIGGER USER;
		ALTER TABLE attachments DISABLE TRIGGER USER;
		INSERT INTO threads (org_id, id, project_id, subject, status, internal, created_at, updated_at)
		SELECT ? || '_' || (g % ?), 't' || (g / ?),
			CASE WHEN g % 5 = 0 THEN NULL ELSE 'p' || ((g / ?) % 10) END,
			'Thread ' || g, (ARRAY['open', 'resolved'])[1 + g % 2], g % 7 = 0,
			timestamptz '2026-01-01 00:00:00Z' + g * interval '1 second', timestamptz '2026-03-01 00:00:00Z'
		FROM generate_series(0, ? - 1) AS g;
		INSERT INTO messages (org_id, id, thread_id, author_name, author_side, body, internal, created_at,
			thread_internal, project_id, updated_at)
		SELECT t.org_id, t.id || '_m' || k, t.id, 'Ana', 'agency', 'Hello', k = 3,
			t.created_at + k * interval '1 hour', t.internal, t.project_id, timestamptz '2026-03-01 00:00:00Z'
		FROM threads AS t, generate_series(0, 3) AS k
		WHERE starts_with(t.org_id, ? || '_');
		INSERT INTO attachments (org_id, id, message_id, ordinal, file_name, content_type, size_bytes, file_key)
		SELECT m.org_id, 'a_' || m.id, m.id, 1, 'f.pdf', 'application/pdf', 1, 'files/' || m.id
		FROM messages AS m WHERE starts_with(m.org_id, ? || '_');
		UPDATE threads AS t SET (message_count, last_message_at) = (
			SELECT count(*), max(m.created_at) FROM messages AS m
			WHERE m.org_id = t.org_id AND m.thread_id = t.id AND NOT m.internal)
		WHERE starts_with(t.org_id, ? || '_');
		ALTER TABLE threads ENABLE TRIGGER USER;
		ALTER TABLE messages ENABLE TRIGGER USER;
		ALTER TABLE attachments ENABLE TRIGGER USER;
		ANALYZE threads, messages, attachments`,
		prefix, orgs, orgs, orgs, n, prefix, prefix, prefix)
	if err != nil {
		t.Fatalf("seed threads: %v", err)
	}
}

// TestThreadListQueries checks, as TestListQueries does for the other
// lists, that every list of threads and messages reads its own index
// (internal rows are not in it), entered at the organization, among 200
// times the calling organization's rows, and that a page with items, its
// total and its messages' attachments take one round trip.
func TestThreadListQueries(t *testing.T) {
	t.Parallel()
	db := migrated(t, bunstore.WithStatementTimeout(time.Minute)) // for seeding
	seed(t, db, "other", 200, 10)
	seed(t, db, "caller", 1, 10)
	seedThreads(t, db, "other", 200, 50)
	seedThreads(t, db, "caller", 1, 50)
	const org = "caller_0"
	since := dbNow(t, db).Truncate(time.Second) // stamps are whole seconds (20261001000001_spine)
	// The calling organization's visible rows change after the others'
	// (through the triggers, which recount its threads).
	_, err := db.ExecContext(ctx, `
		UPDATE threads SET subject = subject || ' (changed)' WHERE org_id = 'caller_0';
		UPDATE messages SET body = body || ' (changed)' WHERE org_id = 'caller_0';
		ANALYZE threads, messages`)
	is.New(t).NoErr(err)
	rec := &recorder{}
	db = db.WithQueryHook(rec)
	st := bunstore.New(db)

	page := store.PageRequest{Page: 1, Limit: 5}
	threads := func(q store.ThreadQuery) func(time.Time) (int, error) {
		return func(since time.Time) (int, error) {
			q.PageRequest, q.UpdatedSince = page, since
			p, err := st.ListThreads(ctx, org, q)
			return len(p.Items), err
		}
	}
	messages := func(q store.MessageQuery) func(time.Time) (int, error) {
		return func(since time.Time) (int, error) {
			q.PageRequest, q.UpdatedSince = page, since
			p, err := st.ListMessages(ctx, org, q)
			return len(p.Items), err
		}
	}
	tests := []struct {
		name    string
		indexes []string // of the page query: the shape's own (or its twin)
		filters []string // the conditions of the shape's filters, which an index it reads must hold
		run     func(since time.Time) (int, error)
	}{
		{"threads", []string{"threads_list"}, nil, threads(store.ThreadQuery{})},
		{"threads by status", []string{"threads_list_status"}, []string{"status"}, threads(store.ThreadQuery{Status: store.ThreadResolved})},
		{"threads by project", []string{"threads_list_project"}, []string{"project_id"}, threads(store.ThreadQuery{ListFilter: store.ListFilter{ProjectID: "p3"}})},
		{"threads by project and status", []string{"threads_list_project_status"}, []string{"project_id", "status"}, threads(store.ThreadQuery{Status: store.ThreadOpen, ListFilter: store.ListFilter{ProjectID: "p4"}})},
		{"messages", []string{"messages_list"}, nil, messages(store.MessageQuery{})},
		{"messages by thread", []string{"messages_list_thread"}, []string{"thread_id"}, messages(store.MessageQuery{ThreadID: "t8"})},
		{"messages by project", []string{"messages_list_project"}, []string{"project_id"}, messages(store.MessageQuery{ListFilter: store.ListFilter{ProjectID: "p3"}})},
		{"messages by thread and project", []string{"messages_list_thread", "messages_list_project"}, nil, messages(store.MessageQuery{ThreadID: "t3", ListFilter: store.ListFilter{ProjectID: "p3"}})},
		{"thread's messages", []string{"messages_list_thread"}, []string{"thread_id"}, func(since time.Time) (int, error) {
			p, err := st.ListThreadMessages(ctx, org, "t8", store.MessageQuery{PageRequest: page, ListFilter: store.ListFilter{UpdatedSince: since}})
			return len(p.Items), err
		}},
	}
	for _, tt := range tests {
		for _, since := range []time.Time{{}, since} {
			name := tt.name
			if !since.IsZero() {
				name += " changed"
			}
			t.Run(name, func(t *testing.T) {
				is := is.New(t)
				n, err := tt.run(since)
				queries := rec.take()
				is.NoErr(err)
				is.True(n > 0) // the first page has items
				rounds := 1
				if !since.IsZero() {
					rounds = 2 // SyncedThrough first, in a statement of its own (synced.go)
				}
				is.Equal(len(queries), rounds) // a page with items, its total and attachments: one round trip

				// The shape's own index, or its twin; or, for a bitmap scan
				// that the planner sorts anyway, a sibling entered at the
				// organization and every filter of the shape.
				own := func(index, nodeType, cond string) bool {
					for _, list := range tt.indexes {
						if index == strings.Replace(list, "_list", "_changes", 1) || since.IsZero() && index == list {
							return true
						}
					}
					if nodeType != "Bitmap Index Scan" || len(tt.filters) == 0 {
						return false
					}
					for _, f := range tt.filters {
						if !strings.Contains(cond, "("+f+" = ") {
							return false
						}
					}
					return true
				}
				var index, nodeType, cond string
				explain(t, db, queries[len(queries)-1]).walk(func(n planNode) {
					if !strings.Contains(n.NodeType, "Scan") || n.NodeType == "Bitmap Heap Scan" || n.NodeType == "Subquery Scan" {
						return
					}
					t.Logf("%s on %s: %s", n.NodeType, n.IndexName, n.IndexCond)
					is.True(strings.Contains(n.NodeType, "Index")) // no scan of a whole table
					if n.IndexName == "attachments_of_message" {
						return // the attachments of the page's messages, by message
					}
					is.True(strings.Contains(n.IndexCond, "(org_id = '"+org+"'::text)")) // only the calling organization's rows are read
					index, nodeType, cond = n.IndexName, n.NodeType, n.IndexCond
				})
				is.True(own(index, nodeType, cond)) // the list shape's own index, which holds visible rows only
				if !since.IsZero() {
					is.True(strings.Contains(cond, "(updated_at >= ")) // entered at the time too
				}
			})
		}
	}
}

// TestThreadWritesWaitRatherThanDeadlock hides and shows a thread, and
// moves it between projects, while other goroutines edit, put and delete
// its messages: a thread's write locks the thread, then its messages; a
// message's, the thread, then the message. None may fail, and the counts
// must be right at the end.
func TestThreadWritesWaitRatherThanDeadlock(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db, st := withOrgAndProject(t)
	is.NoErr(st.PutProject(ctx, store.Project{ID: "p2", OrgID: "org_a", Status: store.ProjectPlanned}))
	th := store.Thread{ID: "t1", OrgID: "org_a", ProjectID: ptr("p1"), Subject: "s", Status: store.ThreadOpen}
	is.NoErr(st.PutThread(ctx, th))
	msg := func(w, n int) store.Message {
		return store.Message{ID: fmt.Sprintf("m%d", w), OrgID: "org_a", ThreadID: "t1", Author: store.Author{Name: "A", Side: store.SideClient},
			Body: fmt.Sprintf("edit %d", n), CreatedAt: time.Date(2026, 3, 1, w, 0, 0, 0, time.UTC),
			Attachments: []store.Attachment{{ID: fmt.Sprintf("a%d-%d", w, n%2), FileKey: "k"}}}
	}
	for w := range 4 {
		is.NoErr(st.PutMessage(ctx, msg(w, 0)))
	}

	const rounds = 15
	errs := make(chan error, 8*rounds)
	var wg sync.WaitGroup
	wg.Go(func() {
		for n := range rounds {
			th := th
			th.Internal = n%2 == 0 && n < rounds-1
			th.ProjectID = ptr([]string{"p1", "p2"}[n%2])
			if err := st.PutThread(ctx, th); err != nil {
				errs <- fmt.Errorf("put thread: %w", err)
			}
		}
	})
	for w := range 4 {
		wg.Go(func() {
			for n := range rounds {
				if err := st.PutMessage(ctx, msg(w, n+1)); err != nil {
					errs <- fmt.Errorf("put message: %w", err)
				}
				if w == 3 && n%3 == 0 {
					if err := st.DeleteMessage(ctx, "org_a", msg(w, n).ID); err != nil {
						errs <- fmt.Errorf("delete message: %w", err)
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		is.NoErr(err) // no write fails, none deadlocks
	}
	got, err := st.GetThread(ctx, "org_a", "t1")
	is.NoErr(err)
	is.Equal(got.MessageCount, 4) // every message counted once
	var stale int
	is.NoErr(db.NewRaw(`SELECT count(*) FROM messages AS m JOIN threads AS t ON (t.org_id, t.id) = (m.org_id, m.thread_id)
		WHERE (m.thread_internal, m.project_id) IS DISTINCT FROM (t.internal, t.project_id)`).Scan(ctx, &stale))
	is.Equal(stale, 0) // every message carries its thread's flag and project
}

// TestThreadsByPlainSQL checks that a portal writing the thread tables in
// SQL keeps the promises the store's writes keep: a thread's count, last
// message and UpdatedAt follow its messages, a message carries its
// thread's visibility, and what clients saw and no longer see is
// recorded.
func TestThreadsByPlainSQL(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db, st := withOrgAndProject(t)
	since := dbNow(t, db).Truncate(time.Second) // stamps are whole seconds (20261001000001_spine)
	_, err := db.ExecContext(ctx, `
		INSERT INTO threads (org_id, id, project_id, subject, status, created_at) VALUES ('org_a', 't1', 'p1', 'Hi', 'open', '2026-03-01Z');
		INSERT INTO messages (org_id, id, thread_id, author_name, author_side, created_at) VALUES
			('org_a', 'm1', 't1', 'A', 'client', '2026-03-02Z'),
			('org_a', 'm2', 't1', 'A', 'agency', '2026-03-03Z');
		INSERT INTO messages (org_id, id, thread_id, author_name, author_side, internal, created_at) VALUES
			('org_a', 'mi', 't1', 'A', 'agency', true, '2026-03-04Z');
		INSERT INTO attachments (org_id, id, message_id, ordinal, size_bytes, file_key) VALUES ('org_a', 'a1', 'm2', 1, 5, 'k')`)
	is.NoErr(err)
	th, err := st.GetThread(ctx, "org_a", "t1")
	is.NoErr(err)
	is.Equal(th.MessageCount, 2)                                                 // the internal message does not count
	is.True(th.LastMessageAt.Equal(time.Date(2026, 3, 3, 0, 0, 0, 0, time.UTC))) // nor is it the last
	before := th.UpdatedAt

	// A second later, on the stamps' clock (clientstatus.clock, as
	// bunstore.WithClock sets it), rather than waiting for one to pass.
	_, err = db.ExecContext(ctx, `BEGIN; SELECT set_config('clientstatus.clock', ?, true);
		UPDATE attachments SET file_key = 'k2' WHERE org_id = 'org_a' AND id = 'a1'; COMMIT`, before.Add(time.Second).Format(time.RFC3339))
	is.NoErr(err)
	th, err = st.GetThread(ctx, "org_a", "t1")
	is.NoErr(err)
	is.True(th.UpdatedAt.After(before)) // a visible message's attachment changed: the thread changed

	_, err = db.ExecContext(ctx, "UPDATE threads SET internal = true WHERE org_id = 'org_a' AND id = 't1'")
	is.NoErr(err)
	_, err = st.GetAttachment(ctx, "org_a", "a1")
	is.True(errors.Is(err, store.ErrNotFound)) // a hidden thread's attachments are not found
	page, err := st.ListDeletions(ctx, "org_a", store.DeletionQuery{PageRequest: store.PageRequest{Page: 1, Limit: 10}, Since: since})
	is.NoErr(err)
	var got []string
	for _, d := range page.Items {
		got = append(got, fmt.Sprintf("%s %s %s", d.Kind, d.ID, d.ProjectID))
	}
	is.Equal(got, []string{"message m1 p1", "message m2 p1", "thread t1 p1"}) // the hidden thread and its visible messages, with their project
}

// TestThreadsMigrationRunsAgain runs the threads migration's up file again
// by hand over a schema with threads, as a crash before bun/migrate
// recorded it would: the data, the counts and the triggers are as before,
// and a write still runs each trigger once.
func TestThreadsMigrationRunsAgain(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db, st := withOrgAndProject(t)
	is.NoErr(st.PutThread(ctx, store.Thread{ID: "t1", OrgID: "org_a", ProjectID: ptr("p1"), Subject: "s", Status: store.ThreadOpen}))
	author := store.Author{Name: "A", Side: store.SideClient}
	is.NoErr(st.PutMessage(ctx, store.Message{ID: "m1", OrgID: "org_a", ThreadID: "t1", Author: author, CreatedAt: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}))

	_, err := db.ExecContext(ctx, migration(t, db, "20260701000001_threads.tx.up.sql"))
	is.NoErr(err) // the up file runs again over itself
	th, err := st.GetThread(ctx, "org_a", "t1")
	is.NoErr(err)
	is.Equal(th.MessageCount, 1) // the data survives
	is.NoErr(st.PutMessage(ctx, store.Message{ID: "m2", OrgID: "org_a", ThreadID: "t1", Author: author, CreatedAt: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)}))
	th, err = st.GetThread(ctx, "org_a", "t1")
	is.NoErr(err)
	is.Equal(th.MessageCount, 2) // with its triggers in place
	var triggers int
	is.NoErr(db.NewRaw(`SELECT count(*) FROM pg_trigger WHERE NOT tgisinternal
		AND tgrelid IN ('threads'::regclass, 'messages'::regclass, 'attachments'::regclass)`).Scan(ctx, &triggers))
	is.Equal(triggers, 7+8+1+3*4+2+2*3+2*2) // each once: the threads migration's, the four a table of 20260801000001_versions, clientstatus_seconds on threads and messages, the three of 20261001000002_events and the two of 20261001000004_departures on each
}

func ptr[T any](v T) *T { return &v }
