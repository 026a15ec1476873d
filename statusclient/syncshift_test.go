package statusclient_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/statusclient"
)

// bulkInvoices puts n invoices in f in one second (a bulk import), more
// than a page: i000, i001...
func bulkInvoices(f *changeAPI, n int) []statusclient.Invoice {
	var all []statusclient.Invoice
	for i := range n {
		all = append(all, statusclient.Invoice{ID: fmt.Sprintf("i%03d", i), Number: fmt.Sprint("INV-", i), Status: statusclient.InvoiceOpen,
			Currency: "EUR", Total: 1000, AmountDue: 1000, IssuedAt: t0, DueAt: t0.AddDate(0, 1, 0)})
	}
	for _, inv := range all {
		f.put(inv)
	}
	return all
}

// before2 returns a fail hook of changeAPI that fails nothing but runs
// write once, before the first request of page 2 of the list at path:
// between two pages of one walk.
func before2(path string, write func()) func(uri string) bool {
	done := false
	return func(uri string) bool {
		if !done && strings.HasPrefix(uri, path+"?") && strings.Contains(uri, "&page=2&") {
			done = true
			write()
		}
		return false
	}
}

// TestSyncGroupChangedBetweenPages: 150 invoices share one second, so
// Sync reads them by page number; between its pages the first invoice
// changes, moves to the end of the list, and the 101st moves up onto the
// page already read. Sync sees the first come again with another stamp,
// reads again from the group's second, and holds every invoice.
func TestSyncGroupChangedBetweenPages(t *testing.T) {
	ctx := context.Background()
	f := newChangeAPI(t0)
	all := bulkInvoices(f, 150)
	f.fail = before2("/v1/invoices", func() {
		f.tick(time.Second)
		inv := all[0]
		inv.AmountDue = 0
		f.put(inv)
	})
	var r statusclient.Replica
	_, err := syncServer(t, f).Sync(ctx, &r)
	is.New(t).NoErr(err)
	f.equal(t, &r) // nothing skipped, in the same Sync
}

// TestSyncGroupDeletedBetweenPages: as above, but the first invoice is
// deleted between the pages. The next Sync finds its deletion in the
// feed, reads the invoices again from the group's second, and gets the
// one skipped.
func TestSyncGroupDeletedBetweenPages(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	f := newChangeAPI(t0)
	var r statusclient.Replica
	c := syncServer(t, f)
	_, err := c.Sync(ctx, &r) // nothing yet
	is.NoErr(err)
	f.tick(time.Second)
	bulkInvoices(f, 150)
	f.tick(time.Second)
	f.fail = before2("/v1/invoices", func() {
		f.tick(time.Second)
		f.del(statusclient.DeletionInvoice, "i000")
	})
	_, err = c.Sync(ctx, &r)
	is.NoErr(err)
	f.fail = nil
	f.tick(time.Second)
	_, err = c.Sync(ctx, &r)
	is.NoErr(err)
	f.equal(t, &r) // the one skipped is there, the deleted one is not
}

// TestSyncFeedRecordDroppedBetweenPages: 150 invoices are deleted in one
// second; between the pages of the deletions feed the first is put
// again, which drops its record, and the 101st record moves up onto the
// page already read. Sync sees the invoice put again in its list,
// sends the feed's cursor back to the group's second, and the next Sync
// removes the invoice whose record it skipped.
func TestSyncFeedRecordDroppedBetweenPages(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	f := newChangeAPI(t0)
	all := bulkInvoices(f, 150)
	var r statusclient.Replica
	c := syncServer(t, f)
	_, err := c.Sync(ctx, &r)
	is.NoErr(err)
	f.tick(time.Second)
	for _, inv := range all {
		f.del(statusclient.DeletionInvoice, inv.ID)
	}
	f.tick(time.Second)
	f.fail = before2("/v1/deletions", func() {
		f.tick(time.Second)
		f.put(all[0])
	})
	_, err = c.Sync(ctx, &r)
	is.NoErr(err)
	f.fail = nil
	f.tick(time.Second)
	_, err = c.Sync(ctx, &r)
	is.NoErr(err)
	f.equal(t, &r) // the one put again, and none of the others
}
