package statusclient_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/internal/test/apitest"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/statusclient"
	"github.com/clientstatus/clientstatus/store"
)

// syncStore is what the sync test writes through and the handler reads:
// a store that tracks changes and deletes.
type syncStore interface {
	store.Store
	store.Writer
	store.Deleter
	store.Organizations
}

// TestSyncKeepsAnExactCopyOnMemory runs the scripted sync test on the
// in-memory store (postgres_test.go runs it on PostgreSQL).
func TestSyncKeepsAnExactCopyOnMemory(t *testing.T) {
	m := memstore.New()
	testSyncExact(t, m, func(store.Organizations) *auth.MemoryKeyStore { return auth.NewMemoryKeyStore(m) })
}

// testSyncExact keeps a Replica with Client.Sync against the real handler
// on st while a script adds, edits and deletes (cascades included), and
// checks after each step that the replica equals what the API lists now,
// read in full by a fresh walk.
func testSyncExact[S syncStore, K auth.KeyStore](t *testing.T, st S, keyStore func(store.Organizations) K) {
	is := is.New(t)
	ctx := context.Background()
	keys := auth.NewKeys(keyStore(st))
	t.Cleanup(func() { _ = keys.Close() })
	srv := httptest.NewServer(apitest.Handler(st, keys, nil))
	t.Cleanup(srv.Close)
	is.NoErr(st.PutOrganization(ctx, store.Organization{ID: "org_sync", Name: "Sync", Plan: store.PlanEnterprise, RetainerActive: true, APIEnabled: true}))
	key, _, err := keys.Mint(ctx, "org_sync", "sync", nil)
	is.NoErr(err)
	c := statusclient.New(srv.URL+"/v1", key)

	day := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	project := func(id, name string) store.Project {
		return store.Project{ID: id, OrgID: "org_sync", Name: name, Status: store.ProjectInProgress, StartedAt: &day}
	}
	milestone := func(id, pid, name string) store.Milestone {
		return store.Milestone{ID: id, OrgID: "org_sync", ProjectID: pid, Name: name, Status: store.MilestonePending, DueAt: day.AddDate(0, 1, 0)}
	}
	deliverable := func(id, pid, name string) store.Deliverable {
		return store.Deliverable{ID: id, OrgID: "org_sync", ProjectID: pid, Name: name, Status: store.DeliverablePending, CreatedAt: day}
	}
	invoice := func(id string, pid *string, due int64) store.Invoice {
		return store.Invoice{ID: id, OrgID: "org_sync", Number: "N-" + id, ProjectID: pid, Status: store.InvoiceOpen, Currency: "EUR", Total: 1000, AmountDue: due, IssuedAt: day, DueAt: day.AddDate(0, 0, 30)}
	}
	p1, p2 := "p1", "p2"

	var r statusclient.Replica
	for _, step := range []struct {
		name  string
		write func() error
	}{
		{"first load", func() error {
			for _, err := range []error{
				st.PutProject(ctx, project("p1", "Site")), st.PutProject(ctx, project("p2", "App")),
				st.PutMilestone(ctx, milestone("m1", "p1", "Design")), st.PutMilestone(ctx, milestone("m2", "p2", "Beta")),
				st.PutDeliverable(ctx, deliverable("d1", "p1", "Logo")), st.PutDeliverable(ctx, deliverable("d2", "p2", "Build")),
				st.PutInvoice(ctx, invoice("i1", &p1, 1000)), st.PutInvoice(ctx, invoice("i2", &p2, 500)), st.PutInvoice(ctx, invoice("i3", nil, 0)),
			} {
				if err != nil {
					return err
				}
			}
			return nil
		}},
		{"nothing changed", func() error { return nil }},
		{"a put that changes nothing", func() error { return st.PutProject(ctx, project("p1", "Site")) }},
		{"an add", func() error { return st.PutProject(ctx, project("p3", "Shop")) }},
		{"an edit", func() error { return st.PutDeliverable(ctx, deliverable("d1", "p1", "Logo, final")) }},
		{"a milestone changes, its project does not", func() error { return st.PutMilestone(ctx, milestone("m1", "p1", "Design, signed off")) }},
		{"a delete", func() error { return st.DeleteInvoice(ctx, "org_sync", "i3") }},
		{"a project deleted with what it owns", func() error { return st.DeleteProject(ctx, "org_sync", "p2") }},
		{"an id put again", func() error { return st.PutProject(ctx, project("p2", "App, again")) }},
		{"several changes at once", func() error {
			for _, err := range []error{
				st.PutInvoice(ctx, invoice("i1", &p1, 0)), st.DeleteMilestone(ctx, "org_sync", "m1"),
				st.PutMilestone(ctx, milestone("m3", "p3", "Launch")), st.DeleteDeliverable(ctx, "org_sync", "d1"),
			} {
				if err != nil {
					return err
				}
			}
			return nil
		}},
	} {
		is.NoErr(step.write()) // the portal writes
		stats, err := c.Sync(ctx, &r)
		is.NoErr(err) // the client syncs
		want := walkAll(t, c)
		is.Equal(r.Projects, want.Projects)         // projects, exactly
		is.Equal(r.Milestones, want.Milestones)     // milestones, exactly
		is.Equal(r.Deliverables, want.Deliverables) // deliverables, exactly
		is.Equal(r.Invoices, want.Invoices)         // invoices, exactly
		t.Logf("%s: %+v", step.name, stats)
	}
	is.Equal(r.Invoices["i2"].ProjectID, nil) // the cascade: the invoice stays, without its project
}

