package statusclient_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"time"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/statusclient"
	"github.com/clientstatus/clientstatus/store"
)

// exampleServer runs the real handler on in-memory parts, with five
// invoices of the organization of the key "example-key", on the enterprise
// plan (no rate limit), or on plan when one is given.
func exampleServer(plan ...store.Plan) *httptest.Server {
	srv, _ := exampleServerAndStore(plan...)
	return srv
}

// exampleServerAndStore is exampleServer, and the store it serves, for an
// example to change.
func exampleServerAndStore(plan ...store.Plan) (*httptest.Server, *memstore.Store) {
	ctx := context.Background()
	st := memstore.New()
	keys := auth.NewKeys(auth.NewMemoryKeyStore(st)) // organizations come from st
	p := store.PlanEnterprise
	if len(plan) > 0 {
		p = plan[0]
	}
	_ = st.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "Acme", Plan: p, RetainerActive: true, APIEnabled: true})
	if _, err := keys.Import(ctx, "org_a", "example", "example-key", nil); err != nil {
		panic(err)
	}
	issued := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for i, status := range []store.InvoiceStatus{"open", "paid", "open", "void", "open"} {
		amount := int64(150000 + 2500*i)
		err := st.PutInvoice(ctx, store.Invoice{
			ID: fmt.Sprintf("inv_%d", i+1), OrgID: "org_a", Number: fmt.Sprintf("INV-%04d", i+1), Status: status,
			Currency: "EUR", Total: amount, AmountDue: amount,
			IssuedAt: issued.AddDate(0, -i, 0), DueAt: issued.AddDate(0, -i, 30),
		})
		if err != nil {
			panic(err)
		}
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	return httptest.NewServer(statusapi.New(st, keys, ratelimit.NewMemory(),
		statusapi.WithSigningKey([]byte("example signing key, 32 bytes...")), statusapi.WithLogger(quiet))), st
}

// Make a Client with options, and get one item.
func ExampleNew() {
	srv := exampleServer()
	defer srv.Close()

	c := statusclient.New(srv.URL+"/v1", "example-key",
		statusclient.WithRetry(5, 0), // five attempts, the default longest wait
		statusclient.WithUserAgent("portal-sync/2"))
	_, resp, err := c.GetProject(context.Background(), "prj_missing")
	fmt.Println(statusclient.ErrorCodeOf(err), resp.StatusCode)
	// Output:
	// NOT_FOUND 404
}

// Walk every open invoice, whatever the number of pages.
func ExampleClient_AllInvoices() {
	srv := exampleServer()
	defer srv.Close()

	c := statusclient.New(srv.URL+"/v1", "example-key")
	opts := statusclient.InvoiceListOptions{ListOptions: statusclient.ListOptions{Limit: 2}, Status: statusclient.InvoiceOpen}
	for inv, err := range c.AllInvoices(context.Background(), opts) {
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		fmt.Printf("%s %s %d.%02d %s\n", inv.Number, inv.IssuedAt.Format("2006-01-02"), inv.AmountDue/100, inv.AmountDue%100, inv.Currency)
	}
	// Output:
	// INV-0001 2026-03-01 1500.00 EUR
	// INV-0003 2026-01-01 1550.00 EUR
	// INV-0005 2025-11-01 1600.00 EUR
}

// Page through a list by hand, go-github style, watching the rate budget
// that every Response carries.
func ExampleClient_ListInvoices() {
	srv := exampleServer(store.PlanStarter)
	defer srv.Close()

	c := statusclient.New(srv.URL+"/v1", "example-key")
	opts := statusclient.InvoiceListOptions{ListOptions: statusclient.ListOptions{Limit: 2}}
	for {
		invoices, resp, err := c.ListInvoices(context.Background(), opts)
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		fmt.Printf("page %d: %d of %d invoices; %d of %d requests left\n",
			resp.Meta.Page, len(invoices), resp.Meta.Total, resp.Rate.Remaining, resp.Rate.Limit)
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	// Output:
	// page 1: 2 of 5 invoices; 59 of 60 requests left
	// page 2: 2 of 5 invoices; 58 of 60 requests left
	// page 3: 1 of 5 invoices; 57 of 60 requests left
}

// A plan without a rate limit sends no rate-limit headers: Rate.Limited
// tells the two apart.
func ExampleRate() {
	for _, plan := range []store.Plan{store.PlanStarter, store.PlanEnterprise} {
		srv := exampleServer(plan)
		_, resp, err := statusclient.New(srv.URL+"/v1", "example-key").ListProjects(context.Background(), statusclient.ProjectListOptions{})
		srv.Close()
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		if !resp.Rate.Limited {
			fmt.Printf("%s: no rate limit\n", plan)
			continue
		}
		fmt.Printf("%s: %d requests a window, %d left, reset ahead: %t\n",
			plan, resp.Rate.Limit, resp.Rate.Remaining, resp.Rate.Reset.After(time.Now()))
	}
	// Output:
	// starter: 60 requests a window, 59 left, reset ahead: true
	// enterprise: no rate limit
}

// Reach the whole answer behind an error with errors.As.
func ExampleError() {
	srv := exampleServer()
	defer srv.Close()

	c := statusclient.New(srv.URL+"/v1", "example-key")
	_, _, err := c.GetProject(context.Background(), "prj_missing")
	var apiErr *statusclient.Error
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Code, apiErr.RequestID != "", apiErr.Response.Rate.Limited)
	}
	// Output:
	// 404 NOT_FOUND true false
}

