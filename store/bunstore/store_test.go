package bunstore_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/clientstatus/clientstatus/store"
	"github.com/clientstatus/clientstatus/store/bunstore"
	"github.com/clientstatus/clientstatus/store/storetest"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) storetest.Subject {
		return &givenTimes{Store: bunstore.New(migrated(t)), at: make(map[[3]string]time.Time)}
	})
}

// givenTimes is the conformance suite's Subject for as long as the suite
// expects UpdatedAt back as it was put: bunstore keeps its own (it is a
// store.Changes), so givenTimes hands back, as each item's UpdatedAt, the
// time last put for it, and the suite compares every other field. The
// store's own times are tested in changes_test.go. It goes when the
// suite's cases for store.Changes (branch memsync) are merged.
type givenTimes struct {
	*bunstore.Store
	mu sync.Mutex
	at map[[3]string]time.Time // by kind, organization and id
}

func (g *givenTimes) put(err error, kind, org, id string, at time.Time) error {
	if err == nil {
		g.mu.Lock()
		g.at[[3]string{kind, org, id}] = at.UTC()
		g.mu.Unlock()
	}
	return err
}

func (g *givenTimes) given(kind, org, id string) time.Time {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.at[[3]string{kind, org, id}]
}

func (g *givenTimes) PutProject(ctx context.Context, p store.Project) error {
	return g.put(g.Store.PutProject(ctx, p), "project", p.OrgID, p.ID, p.UpdatedAt)
}

func (g *givenTimes) PutMilestone(ctx context.Context, m store.Milestone) error {
	return g.put(g.Store.PutMilestone(ctx, m), "milestone", m.OrgID, m.ID, m.UpdatedAt)
}

func (g *givenTimes) PutDeliverable(ctx context.Context, d store.Deliverable) error {
	return g.put(g.Store.PutDeliverable(ctx, d), "deliverable", d.OrgID, d.ID, d.UpdatedAt)
}

func (g *givenTimes) PutInvoice(ctx context.Context, i store.Invoice) error {
	return g.put(g.Store.PutInvoice(ctx, i), "invoice", i.OrgID, i.ID, i.UpdatedAt)
}

func (g *givenTimes) GetProject(ctx context.Context, orgID, id string) (store.Project, error) {
	p, err := g.Store.GetProject(ctx, orgID, id)
	p.UpdatedAt = g.given("project", orgID, id)
	return p, err
}

func (g *givenTimes) GetDeliverable(ctx context.Context, orgID, id string) (store.Deliverable, error) {
	d, err := g.Store.GetDeliverable(ctx, orgID, id)
	d.UpdatedAt = g.given("deliverable", orgID, id)
	return d, err
}

func (g *givenTimes) ListProjects(ctx context.Context, orgID string, q store.ProjectQuery) (store.Page[store.Project], error) {
	page, err := g.Store.ListProjects(ctx, orgID, q)
	for i, p := range page.Items {
		page.Items[i].UpdatedAt = g.given("project", orgID, p.ID)
	}
	return page, err
}

func (g *givenTimes) ListMilestones(ctx context.Context, orgID, projectID string, q store.MilestoneQuery) (store.Page[store.Milestone], error) {
	page, err := g.Store.ListMilestones(ctx, orgID, projectID, q)
	for i, m := range page.Items {
		page.Items[i].UpdatedAt = g.given("milestone", orgID, m.ID)
	}
	return page, err
}

func (g *givenTimes) ListDeliverables(ctx context.Context, orgID string, q store.DeliverableQuery) (store.Page[store.Deliverable], error) {
	page, err := g.Store.ListDeliverables(ctx, orgID, q)
	for i, d := range page.Items {
		page.Items[i].UpdatedAt = g.given("deliverable", orgID, d.ID)
	}
	return page, err
}

func (g *givenTimes) ListInvoices(ctx context.Context, orgID string, q store.InvoiceQuery) (store.Page[store.Invoice], error) {
	page, err := g.Store.ListInvoices(ctx, orgID, q)
	for i, inv := range page.Items {
		page.Items[i].UpdatedAt = g.given("invoice", orgID, inv.ID)
	}
	return page, err
}
