package bunstore_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"
	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/store"
)

// dbNow is the database's clock, the store's.
func dbNow(t *testing.T, db bun.IDB) time.Time {
	t.Helper()
	var now time.Time
	if err := db.NewRaw("SELECT clock_timestamp()").Scan(ctx, &now); err != nil {
		t.Fatalf("clock_timestamp: %v", err)
	}
	return now.UTC()
}

var (
	longAgo = time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	someday = time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)
)

// withOrgAndProject returns a store on a fresh schema with organization
// org_a and its project p1.
func withOrgAndProject(t *testing.T) (*bun.DB, *bunstore.Store) {
	t.Helper()
	db := migrated(t)
	st := bunstore.New(db)
	if err := st.PutOrganization(ctx, store.Organization{ID: "org_a", Plan: store.PlanGrowth}); err != nil {
		t.Fatal(err)
	}
	if err := st.PutProject(ctx, store.Project{ID: "p1", OrgID: "org_a", Name: "Site", Status: store.ProjectInProgress}); err != nil {
		t.Fatal(err)
	}
	return db, st
}

// TestUpdatedAtIsTheStores checks, for every kind of item, that UpdatedAt
// is the database's time of the write that changed the item, whatever the
// item put says, and that a write that changes nothing keeps it.
func TestUpdatedAtIsTheStores(t *testing.T) {
	t.Parallel()
	day := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		// put writes the item, named or not, with that UpdatedAt.
		put func(st *bunstore.Store, named bool, at time.Time) error
		// get reads its UpdatedAt.
		get func(st *bunstore.Store) (time.Time, error)
	}{
		{"project", func(st *bunstore.Store, named bool, at time.Time) error {
			p := store.Project{ID: "p2", OrgID: "org_a", Name: "Old", Status: store.ProjectPlanned, StartedAt: &day, UpdatedAt: at}
			if named {
				p.Name = "New"
			}
			return st.PutProject(ctx, p)
		}, func(st *bunstore.Store) (time.Time, error) {
			p, err := st.GetProject(ctx, "org_a", "p2")
			return p.UpdatedAt, err
		}},
		{"milestone", func(st *bunstore.Store, named bool, at time.Time) error {
			m := store.Milestone{ID: "m1", OrgID: "org_a", ProjectID: "p1", Name: "Old", Status: store.MilestonePending, DueAt: day, UpdatedAt: at}
			if named {
				m.Name = "New"
			}
			return st.PutMilestone(ctx, m)
		}, func(st *bunstore.Store) (time.Time, error) {
			page, err := st.ListMilestones(ctx, "org_a", "p1", store.MilestoneQuery{PageRequest: store.PageRequest{Page: 1, Limit: 10}})
			if err != nil || len(page.Items) != 1 {
				return time.Time{}, err
			}
			return page.Items[0].UpdatedAt, nil
		}},
		{"deliverable", func(st *bunstore.Store, named bool, at time.Time) error {
			d := store.Deliverable{ID: "d1", OrgID: "org_a", ProjectID: "p1", Name: "Old", Status: store.DeliverablePending, CreatedAt: day, UpdatedAt: at}
			if named {
				d.Name = "New"
			}
			return st.PutDeliverable(ctx, d)
		}, func(st *bunstore.Store) (time.Time, error) {
			d, err := st.GetDeliverable(ctx, "org_a", "d1")
			return d.UpdatedAt, err
		}},
		{"invoice", func(st *bunstore.Store, named bool, at time.Time) error {
			i := store.Invoice{ID: "i1", OrgID: "org_a", Number: "Old", Status: store.InvoiceOpen, Currency: "EUR", Total: 1, AmountDue: 1, IssuedAt: day, DueAt: day, UpdatedAt: at}
			if named {
				i.Number = "New"
			}
			return st.PutInvoice(ctx, i)
		}, func(st *bunstore.Store) (time.Time, error) {
			page, err := st.ListInvoices(ctx, "org_a", store.InvoiceQuery{PageRequest: store.PageRequest{Page: 1, Limit: 10}})
			if err != nil || len(page.Items) != 1 {
				return time.Time{}, err
			}
			return page.Items[0].UpdatedAt, nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			is := is.New(t)
			db, st := withOrgAndProject(t)

			before := dbNow(t, db).Truncate(time.Second) // stamps are whole seconds
			is.NoErr(tt.put(st, false, longAgo))
			created, err := tt.get(st)
			is.NoErr(err)
			is.True(!created.Before(before) && !created.After(dbNow(t, db))) // set by the database on insert, not taken from the item
			is.Equal(created.Location(), time.UTC)                           // and returned in UTC

			is.NoErr(tt.put(st, false, someday))
			kept, err := tt.get(st)
			is.NoErr(err)
			is.Equal(kept, created) // the same item again, another UpdatedAt: nothing changed

			is.NoErr(tt.put(st, true, longAgo))
			changed, err := tt.get(st)
			is.NoErr(err)
			is.True(!changed.Before(created) && !changed.After(dbNow(t, db))) // a changed field stamps it anew (whole seconds: maybe the same one), whatever the item says
		})
	}
}

