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
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/statusclient"
	"github.com/clientstatus/clientstatus/store"
)

// exampleServer runs the real handler on in-memory parts, with five
// invoices of the organization of the key "example-key".
func exampleServer() *httptest.Server {
	ctx := context.Background()
	st := store.NewMemory()
	ks := auth.NewMemoryKeyStore()
	keys := auth.NewKeys(ks)
	_ = st.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "Acme", Plan: "enterprise", RetainerActive: true, APIEnabled: true})
	ks.PutAccount(auth.Account{OrgID: "org_a", Plan: auth.PlanEnterprise, RetainerActive: true, APIEnabled: true})
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
		statusapi.WithSigningKey([]byte("example signing key, 32 bytes..")), statusapi.WithLogger(quiet)))
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

// Reach the whole answer behind an error with errors.As.
func ExampleError() {
	srv := exampleServer()
	defer srv.Close()

	c := statusclient.New(srv.URL+"/v1", "example-key")
	_, err := c.GetProject(context.Background(), "prj_missing")
	var apiErr *statusclient.Error
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Code, apiErr.RequestID != "")
	}
	// Output:
	// 404 NOT_FOUND true
}

// Branch on the API's error code.
func ExampleErrorCodeOf() {
	srv := exampleServer()
	defer srv.Close()

	c := statusclient.New(srv.URL+"/v1", "example-key")
	_, err := c.GetProject(context.Background(), "prj_missing")
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
