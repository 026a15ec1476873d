package bunstore_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/matryer/is"
	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/store"
)

// freshCounts is item_counts as counted from the items themselves, the
// migration's backfill.
const freshCounts = `
	SELECT org_id, 'project' AS kind, status, id AS project_id, count(*) AS n FROM projects GROUP BY 1, 3, 4
	UNION ALL
	SELECT org_id, 'milestone', status, project_id, count(*) FROM milestones GROUP BY 1, 3, 4
	UNION ALL
	SELECT org_id, 'deliverable', status, project_id, count(*) FROM deliverables GROUP BY 1, 3, 4
	UNION ALL
	SELECT org_id, 'invoice', status, coalesce(project_id, ''), count(*) FROM invoices GROUP BY 1, 3, 4`

// counts is what item_counts holds: the counts as a list's total sums its
// rows (deltas not yet folded, 20261001000003_lockfree), those of 0 left
// out.
const counts = `
	SELECT org_id, kind, status, project_id, sum(n)::bigint AS n FROM item_counts
	GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0`

// checkCounts checks that item_counts holds exactly the counts of the
// items (none missing, none off), and that every list's total, under
// filters, is what count(*) says.
func checkCounts(t *testing.T, db *bun.DB, step string) {
	t.Helper()
	is := is.NewRelaxed(t)
	var off []string
	err := db.NewRaw(`SELECT format('%s', x) FROM (
			(SELECT * FROM (`+counts+`) AS c EXCEPT ALL SELECT * FROM (`+freshCounts+`) AS f)
			UNION ALL
			(SELECT * FROM (`+freshCounts+`) AS f EXCEPT ALL SELECT * FROM (`+counts+`) AS c)
		) AS x`).Scan(ctx, &off)
	is.NoErr(err)
	if len(off) > 0 {
		t.Errorf("%s: item_counts differs from the items: %v", step, off)
	}

	st := bunstore.New(db)
	page := store.PageRequest{Page: 1, Limit: 1}
	total := func(what string, got int, err error, query string, args ...any) {
		t.Helper()
		is.NoErr(err)
		var want int
		is.NoErr(db.NewRaw(query, args...).Scan(ctx, &want))
		if got != want {
			t.Errorf("%s: %s: total %d, count(*) %d", step, what, got, want)
		}
	}
	only := []string{"p1", "p3", "nope"}
	for _, org := range []string{"org_a", "org_b"} {
		p, err := st.ListProjects(ctx, org, store.ProjectQuery{PageRequest: page})
		total(org+" projects", p.Total, err, "SELECT count(*) FROM projects WHERE org_id = ?", org)
		p, err = st.ListProjects(ctx, org, store.ProjectQuery{PageRequest: page, Status: store.ProjectCompleted})
		total(org+" completed projects", p.Total, err, "SELECT count(*) FROM projects WHERE org_id = ? AND status = 'completed'", org)
		p, err = st.ListProjects(ctx, org, store.ProjectQuery{PageRequest: page, ListFilter: store.ListFilter{OnlyProjects: only}})
		total(org+" some projects", p.Total, err, "SELECT count(*) FROM projects WHERE org_id = ? AND id IN ('p1', 'p3', 'nope')", org)

		for _, project := range []string{"p1", "p2", "p3"} {
			m, err := st.ListMilestones(ctx, org, project, store.MilestoneQuery{PageRequest: page})
			if !errors.Is(err, store.ErrNotFound) { // p2 of org_a is deleted
				total(org+" milestones of "+project, m.Total, err, "SELECT count(*) FROM milestones WHERE org_id = ? AND project_id = ?", org, project)
			}
			m, err = st.ListMilestones(ctx, org, project, store.MilestoneQuery{PageRequest: page, Status: store.MilestoneCompleted})
			if !errors.Is(err, store.ErrNotFound) { // p2 of org_a is deleted
				total(org+" completed milestones of "+project, m.Total, err, "SELECT count(*) FROM milestones WHERE org_id = ? AND project_id = ? AND status = 'completed'", org, project)
			}
		}

		d, err := st.ListDeliverables(ctx, org, store.DeliverableQuery{PageRequest: page})
		total(org+" deliverables", d.Total, err, "SELECT count(*) FROM deliverables WHERE org_id = ?", org)
		d, err = st.ListDeliverables(ctx, org, store.DeliverableQuery{PageRequest: page, Status: store.DeliverableApproved})
		total(org+" approved deliverables", d.Total, err, "SELECT count(*) FROM deliverables WHERE org_id = ? AND status = 'approved'", org)
		d, err = st.ListDeliverables(ctx, org, store.DeliverableQuery{PageRequest: page, ListFilter: store.ListFilter{ProjectID: "p1"}})
		total(org+" deliverables of p1", d.Total, err, "SELECT count(*) FROM deliverables WHERE org_id = ? AND project_id = 'p1'", org)
		d, err = st.ListDeliverables(ctx, org, store.DeliverableQuery{PageRequest: page, Status: store.DeliverablePending, ListFilter: store.ListFilter{ProjectID: "p3"}})
		total(org+" pending deliverables of p3", d.Total, err, "SELECT count(*) FROM deliverables WHERE org_id = ? AND project_id = 'p3' AND status = 'pending'", org)
		d, err = st.ListDeliverables(ctx, org, store.DeliverableQuery{PageRequest: page, ListFilter: store.ListFilter{OnlyProjects: only}})
		total(org+" deliverables of some projects", d.Total, err, "SELECT count(*) FROM deliverables WHERE org_id = ? AND project_id IN ('p1', 'p3', 'nope')", org)

		i, err := st.ListInvoices(ctx, org, store.InvoiceQuery{PageRequest: page})
		total(org+" invoices", i.Total, err, "SELECT count(*) FROM invoices WHERE org_id = ?", org)
		i, err = st.ListInvoices(ctx, org, store.InvoiceQuery{PageRequest: page, Status: store.InvoicePaid})
		total(org+" paid invoices", i.Total, err, "SELECT count(*) FROM invoices WHERE org_id = ? AND status = 'paid'", org)
		i, err = st.ListInvoices(ctx, org, store.InvoiceQuery{PageRequest: page, ListFilter: store.ListFilter{ProjectID: "p2"}})
		total(org+" invoices of p2", i.Total, err, "SELECT count(*) FROM invoices WHERE org_id = ? AND project_id = 'p2'", org)
		i, err = st.ListInvoices(ctx, org, store.InvoiceQuery{PageRequest: page, Status: store.InvoiceOpen, ListFilter: store.ListFilter{ProjectID: "p1"}})
		total(org+" open invoices of p1", i.Total, err, "SELECT count(*) FROM invoices WHERE org_id = ? AND project_id = 'p1' AND status = 'open'", org)
		i, err = st.ListInvoices(ctx, org, store.InvoiceQuery{PageRequest: page, ListFilter: store.ListFilter{OnlyProjects: only}})
		total(org+" invoices of some projects", i.Total, err, "SELECT count(*) FROM invoices WHERE org_id = ? AND project_id IN ('p1', 'p3', 'nope')", org)
		i, err = st.ListInvoices(ctx, org, store.InvoiceQuery{PageRequest: page, ListFilter: store.ListFilter{OnlyProjects: []string{""}}})
		total(org+" invoices of project \"\"", i.Total, err, "SELECT 0") // never the retainer invoices
	}
}