// TestUpdatedSince checks that a list with UpdatedSince holds the items
// changed at or after it, oldest change first, then by id, with its total,
// and with the other filters.
func TestUpdatedSince(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db, st := withOrgAndProject(t)
	put := func(id string, status store.ProjectStatus, name string) time.Time {
		is.NoErr(st.PutProject(ctx, store.Project{ID: id, OrgID: "org_a", Name: name, Status: status}))
		p, err := st.GetProject(ctx, "org_a", id)
		is.NoErr(err)
		return p.UpdatedAt
	}
	list := func(q store.ProjectQuery) ([]string, int) {
		q.PageRequest = store.PageRequest{Page: 1, Limit: 10}
		page, err := st.ListProjects(ctx, "org_a", q)
		is.NoErr(err)
		var ids []string
		for _, p := range page.Items {
			ids = append(ids, p.ID)
		}
		return ids, page.Total
	}

	p1 := put("p1", store.ProjectInProgress, "Site") // as withOrgAndProject put it: unchanged
	p3 := put("p3", store.ProjectPlanned, "Three")
	p2 := put("p2", store.ProjectOnHold, "Two")
	is.True(!p1.After(p3) && !p3.After(p2)) // one write after the other (whole seconds: maybe the same)
	// Two projects written by one statement share its time.
	_, err := db.ExecContext(ctx, "INSERT INTO projects (org_id, id, name, status) VALUES ('org_a', 'p5', 'Five', 'planned'), ('org_a', 'p4', 'Four', 'on_hold')")
	is.NoErr(err)
	p4, err := st.GetProject(ctx, "org_a", "p4")
	is.NoErr(err)
	p5, err := st.GetProject(ctx, "org_a", "p5")
	is.NoErr(err)
	is.Equal(p4.UpdatedAt, p5.UpdatedAt)
	p1again := put("p1", store.ProjectInProgress, "Site v2")

	// The order is by the stamps, whole seconds that the writes above may
	// share, then by id: what is expected follows from the stamps.
	stamps := map[string]time.Time{"p1": p1again, "p2": p2, "p3": p3, "p4": p4.UpdatedAt, "p5": p5.UpdatedAt}
	expect := func(since time.Time) []string {
		var out []string
		for id, at := range stamps {
			if !at.Before(since) {
				out = append(out, id)
			}
		}
		slices.SortFunc(out, func(a, b string) int {
			if c := stamps[a].Compare(stamps[b]); c != 0 {
				return c
			}
			return strings.Compare(a, b)
		})
		return out
	}
	ids, total := list(store.ProjectQuery{ListFilter: store.ListFilter{UpdatedSince: p3}})
	is.Equal(ids, expect(p3)) // by UpdatedAt, then id; at p3's time is included
	is.Equal(total, 5)
	ids, total = list(store.ProjectQuery{ListFilter: store.ListFilter{UpdatedSince: p3.Add(time.Microsecond)}})
	is.Equal(ids, expect(p3.Add(time.Microsecond))) // after p3's time: p3 is out
	is.Equal(total, len(ids))
	ids, total = list(store.ProjectQuery{Status: store.ProjectOnHold, ListFilter: store.ListFilter{UpdatedSince: p3}})
	is.Equal(ids, slices.DeleteFunc(expect(p3), func(id string) bool { return id != "p2" && id != "p4" })) // with the status filter
	is.Equal(total, 2)
	ids, total = list(store.ProjectQuery{ListFilter: store.ListFilter{UpdatedSince: p1again.Add(time.Microsecond)}})
	is.Equal(len(ids), 0) // nothing changed since
	is.Equal(total, 0)
	ids, _ = list(store.ProjectQuery{})
	is.Equal(ids, []string{"p1", "p2", "p3", "p4", "p5"}) // without UpdatedSince, the list's own order (none started: by id)
}

