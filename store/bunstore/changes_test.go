package bunstore_test

import (
	"testing"
	"time"

	"github.com/matryer/is"
	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/store"
	"github.com/clientstatus/clientstatus/store/bunstore"
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

			before := dbNow(t, db)
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
			is.True(changed.After(created)) // a changed field moves it, whatever the item says
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
	is.True(p1.Before(p3) && p3.Before(p2)) // one write after the other
	// Two projects written by one statement share its time.
	_, err := db.ExecContext(ctx, "INSERT INTO projects (org_id, id, name, status) VALUES ('org_a', 'p5', 'Five', 'planned'), ('org_a', 'p4', 'Four', 'on_hold')")
	is.NoErr(err)
	p4, err := st.GetProject(ctx, "org_a", "p4")
	is.NoErr(err)
	p5, err := st.GetProject(ctx, "org_a", "p5")
	is.NoErr(err)
	is.Equal(p4.UpdatedAt, p5.UpdatedAt)
	p1again := put("p1", store.ProjectInProgress, "Site v2")

	ids, total := list(store.ProjectQuery{UpdatedSince: p3})
	is.Equal(ids, []string{"p3", "p2", "p4", "p5", "p1"}) // by UpdatedAt, then id; at p3's time is included
	is.Equal(total, 5)
	ids, total = list(store.ProjectQuery{UpdatedSince: p3.Add(time.Microsecond)})
	is.Equal(ids, []string{"p2", "p4", "p5", "p1"}) // after p3's time: p3 is out
	is.Equal(total, 4)
	ids, total = list(store.ProjectQuery{UpdatedSince: p3, Status: store.ProjectOnHold})
	is.Equal(ids, []string{"p2", "p4"}) // with the status filter
	is.Equal(total, 2)
	ids, total = list(store.ProjectQuery{UpdatedSince: p1again.Add(time.Microsecond)})
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

	before := dbNow(t, db)
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
	is.True(updatedAt().After(inserted)) // a change moves it, whatever the statement says

	_, err = db.ExecContext(ctx, "UPDATE projects SET id = 'p3' WHERE id = 'p2'")
	is.Equal(pgCode(err), "23514") // an id does not change: a client would see neither the old go nor the new come
}
