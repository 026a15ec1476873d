package bunstore_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/matryer/is"
	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/store"
	"github.com/clientstatus/clientstatus/store/bunstore"
)

// recorder is a Bun query hook that keeps the text of every query run.
type recorder struct {
	mu      sync.Mutex
	queries []string
}

func (r *recorder) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }

func (r *recorder) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.queries = append(r.queries, e.Query)
}

// take returns the queries run since the last call.
func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	q := r.queries
	r.queries = nil
	return q
}

// planNode is a node of EXPLAIN (FORMAT JSON)'s plan.
type planNode struct {
	NodeType  string     `json:"Node Type"`
	Relation  string     `json:"Relation Name"`
	IndexName string     `json:"Index Name"`
	IndexCond string     `json:"Index Cond"`
	Plans     []planNode `json:"Plans"`
}

func (n planNode) walk(f func(planNode)) {
	f(n)
	for _, c := range n.Plans {
		c.walk(f)
	}
}

func explain(t *testing.T, db *bun.DB, query string) planNode {
	t.Helper()
	var out string
	// Through database/sql, so that the recorder does not see it.
	if err := db.DB.QueryRowContext(ctx, "EXPLAIN (FORMAT JSON) "+query).Scan(&out); err != nil {
		t.Fatalf("explain %s: %v", query, err)
	}
	var plans []struct{ Plan planNode }
	if err := json.Unmarshal([]byte(out), &plans); err != nil || len(plans) != 1 {
		t.Fatalf("explain %s: %v", out, err)
	}
	return plans[0].Plan
}

// TestListQueries checks, on tables where other organizations have 200
// times the calling one's rows, that every list shape reads its own index,
// entered at the organization (no scan of a whole table, no row of another
// organization read), and that a page and its total take at most two round
// trips: one when the page has items.
//
// The planner may still sort: the total, count(*) OVER (), reads all the
// organization's matching rows anyway, and for a few of them a bitmap scan
// and a sort cost less than walking the index in order.
func TestListQueries(t *testing.T) {
	t.Parallel()
	db := migrated(t)
	seed(t, db, "other", 200, 100)
	seed(t, db, "caller", 1, 100)
	rec := &recorder{}
	db.AddQueryHook(rec)
	st := bunstore.New(db)
	const org = "caller_0"

	first := store.PageRequest{Page: 1, Limit: 20}
	past := store.PageRequest{Page: 50, Limit: 20}
	tests := []struct {
		name  string
		index string // of the page query
		run   func(store.PageRequest) (int, error)
	}{
		{"projects", "projects_list", func(r store.PageRequest) (int, error) {
			p, err := st.ListProjects(ctx, org, store.ProjectQuery{PageRequest: r})
			return len(p.Items), err
		}},
		{"projects by status", "projects_list_status", func(r store.PageRequest) (int, error) {
			p, err := st.ListProjects(ctx, org, store.ProjectQuery{PageRequest: r, Status: store.ProjectOnHold})
			return len(p.Items), err
		}},
		{"milestones", "milestones_list", func(r store.PageRequest) (int, error) {
			p, err := st.ListMilestones(ctx, org, "p3", store.MilestoneQuery{PageRequest: store.PageRequest{Page: r.Page, Limit: 5}})
			return len(p.Items), err
		}},
		{"milestones by status", "milestones_list_status", func(r store.PageRequest) (int, error) {
			p, err := st.ListMilestones(ctx, org, "p3", store.MilestoneQuery{PageRequest: store.PageRequest{Page: r.Page, Limit: 2}, Status: store.MilestoneCompleted})
			return len(p.Items), err
		}},
		{"deliverables", "deliverables_list", func(r store.PageRequest) (int, error) {
			p, err := st.ListDeliverables(ctx, org, store.DeliverableQuery{PageRequest: r})
			return len(p.Items), err
		}},
		{"deliverables by status", "deliverables_list_status", func(r store.PageRequest) (int, error) {
			p, err := st.ListDeliverables(ctx, org, store.DeliverableQuery{PageRequest: r, Status: store.DeliverableApproved})
			return len(p.Items), err
		}},
		{"deliverables by project", "deliverables_list_project", func(r store.PageRequest) (int, error) {
			p, err := st.ListDeliverables(ctx, org, store.DeliverableQuery{PageRequest: store.PageRequest{Page: r.Page, Limit: 5}, ProjectID: "p3"})
			return len(p.Items), err
		}},
		{"deliverables by project and status", "deliverables_list_project_status", func(r store.PageRequest) (int, error) {
			p, err := st.ListDeliverables(ctx, org, store.DeliverableQuery{PageRequest: store.PageRequest{Page: r.Page, Limit: 2}, ProjectID: "p3", Status: store.DeliverableInReview})
			return len(p.Items), err
		}},
		{"invoices", "invoices_list", func(r store.PageRequest) (int, error) {
			p, err := st.ListInvoices(ctx, org, store.InvoiceQuery{PageRequest: r})
			return len(p.Items), err
		}},
		{"invoices by status", "invoices_list_status", func(r store.PageRequest) (int, error) {
			p, err := st.ListInvoices(ctx, org, store.InvoiceQuery{PageRequest: r, Status: store.InvoicePaid})
			return len(p.Items), err
		}},
		{"invoices by project", "invoices_list_project", func(r store.PageRequest) (int, error) {
			p, err := st.ListInvoices(ctx, org, store.InvoiceQuery{PageRequest: store.PageRequest{Page: r.Page, Limit: 5}, ProjectID: "p3"})
			return len(p.Items), err
		}},
		{"invoices by project and status", "invoices_list_project_status", func(r store.PageRequest) (int, error) {
			p, err := st.ListInvoices(ctx, org, store.InvoiceQuery{PageRequest: store.PageRequest{Page: r.Page, Limit: 2}, ProjectID: "p4", Status: store.InvoicePaid})
			return len(p.Items), err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			n, err := tt.run(first)
			is.NoErr(err)
			is.True(n > 0) // the first page has items
			queries := rec.take()
			is.Equal(len(queries), 1) // a page with items and its total: one round trip

			var index string
			explain(t, db, queries[0]).walk(func(n planNode) {
				if n.IndexName != "" {
					index = n.IndexName
				}
			})
			is.Equal(index, tt.index) // the list shape's own index

			n, err = tt.run(past)
			is.NoErr(err)
			is.Equal(n, 0) // a page past the end is empty
			queries = append(queries, rec.take()...)
			is.True(len(queries) <= 3) // and takes two round trips

			for _, q := range queries {
				explain(t, db, q).walk(func(n planNode) {
					if !strings.Contains(n.NodeType, "Scan") || n.NodeType == "Bitmap Heap Scan" {
						return
					}
					is.True(strings.Contains(n.NodeType, "Index"))                       // no scan of a whole table
					is.True(strings.Contains(n.IndexCond, "(org_id = '"+org+"'::text)")) // only the calling organization's rows are read
				})
			}
		})
	}
}
