package statusmcp_test

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clientstatus/clientstatus/internal/test/apitest"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/statusmcp"
	"github.com/clientstatus/clientstatus/store"
)

// BenchmarkToolCall compares list_projects through /v1/mcp with GET
// /v1/projects, the route it runs, on the same data and key.
func BenchmarkToolCall(b *testing.B) {
	r, _ := newMemoryRig(b)
	b.Run("route", func(b *testing.B) {
		for b.Loop() {
			if res := get(r.h, r.key("a"), "/v1/projects"); res.Code != http.StatusOK {
				b.Fatal(res.Code)
			}
		}
	})
	b.Run("tool", func(b *testing.B) {
		for b.Loop() {
			if res := call(b, r.h, r.key("a"), "list_projects", map[string]any{}); res.IsError {
				b.Fatal(res.Content)
			}
		}
	})
	b.Run("tools_list", func(b *testing.B) {
		for b.Loop() {
			post(r.h, r.key("a"), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		}
	})
}

// countingStore counts the store's list reads and version reads.
type countingStore struct {
	store.Store
	lists, versions atomic.Int64
}

func (s *countingStore) ListProjects(ctx context.Context, org string, q store.ProjectQuery) (store.Page[store.Project], error) {
	s.lists.Add(1)
	return s.Store.ListProjects(ctx, org, q)
}
func (s *countingStore) ListMilestones(ctx context.Context, org, p string, q store.MilestoneQuery) (store.Page[store.Milestone], error) {
	s.lists.Add(1)
	return s.Store.ListMilestones(ctx, org, p, q)
}
func (s *countingStore) ListAllMilestones(ctx context.Context, org string, q store.AllMilestoneQuery) (store.Page[store.Milestone], error) {
	s.lists.Add(1)
	return s.Store.ListAllMilestones(ctx, org, q)
}
func (s *countingStore) ListDeliverables(ctx context.Context, org string, q store.DeliverableQuery) (store.Page[store.Deliverable], error) {
	s.lists.Add(1)
	return s.Store.ListDeliverables(ctx, org, q)
}
func (s *countingStore) ListInvoices(ctx context.Context, org string, q store.InvoiceQuery) (store.Page[store.Invoice], error) {
	s.lists.Add(1)
	return s.Store.ListInvoices(ctx, org, q)
}
func (s *countingStore) ListThreads(ctx context.Context, org string, q store.ThreadQuery) (store.Page[store.Thread], error) {
	s.lists.Add(1)
	return s.Store.ListThreads(ctx, org, q)
}
func (s *countingStore) DataVersion(ctx context.Context, org string) (int64, error) {
	s.versions.Add(1)
	return s.Store.DataVersion(ctx, org)
}

// BenchmarkStatusSummary200Projects measures status_summary for an
// organization of 200 projects of 3 milestones each, and reports the
// store reads of one call (cold cache, then warm).
func BenchmarkStatusSummary200Projects(b *testing.B) {
	var cs *countingStore
	a := apitest.New(b,
		apitest.WithStoreWrapper(func(s store.Store) store.Store { cs = &countingStore{Store: s}; return cs }),
		apitest.WithHandlerOptions(statusapi.WithMCP(statusmcp.Handler(statusmcp.WithClock(func() time.Time { return now })))))
	a.Org("org_big", store.PlanEnterprise)
	key := a.Mint("big", "org_big")
	ctx := context.Background()
	for i := range 200 {
		p := fmt.Sprintf("p%03d", i)
		if err := a.Store.PutProject(ctx, store.Project{ID: p, OrgID: "org_big", Name: p, Status: store.ProjectInProgress}); err != nil {
			b.Fatal(err)
		}
		for j := range 3 {
			m := store.Milestone{ID: fmt.Sprintf("%s_m%d", p, j), OrgID: "org_big", ProjectID: p, Name: "m", Status: store.MilestonePending, DueAt: now.Add(time.Duration(j-1) * 24 * time.Hour)}
			if err := a.Store.PutMilestone(ctx, m); err != nil {
				b.Fatal(err)
			}
		}
	}
	summary := func() {
		if res := call(b, a.Handler, key, "status_summary", map[string]any{}); res.IsError {
			b.Fatal(res.Content)
		}
	}
	cs.lists.Store(0)
	cs.versions.Store(0)
	summary()
	cold := cs.lists.Load()
	cs.lists.Store(0)
	cs.versions.Store(0)
	summary()
	warm, versions := cs.lists.Load(), cs.versions.Load()
	b.ResetTimer() // which also drops metrics reported before it
	for b.Loop() {
		summary()
	}
	b.ReportMetric(float64(cold), "cold-list-reads")
	b.ReportMetric(float64(warm), "warm-list-reads")
	b.ReportMetric(float64(versions), "warm-version-reads")
}
