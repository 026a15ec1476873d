package store_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/clientstatus/clientstatus/store"
)

// ExampleNewMemory seeds an in-memory store and reads one organization's
// projects back, most recently started first and projects not yet started
// last.
func ExampleNewMemory() {
	ctx := context.Background()
	st := store.NewMemory()

	started := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	must(st.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "Acme", Plan: "starter", RetainerActive: true, APIEnabled: true}))
	must(st.PutProject(ctx, store.Project{ID: "p1", OrgID: "org_a", Name: "Website", Status: store.ProjectInProgress, StartedAt: &started, UpdatedAt: started}))
	must(st.PutProject(ctx, store.Project{ID: "p2", OrgID: "org_a", Name: "Mobile app", Status: store.ProjectPlanned, UpdatedAt: started}))

	page, err := st.ListProjects(ctx, "org_a", store.ProjectQuery{PageRequest: store.PageRequest{Page: 1, Limit: store.DefaultLimit}})
	must(err)
	fmt.Println("total:", page.Total)
	for _, p := range page.Items {
		fmt.Println(p.ID, p.Name, p.Status)
	}
	// Output:
	// total: 2
	// p1 Website in_progress
	// p2 Mobile app planned
}

func must(err error) {
	if err != nil {
		log.Fatal(err)
	}
}

// ExampleMemory_PutMilestone shows that a Writer refuses an item whose
// owner was not put first, naming the item, and that the error wraps
// store.ErrNotFound; an invalid item's error wraps store.ErrInvalid.
func ExampleMemory_PutMilestone() {
	ctx := context.Background()
	st := store.NewMemory()
	must(st.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "Acme", Plan: "growth"}))

	err := st.PutMilestone(ctx, store.Milestone{ID: "m1", OrgID: "org_a", ProjectID: "p9", Name: "Launch",
		Status: store.MilestonePending, DueAt: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)})
	fmt.Println(err)
	fmt.Println(errors.Is(err, store.ErrNotFound))

	err = st.PutInvoice(ctx, store.Invoice{ID: "i1", OrgID: "org_a", Number: "A-1", Status: store.InvoiceOpen, Currency: "usd"})
	fmt.Println(err)
	fmt.Println(errors.Is(err, store.ErrInvalid))
	// Output:
	// store: milestone "m1": project "p9" of organization "org_a" (put it first): not found
	// true
	// store: invoice "i1": currency "usd" is not an ISO 4217 code (three upper-case letters)
	// true
}
