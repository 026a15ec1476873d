package memstore_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/internal/test/testenv"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/store"
	"github.com/clientstatus/clientstatus/storetest"
)

// TestMemoryConformance runs every part of the suite on a Store whose
// clock it moves (storetest.WithClock): its pauses between writes that
// must be dated apart (a second, the stamps' precision) take no real time.
func TestMemoryConformance(t *testing.T) {
	clock := testenv.NewClock(time.Now())
	storetest.Run(t, func(t *testing.T) storetest.Subject {
		return memstore.New(memstore.WithClock(clock.Now))
	}, storetest.WithClock(clock.Now, clock.Advance))
}

// BenchmarkMemoryListInvoices reads pages of an organization holding 10,000
// invoices (and a second organization holding as many).
func BenchmarkMemoryListInvoices(b *testing.B) {
	ctx := context.Background()
	st := memstore.New()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, org := range []string{"org_a", "org_b"} {
		if err := st.PutOrganization(ctx, store.Organization{ID: org, Name: org, Plan: "growth"}); err != nil {
			b.Fatal(err)
		}
		for p := range 10 {
			if err := st.PutProject(ctx, store.Project{ID: fmt.Sprint("p", p), OrgID: org, Name: "p", Status: store.ProjectInProgress}); err != nil {
				b.Fatal(err)
			}
		}
		for n := range 10_000 {
			i := store.Invoice{ID: fmt.Sprintf("i%05d", n), OrgID: org, Number: fmt.Sprint(n), Status: store.InvoiceStatuses[n%4],
				Currency: "USD", Total: 100, AmountDue: 100, IssuedAt: base.Add(time.Duration(n%5000) * time.Hour), DueAt: base}
			if n%3 > 0 {
				i.ProjectID = new(string)
				*i.ProjectID = fmt.Sprint("p", n%10)
			}
			if err := st.PutInvoice(ctx, i); err != nil {
				b.Fatal(err)
			}
		}
	}
	for _, bm := range []struct {
		name string
		q    store.InvoiceQuery
	}{
		{"first page", store.InvoiceQuery{PageRequest: store.PageRequest{Page: 1, Limit: 20}}},
		{"last page", store.InvoiceQuery{PageRequest: store.PageRequest{Page: 100, Limit: 100}}},
		{"status", store.InvoiceQuery{PageRequest: store.PageRequest{Page: 1, Limit: 20}, Status: store.InvoicePaid}},
		{"project and status", store.InvoiceQuery{PageRequest: store.PageRequest{Page: 3, Limit: 20}, Status: store.InvoiceOpen, ListFilter: store.ListFilter{ProjectID: "p4"}}},
		{"updated since, all changed (scan and sort)", store.InvoiceQuery{PageRequest: store.PageRequest{Page: 1, Limit: 20}, ListFilter: store.ListFilter{UpdatedSince: base}}},
	} {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if _, err := st.ListInvoices(ctx, "org_a", bm.q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkMemoryPutInvoice writes 10,000 invoices into an empty
// organization, newest last: the worst case for keeping lists ordered.
func BenchmarkMemoryPutInvoice(b *testing.B) {
	ctx := context.Background()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for range b.N {
		st := memstore.New()
		if err := st.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "a", Plan: "growth"}); err != nil {
			b.Fatal(err)
		}
		for n := range 10_000 {
			i := store.Invoice{ID: fmt.Sprintf("i%05d", n), OrgID: "org_a", Number: "n", Status: store.InvoiceOpen,
				Currency: "USD", IssuedAt: base.Add(time.Duration(n) * time.Minute), DueAt: base}
			if err := st.PutInvoice(ctx, i); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestMemoryPages checks what the conformance suite leaves to each store:
// empty pages are non-nil (they encode as []), far pages do not overflow,
// and impossible page requests are refused.
func TestMemoryPages(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	must(st.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "Acme", Plan: "starter"}))
	must(st.PutProject(ctx, store.Project{ID: "p1", OrgID: "org_a", Name: "Site", Status: store.ProjectPlanned}))

	tests := []struct {
		name      string
		org       string
		r         store.PageRequest
		wantErr   bool
		wantItems int
		wantTotal int
	}{
		{"first page", "org_a", store.PageRequest{Page: 1, Limit: 1}, false, 1, 1},
		{"past the end", "org_a", store.PageRequest{Page: 2, Limit: 1}, false, 0, 1},
		{"offset overflowing int", "org_a", store.PageRequest{Page: math.MaxInt, Limit: store.MaxLimit}, false, 0, 1},
		{"unknown organization", "org_x", store.PageRequest{Page: 1, Limit: 1}, false, 0, 0},
		{"page 0", "org_a", store.PageRequest{Page: 0, Limit: 1}, true, 0, 0},
		{"limit 0", "org_a", store.PageRequest{Page: 1, Limit: 0}, true, 0, 0},
		{"negative limit", "org_a", store.PageRequest{Page: 1, Limit: -5}, true, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			page, err := st.ListProjects(ctx, tt.org, store.ProjectQuery{PageRequest: tt.r})
			if tt.wantErr {
				is.True(errors.Is(err, store.ErrInvalid)) // an impossible page request is refused as invalid
				return
			}
			is.NoErr(err)
			is.True(page.Items != nil)              // an empty page is [] in JSON, not null
			is.Equal(len(page.Items), tt.wantItems) // items on the page
			is.Equal(page.Total, tt.wantTotal)      // total
		})
	}
}

// TestMemoryClock checks what the conformance suite cannot without the
// store's clock: times come from WithClock, truncated to the second in
// UTC, never go back, and deletion records are answered from the Store's
// creation and for DeletionRetention.
func TestMemoryClock(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	start := time.Date(2026, 3, 1, 9, 0, 0, 123456789, time.FixedZone("UTC-5", -5*60*60))
	clock := testenv.NewClock(start)
	st := memstore.New(memstore.WithClock(clock.Now))
	must(st.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "Acme", Plan: "starter"}))
	put := func(id, name string) store.Project {
		is.Helper()
		is.NoErr(st.PutProject(ctx, store.Project{ID: id, OrgID: "org_a", Name: name, Status: store.ProjectPlanned, UpdatedAt: start.Add(time.Hour)}))
		p, err := st.GetProject(ctx, "org_a", id)
		is.NoErr(err)
		return p
	}
	deletions := func(since time.Time) (store.Page[store.Deletion], error) {
		return st.ListDeletions(ctx, "org_a", store.DeletionQuery{PageRequest: store.PageRequest{Page: 1, Limit: 10}, Since: since})
	}

	created := time.Date(2026, 3, 1, 14, 0, 0, 0, time.UTC)
	p1 := put("p1", "Site")
	is.Equal(p1.UpdatedAt, created) // UpdatedAt is the clock's time, in UTC, truncated to the second

	clock.Set(start.Add(-time.Hour)) // the clock steps back
	p1 = put("p1", "Site v2")
	is.Equal(p1.UpdatedAt, created) // UpdatedAt never goes back
	p2 := put("p2", "App")
	is.Equal(p2.UpdatedAt, created) // a new item is not dated before an earlier change

	_, err := deletions(created.Truncate(time.Second).Add(-time.Microsecond))
	is.True(errors.Is(err, store.ErrSinceTooOld)) // since before the second the Memory was created in is too old
	_, err = deletions(created.Truncate(time.Second))
	is.NoErr(err) // that second is known: clients give whole seconds
	page, err := deletions(created)
	is.NoErr(err) // since the Memory was created is known
	is.Equal(page.Total, 0)
	is.Equal(page.SyncedThrough, created) // the current stamp second, which never went back

	clock.Set(start.Add(time.Minute))
	is.NoErr(st.DeleteProject(ctx, "org_a", "p2"))
	page, err = deletions(created)
	is.NoErr(err)
	is.Equal(page.Items, []store.Deletion{{Kind: store.KindProject, ID: "p2", ProjectID: "p2", DeletedAt: created.Add(time.Minute)}}) // a deletion is dated by the clock

	// Past DeletionRetention, records may go, and since before then is too
	// old even when they are still there.
	clock.Advance(store.DeletionRetention + time.Hour)
	_, err = deletions(created)
	is.True(errors.Is(err, store.ErrSinceTooOld)) // since older than DeletionRetention is too old
	is.NoErr(st.DeleteProject(ctx, "org_a", "p1"))
	recent := clock.Now().Add(-store.DeletionRetention).UTC().Truncate(time.Second)
	page, err = deletions(recent)
	is.NoErr(err)           // since DeletionRetention ago is known
	is.Equal(page.Total, 1) // only the recent deletion is left
	is.Equal(page.Items[0].ID, "p1")

	clock.Set(start) // the clock steps back again: what was pruned stays unknown
	_, err = deletions(created.Add(time.Minute))
	is.True(errors.Is(err, store.ErrSinceTooOld)) // since before pruned records is too old, whatever the clock says
}

