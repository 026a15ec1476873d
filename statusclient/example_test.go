package statusclient_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"time"

	"github.com/clientstatus/clientstatus/statusclient"
)

// exampleServer stands in for a deployment of the API.
func exampleServer() *httptest.Server {
	issued := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	fake := &fakeAPI{key: "csk_example"}
	for i, status := range []statusclient.InvoiceStatus{"open", "paid", "open", "void", "open"} {
		fake.invoices = append(fake.invoices, statusclient.Invoice{
			ID: fmt.Sprintf("inv_%d", i+1), Number: fmt.Sprintf("INV-%04d", i+1), Status: status,
			Currency: "EUR", Total: int64(150000 + 2500*i), AmountDue: int64(150000 + 2500*i),
			IssuedAt: issued.AddDate(0, -i, 0), DueAt: issued.AddDate(0, -i, 30),
		})
	}
	return httptest.NewServer(fake)
}

// Walk every open invoice, whatever the number of pages.
func ExampleClient_AllInvoices() {
	srv := exampleServer()
	defer srv.Close()

	c := statusclient.New(srv.URL+"/v1", "csk_example")
	opts := statusclient.InvoiceListOptions{Status: statusclient.InvoiceOpen, Limit: 2}
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

// Branch on the API's error code with errors.As.
func ExampleError() {
	srv := exampleServer()
	defer srv.Close()

	c := statusclient.New(srv.URL+"/v1", "csk_example")
	_, err := c.GetProject(context.Background(), "prj_missing")
	var apiErr *statusclient.Error
	if errors.As(err, &apiErr) && apiErr.Code == statusclient.CodeNotFound {
		fmt.Println(apiErr.StatusCode, apiErr.Code, apiErr.RequestID != "")
	}
	// Output:
	// 404 NOT_FOUND true
}