// Branch on the API's error code.
func ExampleErrorCodeOf() {
	srv := exampleServer()
	defer srv.Close()

	c := statusclient.New(srv.URL+"/v1", "example-key")
	_, _, err := c.GetProject(context.Background(), "prj_missing")
	switch statusclient.ErrorCodeOf(err) {
	case "":
		fmt.Println("no answer from the API:", err)
	case statusclient.CodeNotFound:
		fmt.Println("no such project")
	default:
		fmt.Println("error:", err)
	}
	// Output:
	// no such project
}

// Keep a copy of everything the key can see, and bring it up to date by
// calling Sync again, as a program would on a timer. A Replica is plain
// maps by id; save it whole (encoding/json) to keep it across runs.
func ExampleClient_Sync() {
	srv, st := exampleServerAndStore()
	defer srv.Close()
	ctx := context.Background()
	c := statusclient.New(srv.URL+"/v1", "example-key")

	var r statusclient.Replica // zero: the first Sync loads everything
	if _, err := c.Sync(ctx, &r); err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Printf("%d projects, %d invoices; inv_1 is %s\n", len(r.Projects), len(r.Invoices), r.Invoices["inv_1"].Status)

	// Meanwhile, in the portal: a new project, and inv_1 is paid.
	paid := time.Date(2026, 3, 5, 12, 0, 0, 0, time.UTC)
	_ = st.PutProject(ctx, store.Project{ID: "prj_web", OrgID: "org_a", Name: "Website", Status: store.ProjectPlanned})
	_ = st.PutInvoice(ctx, store.Invoice{ID: "inv_1", OrgID: "org_a", Number: "INV-0001", Status: store.InvoicePaid,
		Currency: "EUR", Total: 150000, IssuedAt: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), DueAt: time.Date(2026, 3, 31, 0, 0, 0, 0, time.UTC), PaidAt: &paid})

	// Later: the same call, on the same Replica.
	if _, err := c.Sync(ctx, &r); err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Printf("%d projects, %d invoices; inv_1 is %s, paid %s\n", len(r.Projects), len(r.Invoices), r.Invoices["inv_1"].Status,
		r.Invoices["inv_1"].PaidAt.Format(time.DateOnly))
	fmt.Println(r.Projects["prj_web"].Name)
	// Output:
	// 0 projects, 5 invoices; inv_1 is open
	// 1 projects, 5 invoices; inv_1 is paid, paid 2026-03-05
	// Website
}

// Read the budget without spending it, to pace a batch of requests.
func ExampleClient_RateLimit() {
	for _, plan := range []store.Plan{store.PlanStarter, store.PlanEnterprise} {
		srv := exampleServer(plan)
		c := statusclient.New(srv.URL+"/v1", "example-key")
		_, _, _ = c.ListInvoices(context.Background(), statusclient.InvoiceListOptions{})
		u, _, err := c.RateLimit(context.Background())
		srv.Close()
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		if u.Limit == nil {
			fmt.Printf("%s: no rate limit\n", u.Plan)
			continue
		}
		fmt.Printf("%s: %d of %d requests left, reset ahead: %t\n", u.Plan, *u.Remaining, *u.Limit, u.ResetAt.After(time.Now()))
	}
	// Output:
	// starter: 59 of 60 requests left, reset ahead: true
	// enterprise: no rate limit
}
