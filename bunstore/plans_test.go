package bunstore_test

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"
	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/store"
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

// scans returns the scans of a page query's plan: those of the page, and
// those under an Aggregate, the count's.
func (n planNode) scans() (page, count []planNode) {
	var walk func(planNode, bool)
	walk = func(n planNode, counting bool) {
		counting = counting || n.NodeType == "Aggregate"
		if strings.Contains(n.NodeType, "Scan") {
			if counting {
				count = append(count, n)
			} else {
				page = append(page, n)
			}
		}
		for _, c := range n.Plans {
			walk(c, counting)
		}
	}
	walk(n, false)
	return page, count
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
// organization read), and that a page and its total take one round trip,
// a page past the end too. So do the same shapes with UpdatedSince,
// through the changes index of the shape (updated_at after the filters),
// entered at the organization and the time.
//
// The page walks the index in the list's order and stops at its limit.
// Without UpdatedSince, the total is a sum of the rows of item_counts for
// the filter, read through its primary key from the organization on, and
// the list's table is not read for it; with UpdatedSince, it is a count of
// its own that the shape's changes index answers, alone where the
// visibility map allows (an index-only scan: the tables are vacuumed,
// though a concurrent test's transaction can keep VACUUM from setting it).
// A list without UpdatedSince may read the changes index of its shape,
// which has the same columns first. A milestone list's empty page takes a
// second round trip, which checks that the project exists.
func TestListQueries(t *testing.T) {
	t.Parallel()
	db := migrated(t, bunstore.WithStatementTimeout(time.Minute)) // for seeding, with the triggers
	seed(t, db, "other", 200, 100)
	seed(t, db, "caller", 1, 100)
	// The calling organization's rows change after the others'.
	var since time.Time
	is.New(t).NoErr(db.NewRaw("SELECT date_trunc('second', statement_timestamp())").Scan(ctx, &since)) // stamps are whole seconds
	for _, table := range []string{"projects", "milestones", "deliverables", "invoices"} {
		_, err := db.ExecContext(ctx, "UPDATE ? SET name = name WHERE org_id = 'caller_0'", bun.Ident(table))
		if table == "invoices" {
			_, err = db.ExecContext(ctx, "UPDATE invoices SET number = number || '.1' WHERE org_id = 'caller_0'")
		} else if err == nil {
			_, err = db.ExecContext(ctx, "UPDATE ? SET name = name || ' (changed)' WHERE org_id = 'caller_0'", bun.Ident(table))
		}
		is.New(t).NoErr(err)
	}
	_, err := db.ExecContext(ctx, "VACUUM "+analyzeTables) // this schema's tables only: others' test data is not ours to wait for
	is.New(t).NoErr(err)
	rec := &recorder{}
	db = db.WithQueryHook(rec)
	// On a bun.Conn, the store runs Bun's queries, which the recorder
	// sees; on the *bun.DB, a page of invoices is a statement prepared on
	// pgx instead, whose plans TestPreparedListPlans checks.
	conn, err := db.Conn(ctx)
	is.New(t).NoErr(err)
	t.Cleanup(func() { conn.Close() })
	st := bunstore.New(conn)
	const org = "caller_0"

	first := store.PageRequest{Page: 1, Limit: 20}
	past := store.PageRequest{Page: 50, Limit: 20}
	tests := []struct {
		name  string
		index string // of the page query
		run   func(store.PageRequest, time.Time) (int, error)
	}{
		{"projects", "projects_list", func(r store.PageRequest, since time.Time) (int, error) {
			p, err := st.ListProjects(ctx, org, store.ProjectQuery{PageRequest: r, ListFilter: store.ListFilter{UpdatedSince: since}})
			return len(p.Items), err
		}},
		{"projects by status", "projects_list_status", func(r store.PageRequest, since time.Time) (int, error) {
			p, err := st.ListProjects(ctx, org, store.ProjectQuery{PageRequest: r, Status: store.ProjectOnHold, ListFilter: store.ListFilter{UpdatedSince: since}})
			return len(p.Items), err
		}},
		{"milestones", "milestones_list", func(r store.PageRequest, since time.Time) (int, error) {
			p, err := st.ListMilestones(ctx, org, "p3", store.MilestoneQuery{PageRequest: store.PageRequest{Page: r.Page, Limit: 5}, ListFilter: store.ListFilter{UpdatedSince: since}})
			return len(p.Items), err
		}},
		{"milestones by status", "milestones_list_status", func(r store.PageRequest, since time.Time) (int, error) {
			p, err := st.ListMilestones(ctx, org, "p3", store.MilestoneQuery{PageRequest: store.PageRequest{Page: r.Page, Limit: 2}, Status: store.MilestoneCompleted, ListFilter: store.ListFilter{UpdatedSince: since}})
			return len(p.Items), err
		}},
		{"deliverables", "deliverables_list", func(r store.PageRequest, since time.Time) (int, error) {
			p, err := st.ListDeliverables(ctx, org, store.DeliverableQuery{PageRequest: r, ListFilter: store.ListFilter{UpdatedSince: since}})
			return len(p.Items), err
		}},
		{"deliverables by status", "deliverables_list_status", func(r store.PageRequest, since time.Time) (int, error) {
			p, err := st.ListDeliverables(ctx, org, store.DeliverableQuery{PageRequest: r, Status: store.DeliverableApproved, ListFilter: store.ListFilter{UpdatedSince: since}})
			return len(p.Items), err
		}},
		{"deliverables by project", "deliverables_list_project", func(r store.PageRequest, since time.Time) (int, error) {
			p, err := st.ListDeliverables(ctx, org, store.DeliverableQuery{PageRequest: store.PageRequest{Page: r.Page, Limit: 5}, ListFilter: store.ListFilter{ProjectID: "p3", UpdatedSince: since}})
			return len(p.Items), err
		}},
		{"deliverables by project and status", "deliverables_list_project_status", func(r store.PageRequest, since time.Time) (int, error) {
			p, err := st.ListDeliverables(ctx, org, store.DeliverableQuery{PageRequest: store.PageRequest{Page: r.Page, Limit: 2}, Status: store.DeliverableInReview, ListFilter: store.ListFilter{ProjectID: "p3", UpdatedSince: since}})
			return len(p.Items), err
		}},
		{"invoices", "invoices_list", func(r store.PageRequest, since time.Time) (int, error) {
			p, err := st.ListInvoices(ctx, org, store.InvoiceQuery{PageRequest: r, ListFilter: store.ListFilter{UpdatedSince: since}})
			return len(p.Items), err
		}},
		{"invoices by status", "invoices_list_status", func(r store.PageRequest, since time.Time) (int, error) {
			p, err := st.ListInvoices(ctx, org, store.InvoiceQuery{PageRequest: r, Status: store.InvoicePaid, ListFilter: store.ListFilter{UpdatedSince: since}})
			return len(p.Items), err
		}},
		{"invoices by project", "invoices_list_project", func(r store.PageRequest, since time.Time) (int, error) {
			p, err := st.ListInvoices(ctx, org, store.InvoiceQuery{PageRequest: store.PageRequest{Page: r.Page, Limit: 5}, ListFilter: store.ListFilter{ProjectID: "p3", UpdatedSince: since}})
			return len(p.Items), err
		}},
		{"invoices by project and status", "invoices_list_project_status", func(r store.PageRequest, since time.Time) (int, error) {
			p, err := st.ListInvoices(ctx, org, store.InvoiceQuery{PageRequest: store.PageRequest{Page: r.Page, Limit: 2}, Status: store.InvoicePaid, ListFilter: store.ListFilter{ProjectID: "p4", UpdatedSince: since}})
			return len(p.Items), err
		}},
	}
	for _, tt := range tests {
		changes := strings.Replace(tt.index, "_list", "_changes", 1)
		for _, since := range []time.Time{{}, since} {
			name := tt.name
			if !since.IsZero() {
				name += " changed"
			}
			t.Run(name, func(t *testing.T) {
				is := is.New(t)
				n, err := tt.run(first, since)
				is.NoErr(err)
				is.True(n > 0) // the first page has items
				queries := rec.take()
				rounds := 1
				if !since.IsZero() {
					rounds = 2 // SyncedThrough first, in a statement of its own (synced.go)
				}
				is.Equal(len(queries), rounds) // a page with items and its total: one round trip

				page, count := explain(t, db, queries[len(queries)-1]).scans()
				var index, cond string
				for _, n := range page {
					if n.IndexName != "" { // not a Bitmap Heap Scan, which reads the table where its index says
						is.Equal(index, "") // the page reads one index
						index, cond = n.IndexName, n.IndexCond
						t.Logf("page: %s on %s: %s", n.NodeType, index, cond)
					}
				}
				if since.IsZero() {
					is.True(index == tt.index || index == changes) // the list shape's own index (or its twin)
				} else {
					is.Equal(index, changes)                           // the shape's changes index
					is.True(strings.Contains(cond, "(updated_at >= ")) // entered at the time too
				}
				is.True(len(count) > 0) // the count reads an index of its own (the checks below)
				for _, c := range count {
					// An index-only scan where the visibility map allows;
					// a concurrent transaction can keep VACUUM from setting
					// it, and the planner then reads the index and the table.
					t.Logf("count: %s on %s: %s", c.NodeType, c.IndexName, c.IndexCond)
					if c.IndexName == "" {
						continue // a Bitmap Heap Scan, reading where its index says
					}
					if since.IsZero() {
						is.Equal(c.IndexName, "item_counts_counts") // the total is summed from the counts
					} else {
						is.Equal(c.IndexName, changes) // the total counts the changed rows
					}
				}

				n, err = tt.run(past, since)
				is.NoErr(err)
				is.Equal(n, 0) // a page past the end is empty
				past := rec.take()
				if strings.HasPrefix(tt.name, "milestones") {
					is.Equal(len(past), rounds+1) // and takes one round trip, and one that checks the project
				} else {
					is.Equal(len(past), rounds) // and takes one round trip too
				}
				queries = append(queries, past...)

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
}

// TestListDeletionsQuery checks, among 200,000 deletion records of other
// organizations, that ListDeletions reads its index from the organization
// on, counts the total from an index alone, and answers a page in one
// round trip, past the end too.
func TestListDeletionsQuery(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db := migrated(t, bunstore.WithStatementTimeout(time.Minute)) // for seeding
	_, err := db.ExecContext(ctx, `
		UPDATE sync_horizon SET recording_since = now() - interval '10 days';
		INSERT INTO deletions (org_id, kind, id, project_id, deleted_at)
		SELECT 'other_' || (g % 2000), (ARRAY['project', 'milestone', 'deliverable', 'invoice'])[1 + g % 4], 'x' || g, 'p1',
			now() - (g % 1000) * interval '1 minute'
		FROM generate_series(0, 199999) AS g;
		INSERT INTO deletions (org_id, kind, id, project_id, deleted_at)
		SELECT 'caller_0', (ARRAY['project', 'milestone', 'deliverable', 'invoice'])[1 + g % 4], 'x' || g, 'p1',
			now() - (g % 1000) * interval '1 minute'
		FROM generate_series(0, 99) AS g`)
	is.NoErr(err)
	_, err = db.ExecContext(ctx, "VACUUM ANALYZE deletions") // the visibility map, for the count's index-only scan
	is.NoErr(err)
	since := dbNow(t, db).Add(-24 * time.Hour)
	rec := &recorder{}
	db = db.WithQueryHook(rec)
	st := bunstore.New(db)

	for _, tt := range []struct {
		kind  store.Kind
		index string
	}{{"", "deletions_list"}, {store.KindMilestone, "deletions_list_kind"}} {
		t.Run("kind "+string(tt.kind), func(t *testing.T) {
			is := is.New(t)
			page, err := st.ListDeletions(ctx, "caller_0", store.DeletionQuery{PageRequest: store.PageRequest{Page: 1, Limit: 20}, Since: since, Kind: tt.kind})
			is.NoErr(err)
			is.True(len(page.Items) > 0) // the first page has records
			queries := rec.take()
			is.Equal(len(queries), 2) // SyncedThrough, then a page and its total: one round trip
			plan := explain(t, db, queries[1])
			plan.walk(func(n planNode) {
				if n.Relation == "deletions" || n.IndexName != "" {
					t.Logf("%s on %s: %s", n.NodeType, n.IndexName, n.IndexCond)
					if n.NodeType == "Bitmap Heap Scan" {
						return // of the count, reading where its Bitmap Index Scan says
					}
					is.True(strings.Contains(n.NodeType, "Index"))                        // no scan of the whole table
					is.True(strings.Contains(n.IndexCond, "(org_id = 'caller_0'::text)")) // entered at the organization
				}
			})
			var pageIndex, countScan string
			pageScans, count := plan.scans()
			for _, n := range pageScans {
				if n.Relation == "deletions" {
					pageIndex = n.IndexName
				}
			}
			for _, n := range count {
				countScan = n.NodeType
			}
			is.Equal(pageIndex, tt.index)  // the page reads the shape's own index
			t.Logf("count: %s", countScan) // an index-only scan, where the visibility map allows

			page, err = st.ListDeletions(ctx, "caller_0", store.DeletionQuery{PageRequest: store.PageRequest{Page: 50, Limit: 20}, Since: since, Kind: tt.kind})
			is.NoErr(err)
			is.Equal(len(page.Items), 0) // a page past the end
			is.True(page.Total > 0)      // with the true total
			is.Equal(len(rec.take()), 2) // in one round trip too, after SyncedThrough's (synced.go)
		})
	}
}

// TestPreparedListPlans checks the generic plans of the statements that a
// page of invoices is prepared as (prepared.go), as TestListQueries does
// Bun's queries': on tables where other organizations hold 200 times the
// calling one's rows, the page reads the index of its filter's shape, the
// total sums item_counts, the version data_version_log, and no scan reads
// a whole table. A generic plan
// is the one PostgreSQL may keep for a prepared statement, for any
// organization.
// enteredAtPage is the index condition of a read of a batch's page: the
// page's organization, or the subplan parameter that holds it.
var enteredAtPage = regexp.MustCompile(`\(org_id = (q\.org|\$0)\)`)

func TestPreparedListPlans(t *testing.T) {
	t.Parallel()
	db := migrated(t, bunstore.WithStatementTimeout(time.Minute))
	seed(t, db, "other", 200, 100)
	seed(t, db, "caller", 1, 100)
	_, err := db.ExecContext(ctx, "VACUUM "+analyzeTables)
	is.New(t).NoErr(err)
	st := bunstore.New(db)
	conn, err := db.DB.Conn(ctx)
	is.New(t).NoErr(err)
	defer conn.Close()
	_, err = conn.ExecContext(ctx, "SET plan_cache_mode = force_generic_plan")
	is.New(t).NoErr(err)
	for _, tt := range []struct {
		name            string
		status, project bool
		args            string
		index           string
	}{
		{"invoices", false, false, "'{caller_0,other_1}', '{20,100}', '{0,40}'", "invoices_list"},
		{"invoices by status", true, false, "'{caller_0}', '{20}', '{0}', '{paid}'", "invoices_list_status"},
		{"invoices by project", false, true, "'{caller_0}', '{20}', '{0}', '{p3}'", "invoices_list_project"},
		{"invoices by project and status", true, true, "'{caller_0}', '{20}', '{0}', '{paid}', '{p3}'", "invoices_list_project_status"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			name := strings.ReplaceAll(tt.name, " ", "_")
			_, err := conn.ExecContext(ctx, "PREPARE "+name+" AS "+bunstore.InvoiceListText(st, tt.status, tt.project))
			is.NoErr(err)
			var out string
			is.NoErr(conn.QueryRowContext(ctx, "EXPLAIN (FORMAT JSON) EXECUTE "+name+"("+tt.args+")").Scan(&out))
			var plans []struct{ Plan planNode }
			is.NoErr(json.Unmarshal([]byte(out), &plans))
			page, count := plans[0].Plan.scans()
			var index string
			for _, n := range page {
				if n.IndexName != "" {
					is.Equal(index, "") // the page reads one index
					index = n.IndexName
				}
			}
			changes := strings.Replace(tt.index, "_list", "_changes", 1)
			is.True(index == tt.index || index == changes) // the shape's own index (or its twin)
			is.True(len(count) > 0)
			versioned := false
			for _, c := range count {
				switch c.IndexName {
				case "", "item_counts_counts": // the total is summed from the counts
				case "data_version_log_org": // and the version from its log
					versioned = true
				default:
					t.Errorf("the total or the version reads %s", c.IndexName)
				}
			}
			is.True(versioned) // the version is read in the same statement
			plans[0].Plan.walk(func(n planNode) {
				if !strings.Contains(n.NodeType, "Scan") || n.NodeType == "Bitmap Heap Scan" || n.NodeType == "Function Scan" { // the batch's pages: unnest
					return
				}
				is.True(strings.Contains(n.NodeType, "Index")) // no scan of a whole table
				if !enteredAtPage.MatchString(n.IndexCond) {   // entered at each page's organization (a subplan's parameter for the version)
					t.Errorf("%s %s: %s", n.NodeType, n.IndexName, n.IndexCond)
				}
			})
		})
	}
}
