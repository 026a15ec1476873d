package storetest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/store"
)

// The helpers of the cases of store.Changes, and the concurrent changes
// case; the rules of every kind are in kindchanges.go.

// tick is how far the suite moves a Subject's clock between writes that
// must be dated apart: the second every store keeps (the wire's
// precision).
const tick = time.Second

// clockSkew is how far apart the clocks of a store (a database server's)
// and of the test may be.
const clockSkew = time.Second

// within checks that a time the store set is in UTC and between from and
// to, give or take clockSkew: not in the future, and not a time given to
// a Put.
func within(is *is.I, at, from, to time.Time) {
	is.Helper()
	is.Equal(at.Location(), time.UTC)           // a time the store sets is in UTC
	is.True(!at.Before(from.Add(-clockSkew)))   // a time the store sets is its own: not before the write
	is.True(!at.After(to.Add(clockSkew)))       // a time the store sets is not in the future
	is.True(at.Equal(at.Truncate(time.Second))) // a time the store sets is truncated to the second
}

// The items of the fixture, by organization and id.

func projectKey(p store.Project) (string, string) { return p.OrgID, p.ID }
func invoiceKey(i store.Invoice) (string, string) { return i.OrgID, i.ID }

// The items as a store holds them now.

func getProject(t *testing.T, s Subject, org, id string) store.Project {
	t.Helper()
	p, err := s.GetProject(ctx, org, id)
	if err != nil {
		t.Fatalf("project %s/%s: %v", org, id, err)
	}
	return p
}

// checkLists checks each list's items, in order, and total.
func checkLists(t *testing.T, s store.Store, lists []list) {
	t.Helper()
	for _, l := range lists {
		t.Run(l.name, func(t *testing.T) {
			is := is.New(t)
			got, total, err := l.fetch(ctx, s, all)
			is.NoErr(err)
			is.Equal(got, l.want)        // the items, in order
			is.Equal(total, len(l.want)) // the total counts them
		})
	}
}

// walk reads a list page by page and checks that the pages hold every item
// once, in order, with the true total on each, a page past the end
// included.
func walk(t *testing.T, s store.Store, l list) {
	t.Helper()
	for _, limit := range []int{1, 2, 3, 7, 100} {
		t.Run(fmt.Sprintf("%s, limit %d", l.name, limit), func(t *testing.T) {
			is := is.New(t)
			walked := []string{}
			pages := (len(l.want) + limit - 1) / limit
			for n := 1; n <= pages+1; n++ {
				got, total, err := l.fetch(ctx, s, store.PageRequest{Page: n, Limit: limit})
				is.NoErr(err)
				is.Equal(total, len(l.want)) // total is the same on every page
				is.True(len(got) <= limit)   // a page holds at most limit items
				if n < pages {
					is.Equal(len(got), limit) // only the last page may be short
				}
				if n > pages {
					is.Equal(len(got), 0) // a page past the end is empty
				}
				walked = append(walked, got...)
			}
			is.Equal(walked, l.want) // the pages hold every item once, in order
		})
	}
}

// inChangeOrder reports items out of the order of an UpdatedSince list:
// UpdatedAt ascending, then id.
func inChangeOrder[T any](items []T, key func(T) (time.Time, string)) error {
	for k := 1; k < len(items); k++ {
		at1, id1 := key(items[k-1])
		at2, id2 := key(items[k])
		if at1.After(at2) || at1.Equal(at2) && id1 >= id2 {
			return fmt.Errorf("%s (updated %s) listed before %s (updated %s)", id1, at1, id2, at2)
		}
	}
	return nil
}

// testConcurrentChanges puts and deletes while other goroutines read
// changes and deletions; run it with -race. Every read must see a
// consistent, ordered list.
func testConcurrentChanges(t *testing.T, open func(t *testing.T) Subject) {
	s := open(t)
	c := s
	d := s
	seedData().put(t, s)
	is := is.New(t)
	s.Advance(tick)
	p3 := want(seedData().projects, orgA, "p3", projectKey)
	p3.Name += " (changed)"
	is.NoErr(s.PutProject(ctx, p3))
	since := getProject(t, s, orgA, "p3").UpdatedAt
	const writers, readers, each = 4, 4, 20

	errs := make(chan error, (writers+readers)*each*2)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for n := range each {
				i := store.Invoice{ID: fmt.Sprintf("w%d-%02d", w, n), OrgID: orgA, Number: "W", Status: store.InvoiceOpen,
					Currency: "USD", Total: int64(n), AmountDue: int64(n), IssuedAt: day(n, w), DueAt: day(n+30, 0)}
				if err := s.PutInvoice(ctx, i); err != nil {
					errs <- err
				}
				if n%2 == 0 {
					if err := d.DeleteInvoice(ctx, orgA, i.ID); err != nil {
						errs <- err
					}
				}
			}
		})
	}
	for r := range readers {
		wg.Go(func() {
			for n := range each {
				page, err := s.ListInvoices(ctx, orgA, store.InvoiceQuery{PageRequest: store.PageRequest{Page: 1 + n%2, Limit: 5 + r}, ListFilter: store.ListFilter{UpdatedSince: since}})
				if err != nil {
					errs <- err
					continue
				}
				if err := inChangeOrder(page.Items, func(i store.Invoice) (time.Time, string) { return i.UpdatedAt, i.ID }); err != nil {
					errs <- err
				}
				feed, err := c.ListDeletions(ctx, orgA, store.DeletionQuery{Since: since, PageRequest: store.PageRequest{Page: 1, Limit: 5 + r}})
				if err != nil {
					errs <- err
					continue
				}
				if err := inFeedOrder(feed.Items); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		is.NoErr(err) // no concurrent call fails
	}

	changed, err := s.ListInvoices(ctx, orgA, store.InvoiceQuery{PageRequest: store.PageRequest{Page: 1, Limit: 1}, ListFilter: store.ListFilter{UpdatedSince: since}})
	is.NoErr(err)
	is.Equal(changed.Total, writers*each/2) // every invoice kept is listed as changed
	feed, err := c.ListDeletions(ctx, orgA, store.DeletionQuery{Since: since, PageRequest: store.PageRequest{Page: 1, Limit: 1}})
	is.NoErr(err)
	is.Equal(feed.Total, writers*each/2) // every deletion is recorded
}

// Clocked is the clock of a Subject: Now is the time the store dates its
// writes from, and Advance moves it forward, so that the suite lets time
// pass without sleeping. A store with a clock option (memstore.WithClock,
// bunstore.WithClock) becomes a Subject by embedding, beside it, the clock
// it was given:
//
//	type clocked struct {
//		*memstore.Store
//		*manualClock // Now and Advance, safe for concurrent use
//	}
type Clocked interface {
	Now() time.Time
	Advance(d time.Duration)
}
