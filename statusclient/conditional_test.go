package statusclient_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/statusclient"
)

func TestIfNoneMatch(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	fake := &fakeAPI{key: "k", invoices: manyInvoices(3)}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	c := statusclient.New(srv.URL+"/v1", "k")

	_, first, err := c.ListInvoices(ctx, statusclient.InvoiceListOptions{})
	is.NoErr(err)
	is.True(first.ETag != "") // the page's ETag is kept

	items, again, err := c.ListInvoices(ctx, statusclient.InvoiceListOptions{IfNoneMatch: first.ETag})
	is.True(errors.Is(err, statusclient.ErrNotModified)) // an unchanged list is not sent again
	is.Equal(again.StatusCode, 304)                      // with a Response all the same
	is.Equal(again.ETag, first.ETag)
	is.Equal(len(items), 0)

	fake.invoices = fake.invoices[1:] // a change between two polls (no request in flight)
	items, changed, err := c.ListInvoices(ctx, statusclient.InvoiceListOptions{IfNoneMatch: first.ETag})
	is.NoErr(err) // a changed list is sent
	is.Equal(len(items), 2)
	is.True(changed.ETag != first.ETag)

	n := 0
	for _, err := range c.AllInvoices(ctx, statusclient.InvoiceListOptions{IfNoneMatch: changed.ETag}) {
		is.NoErr(err) // the iterators ignore IfNoneMatch
		n++
	}
	is.Equal(n, 2)
}