// walkAll reads everything the API lists now, in full, without a replica.
func walkAll(t *testing.T, c *statusclient.Client) statusclient.Replica {
	t.Helper()
	ctx := context.Background()
	r := statusclient.Replica{
		Projects: map[string]statusclient.Project{}, Milestones: map[string]statusclient.Milestone{},
		Deliverables: map[string]statusclient.Deliverable{}, Invoices: map[string]statusclient.Invoice{},
	}
	for p, err := range c.AllProjects(ctx, statusclient.ProjectListOptions{}) {
		must(t, err)
		r.Projects[p.ID] = p
		for m, err := range c.AllMilestones(ctx, p.ID, statusclient.MilestoneListOptions{}) {
			must(t, err)
			r.Milestones[m.ID] = m
		}
	}
	for d, err := range c.AllDeliverables(ctx, statusclient.DeliverableListOptions{}) {
		must(t, err)
		r.Deliverables[d.ID] = d
	}
	for i, err := range c.AllInvoices(ctx, statusclient.InvoiceListOptions{}) {
		must(t, err)
		r.Invoices[i.ID] = i
	}
	return r
}

// TestFirstSyncCostsPagesNotProjects syncs 250 projects with two
// milestones each, through the real handler, with a page of 100: the
// milestones cost pages of /v1/milestones, not a request per project.
func TestFirstSyncCostsPagesNotProjects(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	st := memstore.New()
	keys := auth.NewKeys(auth.NewMemoryKeyStore(st))
	t.Cleanup(func() { _ = keys.Close() })
	srv := httptest.NewServer(apitest.Handler(st, keys, nil))
	t.Cleanup(srv.Close)
	is.NoErr(st.PutOrganization(ctx, store.Organization{ID: "org_many", Name: "Many", Plan: store.PlanEnterprise, RetainerActive: true, APIEnabled: true}))
	key, _, err := keys.Mint(ctx, "org_many", "sync", nil)
	is.NoErr(err)
	day := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	for i := range 250 {
		id := fmt.Sprintf("p%03d", i)
		is.NoErr(st.PutProject(ctx, store.Project{ID: id, OrgID: "org_many", Name: id, Status: store.ProjectInProgress}))
		for j := range 2 {
			is.NoErr(st.PutMilestone(ctx, store.Milestone{ID: fmt.Sprintf("m%03d-%d", i, j), OrgID: "org_many", ProjectID: id, Name: "M", Status: store.MilestonePending, DueAt: day}))
		}
	}
	var r statusclient.Replica
	s, err := statusclient.New(srv.URL+"/v1", key).Sync(ctx, &r)
	is.NoErr(err)
	is.Equal(len(r.Projects), 250)
	is.Equal(len(r.Milestones), 500)
	// projects 3 pages, milestones 5, deliverables, invoices, threads,
	// messages 1 each, the deletions 1, and a first request refused at
	// most: far from the 250 of a request per project.
	is.True(s.Requests <= 3+5+4+1+1) // requests grow with pages
}
