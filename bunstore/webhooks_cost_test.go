package bunstore_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matryer/is"
	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/internal/test/testenv"
	"github.com/clientstatus/clientstatus/store"
	"github.com/clientstatus/clientstatus/webhook"
)

// transactions is a query hook that counts the transactions a pool
// runs: each BEGIN, and each statement run outside one (PostgreSQL runs
// it in a transaction of its own); by the statement's first words too.
type transactions struct {
	n      atomic.Int64
	mu     sync.Mutex
	byKind map[string]int
}

type inTx struct{}

func (c *transactions) BeforeQuery(ctx context.Context, e *bun.QueryEvent) context.Context {
	switch e.Query {
	case "BEGIN":
		c.count("BEGIN")
		return context.WithValue(ctx, inTx{}, true)
	case "COMMIT", "ROLLBACK":
		return ctx
	}
	if ctx.Value(inTx{}) == nil {
		c.count(kind(e.Query))
	}
	return ctx
}

func (c *transactions) AfterQuery(context.Context, *bun.QueryEvent) {}

func (c *transactions) count(k string) {
	c.n.Add(1)
	c.mu.Lock()
	c.byKind[k]++
	c.mu.Unlock()
}

// kind is the first words of a statement, to tell them apart.
func kind(q string) string {
	f := strings.Fields(q)
	return strings.Join(f[:min(4, len(f))], " ")
}

func (c *transactions) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var parts []string
	for k, n := range c.byKind {
		parts = append(parts, fmt.Sprintf("%d %s", n, k))
	}
	sort.Strings(parts)
	return strings.Join(parts, "; ")
}

// TestWebhookTransactionsPerDelivery counts the PostgreSQL transactions
// that two replicas' dispatchers run per healthy delivery: 20
// organizations with an endpoint each, invoices paid one commit at a
// time (each an invoice.updated and an invoice.paid), as perf/push.sh
// does. The dispatchers poll rarely, so that what is counted is the
// deliveries' cost.
func TestWebhookTransactionsPerDelivery(t *testing.T) {
	is := is.New(t)
	schema, dsn := newSchema(t)
	open := func(c *transactions) *bunstore.Store {
		db, err := bunstore.Open(ctx, withParams(dsn, map[string]string{"search_path": schema}))
		is.NoErr(err)
		t.Cleanup(func() { db.Close() })
		if c != nil {
			db = db.WithQueryHook(c)
		}
		return bunstore.New(db)
	}
	wdb, err := bunstore.Open(ctx, withParams(dsn, map[string]string{"search_path": schema}))
	is.NoErr(err)
	t.Cleanup(func() { wdb.Close() })
	is.NoErr(bunstore.Migrate(ctx, wdb))
	writer := bunstore.New(wdb)
	const orgs = 20
	commits := 60
	if v := os.Getenv("CLIENTSTATUS_WEBHOOK_COMMITS"); v != "" {
		fmt.Sscan(v, &commits)
	}
	var mu sync.Mutex
	got := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		got[r.URL.Path+" "+r.Header.Get("webhook-id")]++
		mu.Unlock()
		w.WriteHeader(204)
	}))
	t.Cleanup(srv.Close)
	eps := webhook.NewEndpoints(writer, writer, webhookKey, webhook.WithAllowLocal(true))
	issued := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for i := range orgs {
		org := fmt.Sprintf("org_%02d", i)
		is.NoErr(writer.PutOrganization(ctx, store.Organization{ID: org, Name: org, Plan: store.PlanStarter}))
		var invoices []store.Invoice
		for n := range commits/orgs + 1 {
			invoices = append(invoices, store.Invoice{ID: fmt.Sprintf("inv_%d", n), OrgID: org, Number: fmt.Sprint(n),
				Status: store.InvoiceOpen, Currency: "EUR", Total: 100, AmountDue: 100, IssuedAt: issued, DueAt: issued})
		}
		is.NoErr(writer.PutInvoices(ctx, invoices))
		_, _, err = eps.Create(ctx, org, webhook.Settings{URL: srv.URL + "/" + org})
		is.NoErr(err)
	}
	var counters []*transactions
	for range 2 {
		c := &transactions{byKind: map[string]int{}}
		st := open(c)
		d := webhook.NewDispatcher(st, st, webhookKey, webhook.WithAllowLocal(true), webhook.WithPollInterval(time.Hour),
			webhook.WithLeader(st))
		d.Start(ctx)
		t.Cleanup(func() { d.Stop(ctx) })
		counters = append(counters, c)
	}
	total := func() int64 { return counters[0].n.Load() + counters[1].n.Load() }
	// The first pass of each, which looks at every organization and
	// ends with a claim.
	testenv.Poll(t, time.Minute, func() error {
		for _, c := range counters {
			c.mu.Lock()
			claimed := c.byKind[`UPDATE "webhook_jobs" AS j`]
			c.mu.Unlock()
			if claimed == 0 {
				return fmt.Errorf("no first pass yet")
			}
		}
		return nil
	})
	before := total()
	for _, c := range counters {
		c.mu.Lock()
		clear(c.byKind)
		c.mu.Unlock()
	}
	// One commit at a time, the next once the last one's deliveries are
	// recorded: nothing is shared between commits, the dearest case.
	recorded := func(want int) func() error {
		return func() error {
			var n int
			if err := wdb.NewRaw("SELECT count(*) FROM webhook_deliveries").Scan(ctx, &n); err != nil {
				return err
			}
			if n < want {
				return fmt.Errorf("%d of %d deliveries recorded", n, want)
			}
			return nil
		}
	}
	start := time.Now()
	for n := range commits {
		org, inv := fmt.Sprintf("org_%02d", n%orgs), fmt.Sprintf("inv_%d", n/orgs)
		_, err := wdb.ExecContext(ctx, "UPDATE invoices SET status = 'paid', paid_at = now() WHERE org_id = ? AND id = ?", org, inv)
		is.NoErr(err)
		testenv.Poll(t, time.Minute, recorded(2*(n+1)))
	}
	deliveries := 2 * commits
	took := time.Since(start)
	spent := total() - before
	mu.Lock()
	distinct, dups := len(got), 0
	for _, n := range got {
		dups += n - 1
	}
	mu.Unlock()
	perDelivery := float64(spent) / float64(deliveries)
	t.Logf("%d deliveries (%d distinct, %d duplicates) of %d commits in %v by 2 replicas: %d transactions, %.1f per delivery",
		deliveries, distinct, dups, commits, took.Round(time.Millisecond), spent, perDelivery)
	for i, c := range counters {
		t.Logf("replica %d: %v", i, c)
	}
	is.Equal(distinct, deliveries) // every delivery arrived
	is.Equal(dups, 0)              // once
	is.True(perDelivery <= 4)      // the claim, the attempt's record, and a share of the queueing
}
