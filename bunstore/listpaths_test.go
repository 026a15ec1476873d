package bunstore_test

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/store"
)

// invoiceFilter is one field of store.InvoiceQuery as the differential
// test varies it: the values it takes (the zero value first) and the SQL
// predicate that a COUNT(*) of the invoices table uses for a value that is
// not zero.
type invoiceFilter struct {
	values []reflect.Value
	where  func(v reflect.Value) (string, []any)
}

// invoiceFilters returns a filter for every field of store.InvoiceQuery
// but the page and the cursor (which the walk sets), found by reflection:
// a field added to the query stops the test until it is given values and
// a predicate here, so that no filter is left out of the comparison.
func invoiceFilters(t *testing.T, dueMid, sinceMid time.Time) map[string]invoiceFilter {
	t.Helper()
	vals := func(xs ...any) []reflect.Value {
		out := make([]reflect.Value, len(xs))
		for i, x := range xs {
			out[i] = reflect.ValueOf(x)
		}
		return out
	}
	known := map[string]invoiceFilter{
		"Status": {
			values: vals(store.InvoiceStatus(""), store.InvoiceOpen, store.InvoicePaid, store.InvoiceDraft, store.InvoiceVoid),
			where:  func(v reflect.Value) (string, []any) { return "status = ?", []any{v.String()} },
		},
		"ProjectID": {
			values: vals("", "p1", "nope"),
			where:  func(v reflect.Value) (string, []any) { return "project_id = ?", []any{v.String()} },
		},
		"DueBefore": {
			values: vals(time.Time{}, dueMid),
			where:  func(v reflect.Value) (string, []any) { return "due_at < ?", []any{v.Interface()} },
		},
		"UpdatedSince": {
			values: vals(time.Time{}, sinceMid, sinceMid.Add(-time.Hour)),
			where:  func(v reflect.Value) (string, []any) { return "updated_at >= ?", []any{v.Interface()} },
		},
		"OnlyProjects": {
			values: vals([]string(nil), []string{}, []string{"p2"}, []string{"p1", "p2"}),
			where: func(v reflect.Value) (string, []any) {
				return "project_id = ANY(?)", []any{pgdialect.Array(v.Interface().([]string))}
			},
		},
	}
	out := map[string]invoiceFilter{}
	for _, field := range reflect.VisibleFields(reflect.TypeFor[store.InvoiceQuery]()) {
		name := field.Name
		switch {
		case field.Anonymous, name == "Page", name == "Limit", name == "After": // the walk sets the page and the cursor
			continue
		}
		f, ok := known[name]
		if !ok {
			t.Fatalf("store.InvoiceQuery.%s (%s) is a filter the differential test does not know: give it values and a COUNT(*) predicate in invoiceFilters", name, field.Type)
		}
		out[name] = f
	}
	return out
}

