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
// write once, before the request of the second page of the list at path
// (by after): between two pages of one walk.
func before2(path string, write func()) func(uri string) bool {
	done := false
	return func(uri string) bool {
		if !done && strings.HasPrefix(uri, path+"?") && strings.Contains(uri, "after=") {
			done = true
			write()
		}
		return false
	}
}

// TestSyncGroupChangedBetweenPages: 150 invoices share one second, more
// than a page; between Sync's pages the first invoice changes and moves
// to the end of the list, which would shift the 101st onto the page
// already read in a walk by page number. The walk by cursor skips
// nothing: Sync holds every invoice.
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
// deleted between the pages. Nothing is skipped, and the next Sync
// applies the deletion.
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
	f.equal(t, &r) // the deleted one is gone, the others are there
}

// TestSyncFeedRecordDroppedBetweenPages: 150 invoices are deleted in one
// second; between the pages of the deletions feed the first is put
// again, which drops its record. No other record is skipped, and the
// invoice put again is kept.
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
