package store_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/clientstatus/clientstatus/store"
	"github.com/clientstatus/clientstatus/store/storetest"
	"github.com/matryer/is"
)

func TestMemoryConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Subject { return store.NewMemory() })
}

// BenchmarkMemoryListInvoices reads pages of an organization holding 10,000
// invoices (and a second organization holding as many).
func BenchmarkMemoryListInvoices(b *testing.B) {
	ctx := context.Background()
	st := store.NewMemory()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, org := range []string{"org_a", "org_b"} {
		if err := st.PutOrganization(ctx, store.Organization{ID: org, Name: org, Plan: "growth"}); err != nil {
			b.Fatal(err)
		}
		for p := range 10 {
			if err := st.PutProject(ctx, store.Project{ID: fmt.Sprint("p", p), OrgID: org, Name: "p", Status: store.ProjectInProgress}); err != nil {
				b.Fatal(err)
			}
		}
		for n := range 10_000 {
			i := store.Invoice{ID: fmt.Sprintf("i%05d", n), OrgID: org, Number: fmt.Sprint(n), Status: store.InvoiceStatuses[n%4],
				Currency: "USD", Total: 100, AmountDue: 100, IssuedAt: base.Add(time.Duration(n%5000) * time.Hour), DueAt: base}
			if n%3 > 0 {
				i.ProjectID = new(string)
				*i.ProjectID = fmt.Sprint("p", n%10)
			}
			if err := st.PutInvoice(ctx, i); err != nil {
				b.Fatal(err)
			}
		}
	}
	for _, bm := range []struct {
		name string
		q    store.InvoiceQuery
	}{
		{"first page", store.InvoiceQuery{PageRequest: store.PageRequest{Page: 1, Limit: 20}}},
		{"last page", store.InvoiceQuery{PageRequest: store.PageRequest{Page: 100, Limit: 100}}},
		{"status", store.InvoiceQuery{PageRequest: store.PageRequest{Page: 1, Limit: 20}, Status: store.InvoicePaid}},
		{"project and status", store.InvoiceQuery{PageRequest: store.PageRequest{Page: 3, Limit: 20}, ProjectID: "p4", Status: store.InvoiceOpen}},
	} {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if _, err := st.ListInvoices(ctx, "org_a", bm.q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkMemoryPutInvoice writes 10,000 invoices into an empty
// organization, newest last: the worst case for keeping lists ordered.
func BenchmarkMemoryPutInvoice(b *testing.B) {
	ctx := context.Background()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for range b.N {
		st := store.NewMemory()
		if err := st.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "a", Plan: "growth"}); err != nil {
			b.Fatal(err)
		}
		for n := range 10_000 {
			i := store.Invoice{ID: fmt.Sprintf("i%05d", n), OrgID: "org_a", Number: "n", Status: store.InvoiceOpen,
				Currency: "USD", IssuedAt: base.Add(time.Duration(n) * time.Minute), DueAt: base}
			if err := st.PutInvoice(ctx, i); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestMemoryPages checks what the conformance suite leaves to each store:
// empty pages are non-nil (they encode as []), far pages do not overflow,
// and impossible page requests are refused.
func TestMemoryPages(t *testing.T) {
	ctx := context.Background()
	st := store.NewMemory()
	must(st.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "Acme", Plan: "starter"}))
	must(st.PutProject(ctx, store.Project{ID: "p1", OrgID: "org_a", Name: "Site", Status: store.ProjectPlanned}))

	tests := []struct {
		name      string
		org       string
		r         store.PageRequest
		wantErr   bool
		wantItems int
		wantTotal int
	}{
		{"first page", "org_a", store.PageRequest{Page: 1, Limit: 1}, false, 1, 1},
		{"past the end", "org_a", store.PageRequest{Page: 2, Limit: 1}, false, 0, 1},
		{"offset overflowing int", "org_a", store.PageRequest{Page: math.MaxInt, Limit: store.MaxLimit}, false, 0, 1},
		{"unknown organization", "org_x", store.PageRequest{Page: 1, Limit: 1}, false, 0, 0},
		{"page 0", "org_a", store.PageRequest{Page: 0, Limit: 1}, true, 0, 0},
		{"limit 0", "org_a", store.PageRequest{Page: 1, Limit: 0}, true, 0, 0},
		{"negative limit", "org_a", store.PageRequest{Page: 1, Limit: -5}, true, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			page, err := st.ListProjects(ctx, tt.org, store.ProjectQuery{PageRequest: tt.r})
			if tt.wantErr {
				is.True(errors.Is(err, store.ErrInvalid)) // an impossible page request is refused as invalid
				return
			}
			is.NoErr(err)
			is.True(page.Items != nil)              // an empty page is [] in JSON, not null
			is.Equal(len(page.Items), tt.wantItems) // items on the page
			is.Equal(page.Total, tt.wantTotal)      // total
		})
	}
}
