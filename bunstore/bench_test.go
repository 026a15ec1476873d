package bunstore_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/internal/test/testenv"
	"github.com/clientstatus/clientstatus/store"
)

// benchOthers is how many rows of each kind other organizations have in
// the crowded benchmark schema: 10,000 organizations of 100 rows each.
const benchOthers = 1_000_000

// benchCaller is the calling organization: 100 rows of each kind.
const benchCaller = "caller_0"

// bench holds the benchmark schemas, created once per run (seeding a
// million rows a table takes a while) and dropped by TestMain.
var bench struct {
	sync.Mutex
	admin   *bun.DB
	dbs     map[int]*bun.DB // by the number of other organizations' rows
	schemas []string
}

// TestMain drops the benchmark schemas, and says, even without -v, when
// tests skipped for want of PostgreSQL.
func TestMain(m *testing.M) {
	code := testenv.AfterRun(m.Run())
	if bench.admin != nil {
		for _, db := range bench.dbs {
			db.Close()
		}
		for _, schema := range bench.schemas {
			if _, err := bench.admin.ExecContext(context.Background(), "DROP SCHEMA IF EXISTS ? CASCADE", bun.Ident(schema)); err != nil {
				fmt.Fprintf(os.Stderr, "drop schema %s: %v\n", schema, err)
			}
		}
		bench.admin.Close()
	}
	os.Exit(code)
}

// benchStore returns a store on a schema where the calling organization
// has 100 rows of each kind and other organizations have others.
func benchStore(b *testing.B, others int) *bunstore.Store {
	b.Helper()
	bench.Lock()
	defer bench.Unlock()
	if db, ok := bench.dbs[others]; ok {
		return bunstore.New(db)
	}
	dsn := testenv.PostgresURL(b)
	if bench.admin == nil {
		admin, err := bunstore.Open(ctx, dsn)
		if err != nil {
			b.Fatalf("open: %v", err)
		}
		bench.admin = admin
		bench.dbs = make(map[int]*bun.DB)
	}
	r := make([]byte, 6)
	_, _ = rand.Read(r)
	schema := "bunstore_bench_" + hex.EncodeToString(r)
	if _, err := bench.admin.ExecContext(ctx, "CREATE SCHEMA ?", bun.Ident(schema)); err != nil {
		b.Fatalf("create schema: %v", err)
	}
	bench.schemas = append(bench.schemas, schema)
	db, err := bunstore.Open(ctx, withParams(dsn, map[string]string{"search_path": schema}),
		bunstore.WithStatementTimeout(time.Hour)) // for seeding
	if err != nil {
		b.Fatalf("open: %v", err)
	}
	bench.dbs[others] = db
	if err := bunstore.Migrate(ctx, db); err != nil {
		b.Fatalf("migrate: %v", err)
	}
	if others > 0 {
		seed(b, db, "other", others/100, 100)
	}
	seed(b, db, "caller", 1, 100)
	return bunstore.New(db)
}

// benchList runs list, a read of the calling organization's first page,
// alone in its tables and among benchOthers rows of other organizations.
func benchList(b *testing.B, list func(st *bunstore.Store) (int, error)) {
	for _, others := range []int{0, benchOthers} {
		b.Run(fmt.Sprintf("others=%d", others), func(b *testing.B) {
			st := benchStore(b, others)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				n, err := list(st)
				if err != nil || n == 0 {
					b.Fatalf("list: %d items, %v", n, err)
				}
			}
		})
	}
}

var benchPage = store.PageRequest{Page: 1, Limit: store.DefaultLimit}

func BenchmarkListProjects(b *testing.B) {
	benchList(b, func(st *bunstore.Store) (int, error) {
		p, err := st.ListProjects(ctx, benchCaller, store.ProjectQuery{PageRequest: benchPage})
		return len(p.Items), err
	})
}

func BenchmarkListMilestones(b *testing.B) {
	benchList(b, func(st *bunstore.Store) (int, error) {
		p, err := st.ListMilestones(ctx, benchCaller, "p3", store.MilestoneQuery{PageRequest: benchPage})
		return len(p.Items), err
	})
}

func BenchmarkListDeliverables(b *testing.B) {
	benchList(b, func(st *bunstore.Store) (int, error) {
		p, err := st.ListDeliverables(ctx, benchCaller, store.DeliverableQuery{PageRequest: benchPage})
		return len(p.Items), err
	})
}

func BenchmarkListInvoices(b *testing.B) {
	benchList(b, func(st *bunstore.Store) (int, error) {
		p, err := st.ListInvoices(ctx, benchCaller, store.InvoiceQuery{PageRequest: benchPage})
		return len(p.Items), err
	})
}

func BenchmarkListInvoicesByStatus(b *testing.B) {
	benchList(b, func(st *bunstore.Store) (int, error) {
		p, err := st.ListInvoices(ctx, benchCaller, store.InvoiceQuery{PageRequest: benchPage, Status: store.InvoicePaid})
		return len(p.Items), err
	})
}