// TestPlainSQLWrites checks that a portal writing the store's tables in
// plain SQL keeps the same promises: updated_at is the database's on
// insert and on a change, kept otherwise, and ids do not change.
func TestPlainSQLWrites(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db, st := withOrgAndProject(t)
	updatedAt := func() time.Time {
		p, err := st.GetProject(ctx, "org_a", "p2")
		is.NoErr(err)
		return p.UpdatedAt
	}

	before := dbNow(t, db).Truncate(time.Second) // stamps are whole seconds
	_, err := db.ExecContext(ctx, "INSERT INTO projects (org_id, id, name, status, updated_at) VALUES ('org_a', 'p2', 'Two', 'planned', ?)", longAgo)
	is.NoErr(err)
	inserted := updatedAt()
	is.True(!inserted.Before(before)) // an insert gets the database's time, not the one given

	_, err = db.ExecContext(ctx, "UPDATE projects SET updated_at = ? WHERE id = 'p2'", someday)
	is.NoErr(err)
	is.Equal(updatedAt(), inserted) // an update of updated_at alone changes nothing
	_, err = db.ExecContext(ctx, "UPDATE projects SET status = status WHERE id = 'p2'")
	is.NoErr(err)
	is.Equal(updatedAt(), inserted) // nor does one that writes the same values

	_, err = db.ExecContext(ctx, "UPDATE projects SET name = 'Two v2', updated_at = ? WHERE id = 'p2'", longAgo)
	is.NoErr(err)
	is.True(!updatedAt().Before(inserted) && updatedAt().After(longAgo)) // a change stamps it anew (whole seconds: maybe the same one), whatever the statement says

	_, err = db.ExecContext(ctx, "UPDATE projects SET id = 'p3' WHERE id = 'p2'")
	is.Equal(pgCode(err), "23514") // an id does not change: a client would see neither the old go nor the new come
}

// deletionsSince returns the organization's deletion records since then,
// as "kind id project".
func deletionsSince(t *testing.T, st *bunstore.Store, org string, since time.Time) ([]string, error) {
	t.Helper()
	page, err := st.ListDeletions(ctx, org, store.DeletionQuery{PageRequest: store.PageRequest{Page: 1, Limit: 100}, Since: since})
	out := []string{}
	for _, d := range page.Items {
		out = append(out, string(d.Kind)+" "+d.ID+" "+d.ProjectID)
	}
	return out, err
}