// TestMemoryOptions checks the options policy: a nil option, or a nil
// clock, keeps the default.
func TestMemoryOptions(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	before := time.Now()
	st := memstore.New(nil, memstore.WithClock(nil))
	must(st.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "Acme", Plan: "starter"}))
	must(st.PutProject(ctx, store.Project{ID: "p1", OrgID: "org_a", Name: "Site", Status: store.ProjectPlanned}))
	p, err := st.GetProject(ctx, "org_a", "p1")
	is.NoErr(err)
	is.True(!p.UpdatedAt.Before(before.Truncate(time.Second))) // the default clock is time.Now
	is.True(!p.UpdatedAt.After(time.Now()))                    // the default clock is time.Now
}

// TestMemoryOnDeleteOrganization checks the hooks: called once per
// deleted organization, after it is gone, before it can be put again.
func TestMemoryOnDeleteOrganization(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	st := memstore.New()
	var called []string
	st.OnDeleteOrganization(func(orgID string) {
		_, err := st.Organization(ctx, orgID)
		is.True(errors.Is(err, store.ErrNotFound)) // the hook runs once the organization is gone
		called = append(called, orgID)
	})
	must(st.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "Acme", Plan: "starter"}))
	must(st.PutOrganization(ctx, store.Organization{ID: "org_b", Name: "Bolt", Plan: "starter"}))
	is.NoErr(st.DeleteOrganization(ctx, "org_a"))
	is.True(errors.Is(st.DeleteOrganization(ctx, "org_a"), store.ErrNotFound)) // an organization is deleted once
	is.Equal(called, []string{"org_a"})                                        // the hook is called once per deleted organization
}