// TestInvoiceListPathsAgree runs every combination of the invoice list's
// filters (invoiceFilters), with limits 1, 2, 3 and 100, page by page and,
// with UpdatedSince, cursor by cursor (After), through ListInvoices (the
// prepared pgx page where it answers) and through the generic list
// alone, on PostgreSQL: the pages must be equal, item for item, total
// and syncedThrough, and every total must equal a COUNT(*) of the
// invoices table under the same filters.
func TestInvoiceListPathsAgree(t *testing.T) {
	epoch := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := epoch
	db := migrated(t)
	st := bunstore.New(db, bunstore.WithClock(func() time.Time { return now }))
	for _, org := range []string{"o1", "o2"} {
		must(t, st.PutOrganization(ctx, store.Organization{ID: org, Name: org, Plan: store.PlanEnterprise, RetainerActive: true, APIEnabled: true}))
		for _, p := range []string{"p1", "p2"} {
			must(t, st.PutProject(ctx, store.Project{ID: p, OrgID: org, Name: p, Status: store.ProjectInProgress}))
		}
	}
	// 13 invoices of o1 in four writes a minute apart, with ties on
	// issued_at and on updated_at (the id breaks both), and a few of o2.
	for j := range 13 {
		if j%4 == 0 {
			now = now.Add(time.Minute)
		}
		issued := epoch.Add(-time.Duration(j%5) * time.Hour)
		inv := store.Invoice{ID: fmt.Sprintf("inv_%02d", (j*7)%13), OrgID: "o1", Number: fmt.Sprint("N-", j),
			Status: store.InvoiceStatuses[j%len(store.InvoiceStatuses)], Currency: "EUR", Total: int64(j),
			IssuedAt: issued, DueAt: issued.AddDate(0, 0, j%3*10)}
		if inv.Status == store.InvoicePaid {
			paid := issued.Add(time.Hour)
			inv.PaidAt = &paid
		}
		if j%3 > 0 {
			inv.ProjectID = &[]string{"p1", "p2"}[j%3-1]
		}
		must(t, st.PutInvoice(ctx, inv))
		if j%4 == 0 {
			must(t, st.PutInvoice(ctx, store.Invoice{ID: inv.ID, OrgID: "o2", Number: inv.Number, ProjectID: inv.ProjectID,
				Status: inv.Status, Currency: "USD", IssuedAt: issued, DueAt: issued}))
		}
	}
	now = now.Add(time.Minute)
	filters := invoiceFilters(t, epoch.AddDate(0, 0, 5), epoch.Add(2*time.Minute))
	names := make([]string, 0, len(filters))
	for name := range filters {
		names = append(names, name)
	}
	slices.Sort(names)

	var cases, prepared int
	var walk func(i int, q store.InvoiceQuery)
	walk = func(i int, q store.InvoiceQuery) {
		if i < len(names) {
			for _, v := range filters[names[i]].values {
				reflect.ValueOf(&q).Elem().FieldByName(names[i]).Set(v)
				walk(i+1, q)
			}
			return
		}
		where, args := []string{"org_id = ?"}, []any{"o1"}
		for _, name := range names {
			if v := reflect.ValueOf(q).FieldByName(name); !v.IsZero() || v.Kind() == reflect.Slice && !v.IsNil() {
				w, a := filters[name].where(v)
				where, args = append(where, w), append(args, a...)
			}
		}
		for _, limit := range []int{1, 2, 3, 100} {
			q.Limit = limit
			// Page by page, one past the end.
			for page := 1; ; page++ {
				q.Page = page
				n := comparePaths(t, st, db, q, where, args)
				cases++
				if n.prepared {
					prepared++
				}
				if n.items == 0 {
					break
				}
			}
			if q.UpdatedSince.IsZero() {
				continue
			}
			// Cursor by cursor: After the last item of each page.
			q.Page = 1
			for q.After = (store.Position{}); ; {
				n := comparePaths(t, st, db, q, where, args)
				cases++
				if n.items == 0 {
					break
				}
				q.After = store.Position{At: n.last.UpdatedAt, Kind: store.KindInvoice, ID: n.last.ID}
			}
			q.After = store.Position{}
		}
	}
	walk(0, store.InvoiceQuery{})
	t.Logf("%d pages compared over %d filters, %d of them answered by the prepared page", cases, len(names), prepared)
	if prepared == 0 {
		t.Fatal("the prepared page answered no case: the test compared the generic list with itself")
	}
}

// pathsAnswer is what comparePaths read of a page.
type pathsAnswer struct {
	items    int
	last     store.Invoice
	prepared bool
}

// comparePaths reads q through both paths and checks them against each
// other, and the total against a COUNT(*) of o1's invoices WHERE where
// (ANDed, with args, and a clause for q.After).
func comparePaths(t *testing.T, st *bunstore.Store, db *bun.DB, q store.InvoiceQuery, where []string, args []any) pathsAnswer {
	t.Helper()
	got, err := st.ListInvoices(ctx, "o1", q)
	if err != nil {
		t.Fatalf("%+v: ListInvoices: %v", q, err)
	}
	want, err := bunstore.ListInvoicesGeneric(ctx, st, "o1", q)
	if err != nil {
		t.Fatalf("%+v: generic list: %v", q, err)
	}
	answer := pathsAnswer{items: len(got.Items), prepared: got.Version != 0}
	got.Version = 0 // the generic list does not read it
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%+v:\nListInvoices %+v\ngeneric      %+v", q, got, want)
	}
	if !q.After.IsZero() {
		where = append(where, "(updated_at, id) > (?, ?)")
		args = append(args, q.After.At, q.After.ID)
	}
	var count int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM invoices WHERE "+strings.Join(where, " AND "), args...).Scan(&count); err != nil {
		t.Fatalf("count: %v", err)
	}
	if got.Total != count {
		t.Fatalf("%+v: total %d, COUNT(*) %d", q, got.Total, count)
	}
	if len(got.Items) > 0 {
		answer.last = got.Items[len(got.Items)-1]
	}
	return answer
}

// must fails the test on err.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