// TestPlainSQLDeletes checks that a portal deleting rows of the store's
// tables in plain SQL gets the store's cascades and deletion records.
func TestPlainSQLDeletes(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db, st := withOrgAndProject(t)
	day := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	p1 := "p1"
	is.NoErr(st.PutMilestone(ctx, store.Milestone{ID: "m1", OrgID: "org_a", ProjectID: "p1", Status: store.MilestonePending, DueAt: day}))
	is.NoErr(st.PutInvoice(ctx, store.Invoice{ID: "i1", OrgID: "org_a", ProjectID: &p1, Status: store.InvoiceOpen, Currency: "EUR", IssuedAt: day, DueAt: day}))
	i1, err := st.ListInvoices(ctx, "org_a", store.InvoiceQuery{PageRequest: store.PageRequest{Page: 1, Limit: 1}})
	is.NoErr(err)
	since := dbNow(t, db).Truncate(time.Second) // stamps are whole seconds

	_, err = db.ExecContext(ctx, "DELETE FROM projects WHERE org_id = 'org_a' AND id = 'p1'")
	is.NoErr(err) // the milestone goes with it, the invoice stays
	got, err := deletionsSince(t, st, "org_a", since)
	is.NoErr(err)
	is.Equal(got, []string{"milestone m1 p1", "project p1 p1"}) // both recorded, in one instant, by kind
	inv, err := st.ListInvoices(ctx, "org_a", store.InvoiceQuery{PageRequest: store.PageRequest{Page: 1, Limit: 1}})
	is.NoErr(err)
	is.True(inv.Items[0].ProjectID == nil)                         // the invoice lost its project
	is.True(!inv.Items[0].UpdatedAt.Before(i1.Items[0].UpdatedAt)) // and that is a change, stamped anew (whole seconds: maybe the same one)
	_, err = db.ExecContext(ctx, "DELETE FROM invoices WHERE org_id = 'org_a'")
	is.NoErr(err)
	got, err = deletionsSince(t, st, "org_a", since)
	is.NoErr(err)
	slices.Sort(got)                                                           // by kind when in one second (the contract's tie-break); a later second sorts last
	is.Equal(got, []string{"invoice i1 ", "milestone m1 p1", "project p1 p1"}) // a retainer invoice by then: no project

	_, err = db.ExecContext(ctx, "INSERT INTO projects (org_id, id, name, status) VALUES ('org_a', 'p1', 'Again', 'planned')")
	is.NoErr(err)
	got, err = deletionsSince(t, st, "org_a", since)
	is.NoErr(err)
	slices.Sort(got)                                          // by kind when in one second, as the contract orders them
	is.Equal(got, []string{"invoice i1 ", "milestone m1 p1"}) // putting it again drops its record
}

// TestDeleteOrganizationTakesKeysAndRecords checks that deleting an
// organization removes its keys and its deletion records, and records
// nothing for the items that go with it.
func TestDeleteOrganizationTakesKeysAndRecords(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db, st := withOrgAndProject(t)
	since := dbNow(t, db).Truncate(time.Second) // stamps are whole seconds
	is.NoErr(st.PutProject(ctx, store.Project{ID: "p2", OrgID: "org_a", Status: store.ProjectPlanned}))
	is.NoErr(st.DeleteProject(ctx, "org_a", "p2"))
	is.NoErr(st.CreateKey(ctx, auth.Key{ID: "k1", OrgID: "org_a", Hash: "h1", CreatedAt: since}))

	is.NoErr(st.DeleteOrganization(ctx, "org_a"))
	_, _, err := st.LookupKey(ctx, "h1")
	is.True(errors.Is(err, auth.ErrInvalidKey)) // its keys are gone
	var records int
	is.NoErr(db.NewRaw("SELECT count(*) FROM deletions").Scan(ctx, &records))
	is.Equal(records, 0) // and so are its deletion records, old and new
	err = st.DeleteOrganization(ctx, "org_a")
	is.True(errors.Is(err, store.ErrNotFound)) // gone is gone

	is.NoErr(st.PutOrganization(ctx, store.Organization{ID: "org_a", Plan: store.PlanStarter}))
	got, err := deletionsSince(t, st, "org_a", since)
	is.NoErr(err)
	is.Equal(got, []string{}) // a new organization of that id starts with no records
}