// TestCountsStayExact writes to the item tables in every way a portal
// can, through the store and in plain SQL (inserts, updates that move an
// item to another status or project, deletes, a deleted project's
// cascade, batches, a rolled-back transaction, TRUNCATE, a deleted
// organization, the migration run again), and checks after each that
// item_counts, and so every list's total, is what count(*) says.
func TestCountsStayExact(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db := migrated(t)
	st := bunstore.New(db)
	exec := func(query string, args ...any) {
		t.Helper()
		_, err := db.ExecContext(ctx, query, args...)
		is.NoErr(err)
	}

	exec(`INSERT INTO organizations (id, plan) VALUES ('org_a', 'growth'), ('org_b', 'starter')`)
	exec(`INSERT INTO projects (org_id, id, status, updated_at)
		SELECT o, 'p' || g, (ARRAY['planned', 'in_progress', 'on_hold', 'completed', 'cancelled'])[1 + g % 5], now()
		FROM unnest(ARRAY['org_a', 'org_b']) AS o, generate_series(1, 6) AS g`)
	exec(`INSERT INTO milestones (org_id, id, project_id, status, due_at)
		SELECT o, 'm' || g, 'p' || (1 + g % 4), (ARRAY['pending', 'in_progress', 'completed'])[1 + g % 3], now()
		FROM unnest(ARRAY['org_a', 'org_b']) AS o, generate_series(1, 60) AS g`)
	exec(`INSERT INTO deliverables (org_id, id, project_id, status, created_at, updated_at)
		SELECT o, 'd' || g, 'p' || (1 + g % 5), (ARRAY['pending', 'in_review', 'approved', 'rejected'])[1 + g % 4], now(), now()
		FROM unnest(ARRAY['org_a', 'org_b']) AS o, generate_series(1, 80) AS g`)
	exec(`INSERT INTO invoices (org_id, id, project_id, status, currency, total, amount_due, issued_at, due_at)
		SELECT o, 'i' || g, CASE WHEN g % 3 = 0 THEN NULL ELSE 'p' || (1 + g % 6) END,
			(ARRAY['draft', 'open', 'paid', 'void'])[1 + g % 4], 'EUR', 1, 1, now(), now()
		FROM unnest(ARRAY['org_a', 'org_b']) AS o, generate_series(1, 120) AS g`)
	checkCounts(t, db, "inserted")

	exec(`UPDATE invoices SET status = 'paid' WHERE org_id = 'org_a' AND status = 'open'`)
	exec(`UPDATE invoices SET project_id = 'p2' WHERE org_id = 'org_a' AND project_id = 'p1'`)
	exec(`UPDATE invoices SET project_id = NULL, status = 'void' WHERE org_id = 'org_a' AND id IN ('i4', 'i5', 'i7')`)
	exec(`UPDATE invoices SET project_id = 'p3' WHERE project_id IS NULL AND id IN ('i3', 'i6')`)
	exec(`UPDATE invoices SET number = 'renamed' WHERE org_id = 'org_b'`) // moves no count
	exec(`UPDATE milestones SET project_id = 'p1', status = 'completed' WHERE org_id = 'org_a' AND project_id = 'p2'`)
	exec(`UPDATE deliverables SET status = CASE status WHEN 'approved' THEN 'rejected' ELSE 'approved' END WHERE org_id = 'org_b'`)
	exec(`UPDATE projects SET status = 'completed' WHERE id IN ('p1', 'p2')`)
	checkCounts(t, db, "updated")

	exec(`DELETE FROM invoices WHERE org_id = 'org_a' AND status = 'paid'`)
	exec(`DELETE FROM deliverables WHERE project_id = 'p5'`)
	exec(`DELETE FROM milestones WHERE org_id = 'org_b' AND id IN ('m1', 'm2', 'm3')`)
	checkCounts(t, db, "deleted")

	// A project's milestones and deliverables go with it, and its invoices
	// move to no project: in plain SQL and through the store.
	exec(`DELETE FROM projects WHERE org_id = 'org_a' AND id = 'p2'`)
	is.NoErr(st.DeleteProject(ctx, "org_b", "p3"))
	checkCounts(t, db, "cascaded")

	// A batch of more than a thousand, in one transaction: new invoices,
	// and existing ones moved to another status and project.
	day := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	var batch []store.Invoice
	for k := range 2500 {
		inv := store.Invoice{ID: fmt.Sprintf("i%d", k), OrgID: "org_a", Number: "B", Status: store.InvoiceOpen, Currency: "EUR", IssuedAt: day, DueAt: day}
		if k%2 == 0 {
			p := "p3"
			inv.ProjectID = &p
		}
		batch = append(batch, inv)
	}
	is.NoErr(st.PutInvoices(ctx, batch))
	checkCounts(t, db, "batch put")
	is.NoErr(st.PutInvoices(ctx, batch)) // changes nothing
	checkCounts(t, db, "batch put again")

	// A transaction rolled back takes its counts with it.
	tx, err := db.BeginTx(ctx, nil)
	is.NoErr(err)
	_, err = tx.ExecContext(ctx, `DELETE FROM invoices WHERE org_id = 'org_a'`)
	is.NoErr(err)
	_, err = tx.ExecContext(ctx, `INSERT INTO invoices (org_id, id, status, currency, total, amount_due, issued_at, due_at)
		VALUES ('org_b', 'x1', 'draft', 'EUR', 1, 1, now(), now())`)
	is.NoErr(err)
	is.NoErr(tx.Rollback())
	checkCounts(t, db, "rolled back")

	exec(`TRUNCATE invoices CASCADE`) // and the threads about them
	checkCounts(t, db, "invoices truncated")
	exec(`INSERT INTO invoices (org_id, id, project_id, status, currency, total, amount_due, issued_at, due_at)
		SELECT 'org_a', 'i' || g, 'p3', 'open', 'EUR', 1, 1, now(), now() FROM generate_series(1, 5) AS g`)
	exec(`TRUNCATE projects CASCADE`) // milestones, deliverables, invoices, threads too
	checkCounts(t, db, "projects truncated")

	exec(`INSERT INTO projects (org_id, id, status, updated_at)
		SELECT o, 'p' || g, 'planned', now() FROM unnest(ARRAY['org_a', 'org_b']) AS o, generate_series(1, 3) AS g`)
	exec(`INSERT INTO invoices (org_id, id, project_id, status, currency, total, amount_due, issued_at, due_at)
		SELECT o, 'i' || g, CASE WHEN g % 2 = 0 THEN 'p1' END, 'open', 'EUR', 1, 1, now(), now()
		FROM unnest(ARRAY['org_a', 'org_b']) AS o, generate_series(1, 10) AS g`)
	exec(`DELETE FROM organizations WHERE id = 'org_b'`)
	checkCounts(t, db, "organization deleted")
	var left int
	is.NoErr(db.NewRaw("SELECT count(*) FROM ("+counts+") AS c WHERE org_id = 'org_b'").Scan(ctx, &left))
	is.Equal(left, 0) // a deleted organization leaves no counts

	// Counts put wrong (as writes without triggers would leave them) are
	// put right by the migration run again.
	exec(`UPDATE item_counts SET n = n + 7 WHERE kind = 'invoice'`)
	exec(`INSERT INTO item_counts (org_id, kind, status, project_id, n) VALUES ('gone', 'invoice', 'open', '', 3)`)
	exec(migration(t, db, "20260901000001_counts.tx.up.sql"))
	exec(migration(t, db, "20261001000003_lockfree.tx.up.sql"))
	checkCounts(t, db, "migrated again")
}

