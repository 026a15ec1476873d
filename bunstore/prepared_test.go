package bunstore_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/store"
)

// The reads prepared on pgx (a page of invoices, the data version) answer
// what Bun's queries answer: a Store on a bun.Conn of the same database
// runs Bun's, and both must agree on every page, filter and version.
func TestPreparedReadsAnswerAsBun(t *testing.T) {
	is := is.New(t)
	fast, slow := fastAndSlow(t)

	is.NoErr(fast.PutOrganization(ctx, store.Organization{ID: "o1", Name: "O1", Plan: store.PlanEnterprise, RetainerActive: true, APIEnabled: true}))
	for _, p := range []string{"p1", "p2"} {
		is.NoErr(fast.PutProject(ctx, store.Project{ID: p, OrgID: "o1", Name: p, Status: store.ProjectInProgress}))
	}
	r := rand.New(rand.NewPCG(7, 7))
	epoch := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var invs []store.Invoice
	for j := range 137 {
		issued := epoch.Add(-time.Duration(r.IntN(50)) * time.Hour) // ties on issued_at: id breaks them
		inv := store.Invoice{ID: fmt.Sprintf("inv_%03d", j), OrgID: "o1", Number: fmt.Sprintf("N-%d", j),
			Status: store.InvoiceStatuses[r.IntN(len(store.InvoiceStatuses))], Currency: "EUR",
			Total: int64(r.IntN(1000)), IssuedAt: issued, DueAt: issued.AddDate(0, 0, 30)}
		if inv.Status == store.InvoicePaid {
			paid := issued.Add(time.Hour)
			inv.PaidAt = &paid
		}
		if j%3 > 0 {
			inv.ProjectID = &[]string{"p1", "p2"}[j%3-1]
		}
		if j%5 == 0 {
			inv.DocumentKey = "docs/" + inv.ID
		}
		invs = append(invs, inv)
	}
	is.NoErr(fast.PutInvoices(ctx, invs))

	version, err := fast.DataVersion(ctx, "o1")
	is.NoErr(err)
	is.True(version != 0) // the puts moved it
	for _, status := range append([]store.InvoiceStatus{""}, store.InvoiceStatuses...) {
		for _, project := range []string{"", "p1", "p2", "nope"} {
			for _, limit := range []int{1, 7, 20, 100} {
				for page := 1; page <= 137/limit+2; page++ {
					q := store.InvoiceQuery{PageRequest: store.PageRequest{Page: page, Limit: limit}, Status: status, ListFilter: store.ListFilter{ProjectID: project}}
					want, err := slow.ListInvoices(ctx, "o1", q)
					is.NoErr(err)
					got, err := fast.ListInvoices(ctx, "o1", q)
					is.NoErr(err)
					is.Equal(got.Version, version) // the prepared page says the version it was read at
					got.Version = 0                // Bun's does not
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("%+v: prepared %+v\nBun %+v", q, got, want)
					}
				}
			}
		}
	}
	// An organization with no invoices, and one that does not exist.
	for _, org := range []string{"o1", "o2"} {
		q := store.InvoiceQuery{PageRequest: store.PageRequest{Page: 1, Limit: 20}, Status: store.InvoiceVoid, ListFilter: store.ListFilter{ProjectID: "p9"}}
		want, err := slow.ListInvoices(ctx, org, q)
		is.NoErr(err)
		got, err := fast.ListInvoices(ctx, org, q)
		is.NoErr(err)
		v, err := fast.DataVersion(ctx, org)
		is.NoErr(err)
		is.Equal(got.Version, v) // also on an empty page
		got.Version = 0
		is.Equal(got, want)
	}

	v1, err := fast.DataVersion(ctx, "o1")
	is.NoErr(err)
	w1, err := slow.DataVersion(ctx, "o1")
	is.NoErr(err)
	is.Equal(v1, w1)
	is.NoErr(fast.DeleteInvoice(ctx, "o1", "inv_000"))
	v2, err := fast.DataVersion(ctx, "o1")
	is.NoErr(err)
	is.True(v2 != v1) // a write moves the version, prepared or not
	w2, err := slow.DataVersion(ctx, "o1")
	is.NoErr(err)
	is.Equal(v2, w2)
}

// fastAndSlow returns two stores of one migrated database: fast on pgx,
// which answers with the prepared reads, and slow on a bun.Conn, which
// runs Bun's.
func fastAndSlow(t *testing.T) (fast, slow *bunstore.Store) {
	t.Helper()
	db := migrated(t)
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return bunstore.New(db), bunstore.New(conn)
}

// A migration that changes a column a prepared page returns fails the
// statement prepared before it ("cached plan must not change result
// type") on the connection that holds it: the store prepares it again at
// once, and the request that met it gets its page.
func TestPreparedReadsSurviveMigrations(t *testing.T) {
	is := is.New(t)
	db := migrated(t)
	db.SetMaxOpenConns(1) // one connection: the statement is prepared on it
	st := bunstore.New(db)
	is.NoErr(st.PutOrganization(ctx, store.Organization{ID: "o1", Name: "O1", Plan: store.PlanEnterprise, APIEnabled: true}))
	is.NoErr(st.PutInvoices(ctx, []store.Invoice{{ID: "i1", OrgID: "o1", Number: "N-1", Status: store.InvoiceOpen, Currency: "EUR",
		Total: 5, IssuedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}}))
	q := store.InvoiceQuery{PageRequest: store.PageRequest{Page: 1, Limit: 20}}
	before, err := st.ListInvoices(ctx, "o1", q)
	is.NoErr(err)
	is.Equal(len(before.Items), 1)

	_, err = db.ExecContext(ctx, "ALTER TABLE invoices ALTER COLUMN number TYPE varchar(100)")
	is.NoErr(err)
	after, err := st.ListInvoices(ctx, "o1", q)
	is.NoErr(err) // the stale statement is prepared again, not reported
	is.Equal(after.Items, before.Items)
}