// TestDeleteInATransaction checks that a delete through WithTx commits or
// rolls back, record included, with the caller's transaction.
func TestDeleteInATransaction(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db, st := withOrgAndProject(t)
	since := dbNow(t, db).Truncate(time.Second) // stamps are whole seconds
	tx, err := db.BeginTx(ctx, nil)
	is.NoErr(err)
	is.NoErr(st.WithTx(tx).DeleteProject(ctx, "org_a", "p1"))
	is.NoErr(tx.Rollback())
	_, err = st.GetProject(ctx, "org_a", "p1")
	is.NoErr(err) // rolled back: still there
	got, err := deletionsSince(t, st, "org_a", since)
	is.NoErr(err)
	is.Equal(got, []string{}) // and not recorded
}

// TestDeletionsHorizon checks that since may go back as far as the later
// of now - store.DeletionRetention and when the schema began recording,
// and no further.
func TestDeletionsHorizon(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db, st := withOrgAndProject(t)
	var began time.Time
	is.NoErr(db.NewRaw("SELECT recording_since FROM sync_horizon").Scan(ctx, &began))
	_, err := deletionsSince(t, st, "org_a", began)
	is.NoErr(err) // since the schema began recording: known
	_, err = deletionsSince(t, st, "org_a", began.Truncate(time.Second))
	is.NoErr(err) // from the whole second it began in: clients give whole seconds
	_, err = deletionsSince(t, st, "org_a", began.Truncate(time.Second).Add(-time.Microsecond))
	is.True(errors.Is(err, store.ErrSinceTooOld)) // before it: too old

	// A schema recording for 40 days: the retention is the horizon.
	_, err = db.ExecContext(ctx, "UPDATE sync_horizon SET recording_since = now() - interval '40 days'")
	is.NoErr(err)
	now := dbNow(t, db)
	_, err = deletionsSince(t, st, "org_a", now.Add(-store.DeletionRetention).Add(time.Minute))
	is.NoErr(err) // within the retention: known
	_, err = deletionsSince(t, st, "org_a", now.Add(-store.DeletionRetention).Add(-time.Minute))
	is.True(errors.Is(err, store.ErrSinceTooOld)) // beyond it: too old
	_, err = deletionsSince(t, st, "org_unknown", time.Time{})
	is.True(errors.Is(err, store.ErrSinceTooOld)) // the zero time too, for any organization
}

// TestDeletionsPruned checks that records older than the retention and a
// day go, at most 1,000 per deleting statement, while younger ones stay.
func TestDeletionsPruned(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db, st := withOrgAndProject(t)
	// 1,500 records 32 days old, 10 of 30.5 days, of another organization.
	_, err := db.ExecContext(ctx, `INSERT INTO deletions (org_id, kind, id, deleted_at)
		SELECT 'org_x', 'invoice', 'old' || g, now() - interval '32 days' FROM generate_series(1, 1500) AS g
		UNION ALL
		SELECT 'org_x', 'invoice', 'kept' || g, now() - interval '30 days 12 hours' FROM generate_series(1, 10) AS g`)
	is.NoErr(err)
	count := func(prefix string) (n int) {
		is.NoErr(db.NewRaw("SELECT count(*) FROM deletions WHERE id LIKE ?", prefix+"%").Scan(ctx, &n))
		return n
	}
	for _, id := range []string{"m1", "m2"} {
		is.NoErr(st.PutMilestone(ctx, store.Milestone{ID: id, OrgID: "org_a", ProjectID: "p1", Status: store.MilestonePending, DueAt: longAgo}))
	}

	is.NoErr(st.DeleteMilestone(ctx, "org_a", "m1"))
	is.Equal(count("old"), 500) // a delete prunes 1,000
	is.NoErr(st.DeleteMilestone(ctx, "org_a", "m2"))
	is.Equal(count("old"), 0)   // the next the rest
	is.Equal(count("kept"), 10) // records within the retention and a day stay
	is.Equal(count("m"), 2)     // and so do the new ones
}
