package memstore_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/store"
)

// ExampleNew seeds an in-memory store and reads one organization's
// projects back, most recently started first and projects not yet started
// last.
func ExampleNew() {
	ctx := context.Background()
	st := memstore.New()

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

// ExampleStore_PutMilestone shows that a Writer refuses an item whose
// owner was not put first, naming the item, and that the error wraps
// store.ErrNotFound; an invalid item's error wraps store.ErrInvalid.
func ExampleStore_PutMilestone() {
	ctx := context.Background()
	st := memstore.New()
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

// ExampleStore_DeleteProject deletes a project and reads what a client
// polling for changes sees: the records of the project and its milestone,
// and the invoice that named it, changed. The Memory dates every write by
// its clock, here one a test moves by hand.
func ExampleStore_DeleteProject() {
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	st := memstore.New(memstore.WithClock(func() time.Time { return now }))
	must(st.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "Acme", Plan: "growth"}))
	must(st.PutProject(ctx, store.Project{ID: "p1", OrgID: "org_a", Name: "Website", Status: store.ProjectInProgress}))
	must(st.PutMilestone(ctx, store.Milestone{ID: "m1", OrgID: "org_a", ProjectID: "p1", Name: "Launch", Status: store.MilestonePending, DueAt: now}))
	p1 := "p1"
	must(st.PutInvoice(ctx, store.Invoice{ID: "i1", OrgID: "org_a", Number: "A-1", ProjectID: &p1, Status: store.InvoiceOpen,
		Currency: "EUR", Total: 1000, AmountDue: 1000, IssuedAt: now, DueAt: now}))

	since := now.Add(time.Minute) // a client synced after the puts
	now = now.Add(time.Hour)
	must(st.DeleteProject(ctx, "org_a", "p1"))

	all := store.PageRequest{Page: 1, Limit: store.MaxLimit}
	deleted, err := st.ListDeletions(ctx, "org_a", store.DeletionQuery{PageRequest: all, Since: since})
	must(err)
	for _, d := range deleted.Items {
		fmt.Println("deleted", d.Kind, d.ID, d.DeletedAt.Format(time.RFC3339))
	}
	changed, err := st.ListInvoices(ctx, "org_a", store.InvoiceQuery{PageRequest: all, ListFilter: store.ListFilter{UpdatedSince: since}})
	must(err)
	for _, i := range changed.Items {
		fmt.Println("changed invoice", i.ID, "project", i.ProjectID, i.UpdatedAt.Format(time.RFC3339))
	}
	// Output:
	// deleted milestone m1 2026-03-01T10:00:00Z
	// deleted project p1 2026-03-01T10:00:00Z
	// changed invoice i1 project <nil> 2026-03-01T10:00:00Z
}

// ExampleStore_PutMessage puts a thread with a message for the client
// and an internal note: clients see one message, and the newer note moves
// neither the count nor the thread's last message time.
func ExampleStore_PutMessage() {
	ctx := context.Background()
	st := memstore.New()
	at := time.Date(2026, 1, 6, 9, 0, 0, 0, time.UTC)
	ana := store.Author{Name: "Ana", Side: store.SideAgency}
	must(st.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "Acme", Plan: "starter"}))
	must(st.PutThread(ctx, store.Thread{ID: "t1", OrgID: "org_a", Subject: "Launch date", Status: store.ThreadOpen, CreatedAt: at}))
	must(st.PutMessage(ctx, store.Message{ID: "msg1", OrgID: "org_a", ThreadID: "t1", Author: ana, Body: "Can we move it to March?", CreatedAt: at}))
	must(st.PutMessage(ctx, store.Message{ID: "note1", OrgID: "org_a", ThreadID: "t1", Author: ana, Body: "They always slip.",
		Internal: true, CreatedAt: at.Add(time.Hour)}))

	th, err := st.GetThread(ctx, "org_a", "t1")
	must(err)
	fmt.Println(th.Subject, th.MessageCount, th.LastMessageAt.Format(time.RFC3339))
	page, err := st.ListThreadMessages(ctx, "org_a", "t1", store.MessageQuery{PageRequest: store.PageRequest{Page: 1, Limit: store.DefaultLimit}})
	must(err)
	for _, m := range page.Items {
		fmt.Println(m.ID, m.Body)
	}
	// Output:
	// Launch date 1 2026-01-06T09:00:00Z
	// msg1 Can we move it to March?
}