// The prepared reads are planned once per connection, not at every run:
// Open sets plan_cache_mode to force_generic_plan (PostgreSQL, left to
// choose, re-plans them every time), unless the URL sets it.
func TestPreparedReadsArePlannedOnce(t *testing.T) {
	is := is.New(t)
	db := migrated(t)
	db.SetMaxOpenConns(1) // the reads and the check below share the session
	st := bunstore.New(db)
	is.NoErr(st.PutOrganization(ctx, store.Organization{ID: "o1", Name: "O1", Plan: store.PlanEnterprise, RetainerActive: true, APIEnabled: true}))
	issued := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	is.NoErr(st.PutInvoice(ctx, store.Invoice{ID: "inv_1", OrgID: "o1", Number: "N-1", Status: store.InvoiceOpen, Currency: "EUR", IssuedAt: issued, DueAt: issued}))
	const runs = 8
	for range runs {
		_, err := st.DataVersion(ctx, "o1")
		is.NoErr(err)
		p, err := st.ListInvoices(ctx, "o1", store.InvoiceQuery{PageRequest: store.PageRequest{Page: 1, Limit: 20}, Status: store.InvoiceOpen})
		is.NoErr(err)
		is.Equal(len(p.Items), 1)
	}
	rows, err := db.QueryContext(ctx, "SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE '%data_version_log%'")
	is.NoErr(err)
	defer rows.Close()
	seen := 0
	for rows.Next() {
		var text string
		var generic, custom int
		is.NoErr(rows.Scan(&text, &generic, &custom))
		is.Equal(custom, 0)     // never re-planned
		is.Equal(generic, runs) // every run used the plan made at the first
		seen++
	}
	is.NoErr(rows.Err())
	is.Equal(seen, 2) // the version's statement and the page's

	var mode string
	is.NoErr(db.QueryRowContext(ctx, "SHOW plan_cache_mode").Scan(&mode))
	is.Equal(mode, "force_generic_plan")

	_, dsn := newSchema(t)
	chosen, err := bunstore.Open(ctx, withParams(dsn, map[string]string{"plan_cache_mode": "auto"}))
	is.NoErr(err)
	defer chosen.Close()
	is.NoErr(chosen.QueryRowContext(ctx, "SHOW plan_cache_mode").Scan(&mode))
	is.Equal(mode, "auto") // the URL's choice stands
}

// TestPreparedDeclinesOtherFilters sets each field of store.ListFilter
// that the prepared page does not filter by (all but ProjectID) in turn:
// the generic list answers it (no Version), as on a Store that is not on
// pgx. A filter added to the query and not to the prepared statement is
// never silently ignored.
func TestPreparedDeclinesOtherFilters(t *testing.T) {
	is := is.New(t)
	fast, slow := fastAndSlow(t)
	is.NoErr(fast.PutOrganization(ctx, store.Organization{ID: "o1", Name: "O1", Plan: store.PlanEnterprise, RetainerActive: true, APIEnabled: true}))
	is.NoErr(fast.PutProject(ctx, store.Project{ID: "p1", OrgID: "o1", Name: "p1", Status: store.ProjectInProgress}))
	epoch := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for j := range 5 {
		is.NoErr(fast.PutInvoice(ctx, store.Invoice{ID: fmt.Sprint("i", j), OrgID: "o1", Number: fmt.Sprint(j), ProjectID: &[]string{"p1"}[0],
			Status: store.InvoiceOpen, Currency: "EUR", IssuedAt: epoch, DueAt: epoch.AddDate(0, 0, j)}))
	}
	plain := store.InvoiceQuery{PageRequest: store.PageRequest{Page: 1, Limit: 20}, Status: store.InvoiceOpen, ListFilter: store.ListFilter{ProjectID: "p1"}}
	p, err := fast.ListInvoices(ctx, "o1", plain)
	is.NoErr(err)
	is.True(p.Version != 0) // the prepared page answers the filters it knows
	typ := reflect.TypeFor[store.ListFilter]()
	for i := range typ.NumField() {
		field := typ.Field(i)
		if field.Name == "ProjectID" {
			continue
		}
		t.Run(field.Name, func(t *testing.T) {
			is := is.New(t)
			q := plain
			v := reflect.ValueOf(&q.ListFilter).Elem().Field(i)
			switch v.Interface().(type) {
			case time.Time:
				v.Set(reflect.ValueOf(epoch.AddDate(0, 0, 2)))
			case store.Position:
				q.UpdatedSince = epoch // After is honoured with UpdatedSince only
				v.Set(reflect.ValueOf(store.Position{At: epoch, ID: "i0"}))
			case []string:
				v.Set(reflect.ValueOf([]string{"p1"}))
			case string:
				v.SetString("x") // declined whatever it matches
			default:
				t.Fatalf("set a value of the new field %s (%s) here", field.Name, field.Type)
			}
			got, err := fast.ListInvoices(ctx, "o1", q)
			is.NoErr(err)
			is.Equal(got.Version, int64(0)) // answered by the generic list, not the prepared page
			want, err := slow.ListInvoices(ctx, "o1", q)
			is.NoErr(err)
			is.Equal(got, want)
		})
	}
}