// TestCountsConcurrentWriters runs writers of the same organization at
// once, each in transactions of several statements that move its own
// invoices between statuses and projects (and so the same counts as the
// others') in orders of their own, and checks that none deadlocks and the
// counts come out exact. Writers of one organization that wrote the same
// items in different orders could deadlock on the items themselves; these
// may only meet on the counts and the data version log, whose rows they
// only insert, and fold under FOR UPDATE SKIP LOCKED
// (20261001000003_lockfree).
func TestCountsConcurrentWriters(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db := migrated(t)
	_, err := db.ExecContext(ctx, `INSERT INTO organizations (id, plan) VALUES ('org_a', 'growth'), ('org_b', 'growth');
		INSERT INTO projects (org_id, id, status, updated_at)
		SELECT o, 'p' || g, 'planned', now() FROM unnest(ARRAY['org_a', 'org_b']) AS o, generate_series(1, 3) AS g`)
	is.NoErr(err)
	st := bunstore.New(db)
	statuses := []store.InvoiceStatus{store.InvoiceDraft, store.InvoiceOpen, store.InvoicePaid, store.InvoiceVoid}
	day := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	const writers, rounds = 6, 15
	errs := make(chan error, writers)
	for w := range writers {
		go func() {
			errs <- func() error {
				for r := range rounds {
					org := []string{"org_a", "org_b"}[r%2]
					tx, err := db.BeginTx(ctx, nil)
					if err != nil {
						return err
					}
					in := st.WithTx(tx)
					for k := range 4 {
						// Writers go through the statuses in different
						// orders.
						status := statuses[(w+r+k)%len(statuses)]
						if w%2 == 1 {
							status = statuses[(len(statuses)*8-w-r-k)%len(statuses)]
						}
						var batch []store.Invoice
						for n := range 5 {
							inv := store.Invoice{ID: fmt.Sprintf("w%d-i%d", w, (r*3+k+n)%12), OrgID: org,
								Status: status, Currency: "EUR", IssuedAt: day, DueAt: day}
							if n%3 != 0 {
								p := fmt.Sprintf("p%d", 1+(w+k+n)%3)
								inv.ProjectID = &p
							}
							batch = append(batch, inv)
						}
						if err := in.PutInvoices(ctx, batch); err != nil {
							_ = tx.Rollback()
							return err
						}
					}
					if err := in.DeleteInvoice(ctx, org, fmt.Sprintf("w%d-i%d", w, r%12)); err != nil && !errors.Is(err, store.ErrNotFound) {
						_ = tx.Rollback()
						return err
					}
					if err := tx.Commit(); err != nil {
						return err
					}
				}
				return nil
			}()
		}()
	}
	for range writers {
		is.NoErr(<-errs) // no deadlock, no failure
	}
	checkCounts(t, db, "written concurrently")
}