// TestMemoryOnOrganizationChange checks the hooks: called once the new
// organization is stored, for a replacement that differs, and only then.
func TestMemoryOnOrganizationChange(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	st := memstore.New()
	var called []string
	st.OnOrganizationChange(func(orgID string) {
		o, err := st.Organization(ctx, orgID)
		is.NoErr(err)
		called = append(called, fmt.Sprintf("%s %t", orgID, o.RetainerActive)) // the hook sees the new organization
	})
	acme := store.Organization{ID: "org_a", Name: "Acme", Plan: "starter", RetainerActive: true, APIEnabled: true}
	must(st.PutOrganization(ctx, acme))
	must(st.PutOrganization(ctx, acme))
	is.Equal(called, []string(nil)) // neither a new organization nor an unchanged one is a change
	acme.RetainerActive = false
	must(st.PutOrganization(ctx, acme))
	acme.Plan = store.PlanGrowth
	must(st.PutOrganization(ctx, acme))
	is.Equal(called, []string{"org_a false", "org_a false"}) // once per change
}

// TestMemorySyncedThrough checks Page.SyncedThrough: the current stamp
// second on every list asked with UpdatedSince and every deletions page,
// zero on other lists, and no later write dated before it, even when the
// clock steps back.
func TestMemorySyncedThrough(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	start := time.Date(2026, 3, 1, 14, 0, 0, 700_000_000, time.UTC)
	clock := testenv.NewClock(start)
	st := memstore.New(memstore.WithClock(clock.Now))
	must(st.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "Acme", Plan: "starter"}))
	must(st.PutProject(ctx, store.Project{ID: "p1", OrgID: "org_a", Name: "Site", Status: store.ProjectPlanned}))
	all := store.PageRequest{Page: 1, Limit: 10}

	page, err := st.ListProjects(ctx, "org_a", store.ProjectQuery{PageRequest: all})
	is.NoErr(err)
	is.True(page.SyncedThrough.IsZero()) // no UpdatedSince: no SyncedThrough

	clock.Advance(time.Minute)
	since := start.Truncate(time.Second)
	page, err = st.ListProjects(ctx, "org_a", store.ProjectQuery{PageRequest: all, ListFilter: store.ListFilter{UpdatedSince: since}})
	is.NoErr(err)
	is.Equal(page.SyncedThrough, since.Add(time.Minute)) // the clock's second
	threads, err := st.ListMessages(ctx, "org_nobody", store.MessageQuery{PageRequest: all, ListFilter: store.ListFilter{UpdatedSince: since}})
	is.NoErr(err)
	is.Equal(threads.SyncedThrough, since.Add(time.Minute)) // on every list, even of an unknown organization

	clock.Set(start) // the clock steps back: no write is dated before what was answered
	must(st.PutProject(ctx, store.Project{ID: "p2", OrgID: "org_a", Name: "App", Status: store.ProjectPlanned}))
	p2, err := st.GetProject(ctx, "org_a", "p2")
	is.NoErr(err)
	is.True(!p2.UpdatedAt.Before(page.SyncedThrough)) // a later write is at or after SyncedThrough
	dels, err := st.ListDeletions(ctx, "org_a", store.DeletionQuery{PageRequest: all, Since: since})
	is.NoErr(err)
	is.Equal(dels.SyncedThrough, since.Add(time.Minute)) // never goes back either
}
