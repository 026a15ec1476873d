package statusapi_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"

	"github.com/matryer/is"
	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/internal/test/apitest"
	"github.com/clientstatus/clientstatus/internal/test/testenv"
	"github.com/clientstatus/clientstatus/store"
)

// TestCacheFreshOnPostgres runs two handlers, each with its own response
// cache and its own connection pool, on one PostgreSQL schema, as two
// replicas of a portal would, and writes between their requests: through
// the store, and in plain SQL as a portal's own code would (an update, a
// delete). Each write is served by both on their next request.
func TestCacheFreshOnPostgres(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	db1, schema, cs := migratedSchema(t, "statusapi_fresh")
	db2 := openDatabase(t) // a second pool, as another replica has
	st1, st2 := bunstore.New(db1, cs), bunstore.New(db2, cs)
	var _ store.Versions = st1 // else the handlers would have no cache to test

	is.NoErr(st1.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "A", Plan: store.PlanEnterprise, RetainerActive: true, APIEnabled: true}))
	for n := 1; n <= 5; n++ {
		is.NoErr(st1.PutInvoice(ctx, store.Invoice{ID: fmt.Sprintf("i%d", n), OrgID: "org_a", Number: fmt.Sprintf("A-%d", n),
			Status: store.InvoiceOpen, Currency: "EUR", Total: 100, AmountDue: 100,
			IssuedAt: t0.AddDate(0, 0, n), DueAt: t0.AddDate(0, 1, 0)}))
	}
	keys1 := auth.NewKeys(st1)
	t.Cleanup(func() { _ = keys1.Close() })
	key, _, err := keys1.Mint(ctx, "org_a", "replicas", nil)
	is.NoErr(err)
	keys2 := auth.NewKeys(st2)
	t.Cleanup(func() { _ = keys2.Close() })
	replicas := []http.Handler{
		apitest.Handler(st1, keys1, nil),
		apitest.Handler(st2, keys2, nil),
	}
	get := func(h http.Handler) string {
		t.Helper()
		res := serveWith(t, h, apitest.NewRequest("GET", "/v1/invoices", key))
		is.Equal(res.Code, 200)
		return res.Body.String()
	}
	served := func(what string, check func(body string) bool) {
		t.Helper()
		for n, h := range replicas {
			if body := get(h); !check(body) {
				t.Fatalf("replica %d does not serve %s on its next request: %s", n+1, what, body)
			}
		}
	}
	served("the seeded invoices", func(b string) bool { return strings.Contains(b, `"total":5`) })
	served("the seeded invoices, cached", func(b string) bool { return strings.Contains(b, `"total":5`) })

	inv, err := st1.ListInvoices(ctx, "org_a", store.InvoiceQuery{PageRequest: store.PageRequest{Page: 1, Limit: 1}})
	is.NoErr(err)
	changed := inv.Items[0]
	changed.AmountDue = 7
	is.NoErr(st2.PutInvoice(ctx, changed))
	served("a put through the other store", func(b string) bool { return strings.Contains(b, `"amountDue":7,`) })

	_, err = db1.ExecContext(ctx, "UPDATE ?.invoices SET amount_due = 4242 WHERE org_id = 'org_a' AND id = 'i2'", bun.Ident(schema))
	is.NoErr(err)
	served("an update in plain SQL", func(b string) bool { return strings.Contains(b, `"amountDue":4242,`) })

	_, err = db2.ExecContext(ctx, "DELETE FROM ?.invoices WHERE org_id = 'org_a' AND id = 'i3'", bun.Ident(schema))
	is.NoErr(err)
	served("a delete in plain SQL", func(b string) bool {
		return strings.Contains(b, `"total":4`) && !strings.Contains(b, `"id":"i3"`)
	})

	is.NoErr(st1.DeleteInvoice(ctx, "org_a", "i4"))
	served("a delete through the store", func(b string) bool { return strings.Contains(b, `"total":3`) })
}

// openDatabase opens the test database (TEST_DATABASE_URL, else t skips),
// closed when t ends.
func openDatabase(t *testing.T) *bun.DB {
	t.Helper()
	db, err := bunstore.Open(context.Background(), testenv.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// migratedSchema opens the test database and migrates a schema of its
// own, prefix and a random suffix, dropped when t ends. It returns the
// database, the schema's name and the option that gives it to bunstore.
func migratedSchema(t *testing.T, prefix string) (*bun.DB, string, bunstore.Option) {
	t.Helper()
	db := openDatabase(t)
	schema := fmt.Sprintf("%s_%08x", prefix, rand.Uint32())
	t.Cleanup(func() {
		_, _ = db.ExecContext(context.Background(), "DROP SCHEMA IF EXISTS ? CASCADE", bun.Ident(schema))
	})
	cs := bunstore.WithSchema(schema)
	if err := bunstore.Migrate(context.Background(), db, cs); err != nil {
		t.Fatal(err)
	}
	return db, schema, cs
}
