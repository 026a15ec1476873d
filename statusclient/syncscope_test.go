package statusclient_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/statusclient"
	"github.com/clientstatus/clientstatus/store"
)

// TestSyncOutOfScope syncs with a key that may not read invoices nor
// threads: Sync keeps what it may read, passes over the rest without
// failing, remembers it, and asks no more until its next full load.
func TestSyncOutOfScope(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	f := newChangeAPI(t0)
	f.denied = []string{"/v1/invoices", "/v1/threads", "/v1/messages"}
	c := syncServer(t, f)
	seed(f)
	var r statusclient.Replica
	st, err := c.Sync(ctx, &r)
	is.NoErr(err) // no failure on the first route outside the scopes
	is.True(st.Full)
	is.Equal(st.OutOfScope, []string{"invoices", "messages", "threads"})
	is.Equal(r.Cursor.OutOfScope, st.OutOfScope) // remembered
	is.Equal(len(r.Invoices)+len(r.Threads)+len(r.Messages), 0)

	for i := range 2 {
		f.tick(time.Minute)
		m := f.milestones["m2"]
		m.Name = strings.Repeat("!", i+1)
		f.put(m)
		f.del(statusclient.DeletionDeliverable, []string{"d1", "d2"}[i])
		f.requestLog()
		st, err = c.Sync(ctx, &r)
		is.NoErr(err)
		is.True(!st.Full)
		is.Equal(st.OutOfScope, []string{"invoices", "messages", "threads"})
		log := strings.Join(f.requestLog(), " ")
		is.True(!strings.Contains(log, "/v1/invoices") && !strings.Contains(log, "/v1/threads") && !strings.Contains(log, "/v1/messages")) // not asked again
		f.mu.Lock()
		is.Equal(r.Projects, f.projects)         // what it may read, exactly
		is.Equal(r.Milestones, f.milestones)     // with the change
		is.Equal(r.Deliverables, f.deliverables) // and the deletion
		f.mu.Unlock()
	}
}

// TestSyncRestrictedKeyOnTheHandler syncs through the real handler with
// restricted keys: one without invoices:read and threads:read, which
// syncs the projects, milestones and deliverables and passes over the
// rest; one restricted to a project, which syncs that project's items
// only, and sees the deletion of its deliverable.
func TestSyncRestrictedKeyOnTheHandler(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	a := newRealAPI(t)
	full := a.org(t, "org_a", store.PlanEnterprise)
	day := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	p1 := "p1"
	for _, err := range []error{
		a.st.PutProject(ctx, store.Project{ID: "p1", OrgID: "org_a", Name: "Site", Status: store.ProjectInProgress}),
		a.st.PutProject(ctx, store.Project{ID: "p2", OrgID: "org_a", Name: "App", Status: store.ProjectPlanned}),
		a.st.PutMilestone(ctx, store.Milestone{ID: "m1", OrgID: "org_a", ProjectID: "p1", Name: "Design", Status: store.MilestonePending, DueAt: day}),
		a.st.PutMilestone(ctx, store.Milestone{ID: "m2", OrgID: "org_a", ProjectID: "p2", Name: "Beta", Status: store.MilestonePending, DueAt: day}),
		a.st.PutDeliverable(ctx, store.Deliverable{ID: "d1", OrgID: "org_a", ProjectID: "p1", Name: "Logo", Status: store.DeliverablePending, CreatedAt: day}),
		a.st.PutDeliverable(ctx, store.Deliverable{ID: "d2", OrgID: "org_a", ProjectID: "p2", Name: "Build", Status: store.DeliverablePending, CreatedAt: day}),
		a.st.PutInvoice(ctx, store.Invoice{ID: "i1", OrgID: "org_a", Number: "1", ProjectID: &p1, Status: store.InvoiceOpen, Currency: "EUR", IssuedAt: day, DueAt: day}),
		a.st.PutInvoice(ctx, store.Invoice{ID: "i2", OrgID: "org_a", Number: "2", Status: store.InvoiceOpen, Currency: "EUR", IssuedAt: day, DueAt: day}),
	} {
		is.NoErr(err)
	}
	mint := func(name string, rs auth.Restriction) *statusclient.Client {
		key, _, err := a.keys.MintRestricted(ctx, "org_a", name, nil, rs)
		is.NoErr(err)
		return statusclient.New(a.srv.URL+"/api/v1", key)
	}
	scoped := mint("no invoices", auth.Restriction{Scopes: []auth.Scope{auth.ScopeProjects, auth.ScopeDeliverables}})
	onlyP1 := mint("p1 only", auth.Restriction{ProjectIDs: []string{"p1"}})

	var all, rs, rp statusclient.Replica
	for step := range 2 {
		for _, sync := range []struct {
			c   *statusclient.Client
			r   *statusclient.Replica
			out []string
		}{{full, &all, nil}, {scoped, &rs, []string{"invoices", "messages", "threads"}}, {onlyP1, &rp, nil}} {
			st, err := sync.c.Sync(ctx, sync.r)
			is.NoErr(err)                     // a restricted key syncs
			is.Equal(st.Full, step == 0)      // and keeps its cursor
			is.Equal(st.OutOfScope, sync.out) // what it passed over
			is.Equal(sync.r.Cursor.OutOfScope, sync.out)
		}
		is.Equal(rs.Projects, all.Projects) // the scopes it has, in full
		is.Equal(rs.Milestones, all.Milestones)
		is.Equal(rs.Deliverables, all.Deliverables)
		is.Equal(len(rs.Invoices), 0) // none of the others
		is.Equal(ids(rp.Projects), []string{"p1"})
		is.Equal(ids(rp.Milestones), []string{"m1"})
		is.Equal(ids(rp.Invoices), []string{"i1"}) // not the retainer invoice
		if step == 0 {
			is.Equal(ids(rp.Deliverables), []string{"d1"})
			is.Equal(len(rs.Deliverables), 2)
			is.NoErr(a.st.DeleteDeliverable(ctx, "org_a", "d1"))
			is.NoErr(a.st.DeleteDeliverable(ctx, "org_a", "d2"))
		}
	}
	is.Equal(len(rp.Deliverables), 0) // the deletion reached the restricted replicas
	is.Equal(len(rs.Deliverables), 0)
}

// ids returns the sorted keys of m.
func ids[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for id := range m {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}
