package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/store"
)

// Changer is what the part of the suite of changes (RunChanges) tests: a
// Reader that also deletes and reads organizations.
type Changer interface {
	Reader
	store.Deleter
	store.Organizations
}

// RunChanges runs the part of the suite of changes as subtests of t:
// deletes and organizations, cancellation, UpdatedAt and UpdatedSince,
// deletion records and departures, data versions, events, walks by
// After, the sync rule, ties and DueBefore, for projects, milestones,
// deliverables and invoices. open must return a fresh, empty store each
// time it is called, and arrange its cleanup with t.Cleanup; opts must
// hold a clock the suite can move (WithClock).
func RunChanges(t *testing.T, open func(t *testing.T) Changer, opts ...Option) {
	runPart(t, "RunChanges", changeCases, true, func(t *testing.T) subject {
		s := open(t)
		return subject{Store: s, Writer: s, Deleter: s, Organizations: s}
	}, opts)
}

// changeCases are the cases of RunChanges.
var changeCases = []suiteCase{
	{"CancelledContext", testCancelled},
	{"DeleteOrganization", testDeleteOrganization},
	{"DeletionsSinceTooOld", testDeletionsSinceTooOld},
	{"ConcurrentChanges", testConcurrentChanges},
	{"Versions", testVersions},
	{"Ties", testTies},
	{"DueBefore", testDueBefore},
	{"WalkByAfter", testWalkByAfter},
	{"FollowSyncRule", testFollowSyncRule},
	{"Events", eventsCase([]suiteCase{
		{"Rules", testEventRules},
		{"Resume", testEventResume},
		{"UnknownCursor", testEventUnknownCursor},
		{"Restricted", testEventRestricted},
		{"Retention", testEventRetention},
		{"Watch", testEventWatch},
	})},
	{"Kinds", kindsCase(writerKinds, changeRules)},
}

// The helpers of the cases of store.Changes, and the concurrent changes
// case; the rules of every kind are in kindchanges.go.

// tick is how far the suite moves the store's clock between writes that
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

// walk reads each list page by page and checks that the pages hold every
// item once, in order, with the true total on each, a page past the end
// included.
func walk(t *testing.T, s store.Store, lists ...list) {
	t.Helper()
	for _, l := range lists {
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
}

// inOrder reports items out of the order of a list by a time ascending,
// then id (a list of changes, a thread's messages).
func inOrder[T any](items []T, key func(T) (time.Time, string)) error {
	for k := 1; k < len(items); k++ {
		at1, id1 := key(items[k-1])
		at2, id2 := key(items[k])
		if at1.After(at2) || at1.Equal(at2) && id1 >= id2 {
			return fmt.Errorf("%s (at %s) listed before %s (at %s)", id1, at1, id2, at2)
		}
	}
	return nil
}

// concurrently runs each worker in a goroutine of its own, for n from 0
// to each-1, all at once, and fails t on every error they return.
func concurrently(t *testing.T, each int, workers []func(n int) error) {
	t.Helper()
	errs := make(chan error, len(workers)*each)
	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Go(func() {
			for n := range each {
				if err := w(n); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err) // no concurrent call fails
	}
}

// testConcurrentChanges puts and deletes while other goroutines read
// changes and deletions; run it with -race. Every read must see a
// consistent, ordered list.
func testConcurrentChanges(t *testing.T, open func(t *testing.T) subject) {
	s := open(t)
	seedData().put(t, s)
	is := is.New(t)
	s.Advance(tick)
	p3 := want(seedData().projects, orgA, "p3")
	p3.Name += " (changed)"
	is.NoErr(s.PutProject(ctx, p3))
	since := getItem(t, projectKind, s, orgA, "p3").updated
	const writers, readers, each = 4, 4, 20
	var workers []func(n int) error
	for w := range writers {
		workers = append(workers, func(n int) error {
			i := store.Invoice{ID: fmt.Sprintf("w%d-%02d", w, n), OrgID: orgA, Number: "W", Status: store.InvoiceOpen,
				Currency: "USD", Total: int64(n), AmountDue: int64(n), IssuedAt: day(n, w), DueAt: day(n+30, 0)}
			if err := s.PutInvoice(ctx, i); err != nil || n%2 != 0 {
				return err
			}
			return s.DeleteInvoice(ctx, orgA, i.ID)
		})
	}
	for r := range readers {
		workers = append(workers, func(n int) error {
			page, err := s.ListInvoices(ctx, orgA, store.InvoiceQuery{PageRequest: store.PageRequest{Page: 1 + n%2, Limit: 5 + r}, ListFilter: store.ListFilter{UpdatedSince: since}})
			if err != nil {
				return err
			}
			if err := inOrder(page.Items, func(i store.Invoice) (time.Time, string) { return i.UpdatedAt, i.ID }); err != nil {
				return err
			}
			feed, err := s.ListDeletions(ctx, orgA, store.DeletionQuery{Since: since, PageRequest: store.PageRequest{Page: 1, Limit: 5 + r}})
			if err != nil {
				return err
			}
			return inFeedOrder(feed.Items)
		})
	}
	concurrently(t, each, workers)

	changed, err := s.ListInvoices(ctx, orgA, store.InvoiceQuery{PageRequest: store.PageRequest{Page: 1, Limit: 1}, ListFilter: store.ListFilter{UpdatedSince: since}})
	is.NoErr(err)
	is.Equal(changed.Total, writers*each/2) // every invoice kept is listed as changed
	feed, err := s.ListDeletions(ctx, orgA, store.DeletionQuery{Since: since, PageRequest: store.PageRequest{Page: 1, Limit: 1}})
	is.NoErr(err)
	is.Equal(feed.Total, writers*each/2) // every deletion is recorded
}

// testCancelled calls the methods that are no kind's (each kind's are
// kindCancelled's) with a cancelled context: each returns its error,
// wrapped, and a cancelled write stores nothing.
func testCancelled(t *testing.T, open func(t *testing.T) subject) {
	s, _ := seeded(t, open)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	calls := map[string]func(ctx context.Context) error{
		"PutOrganization": func(ctx context.Context) error {
			return s.PutOrganization(ctx, store.Organization{ID: "org_c", Name: "C", Plan: "starter"})
		},
		"GetProjects":        func(ctx context.Context) error { _, err := s.GetProjects(ctx, orgA, []string{"p1"}); return err },
		"Organization":       func(ctx context.Context) error { _, err := s.Organization(ctx, orgA); return err },
		"DeleteOrganization": func(ctx context.Context) error { return s.DeleteOrganization(ctx, orgB) },
		"ListThreadMessages": func(ctx context.Context) error {
			_, err := s.ListThreadMessages(ctx, orgA, "t1", store.MessageQuery{PageRequest: all})
			return err
		},
		"GetAttachment": func(ctx context.Context) error { _, err := getAttachment(s, ctx, orgA, "a1"); return err },
		"DataVersion":   func(ctx context.Context) error { _, err := s.DataVersion(ctx, orgA); return err },
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			is.New(t).True(errors.Is(call(cctx), context.Canceled)) // a cancelled context's error is returned, wrapped
		})
	}
	is := is.New(t)
	_, err := s.Organization(ctx, "org_c")
	is.True(errors.Is(err, store.ErrNotFound)) // a cancelled PutOrganization stores nothing
	_, err = s.Organization(ctx, orgB)
	is.NoErr(err) // a cancelled DeleteOrganization deletes nothing
}

// testDeleteOrganization deletes an organization: it is not found, and
// is deleted once (its items of each kind go with it, it takes no more,
// the other organization's stay and it gets none back put again:
// kindOrganizationDeleted).
func testDeleteOrganization(t *testing.T, open func(t *testing.T) subject) {
	s, _ := seeded(t, open)
	is := is.New(t)
	is.NoErr(s.DeleteOrganization(ctx, orgA)) // deleting an organization
	_, err := s.Organization(ctx, orgA)
	is.True(errors.Is(err, store.ErrNotFound)) // a deleted organization is not found
	err = s.DeleteOrganization(ctx, orgA)
	is.True(errors.Is(err, store.ErrNotFound)) // an organization is deleted once
}

// deletions reads a page of deletion records as "kind id" strings.
func deletions(org string, q store.DeletionQuery) fetchFunc {
	return func(ctx context.Context, s store.Store, r store.PageRequest) ([]string, int, error) {
		return pageIDs(s.ListDeletions(ctx, org, paged(q, r)))
	}
}

// inFeedOrder reports deletion records out of the feed's order: DeletedAt,
// then kind, then id.
func inFeedOrder(feed []store.Deletion) error {
	for k := 1; k < len(feed); k++ {
		a, b := feed[k-1], feed[k]
		if c := a.DeletedAt.Compare(b.DeletedAt); c > 0 || c == 0 && (a.Kind > b.Kind || a.Kind == b.Kind && a.ID >= b.ID) {
			return fmt.Errorf("%s %s (deleted %s) listed before %s %s (deleted %s)", a.Kind, a.ID, a.DeletedAt, b.Kind, b.ID, b.DeletedAt)
		}
	}
	return nil
}

func testDeletionsSinceTooOld(t *testing.T, open func(t *testing.T) subject) {
	s := open(t)
	seedData().put(t, s)
	is := is.New(t)

	for _, since := range []time.Time{
		{},
		s.Now().Add(-store.DeletionRetention - 24*time.Hour),
		day(-3650, 0),
	} {
		for _, org := range []string{orgA, orgB} {
			_, err := s.ListDeletions(ctx, org, store.DeletionQuery{PageRequest: all, Since: since})
			is.True(errors.Is(err, store.ErrSinceTooOld)) // a since older than what the store knows wraps store.ErrSinceTooOld
		}
	}

	// A since from the store's own recent times is fine.
	s.Advance(tick)
	p3 := want(seedData().projects, orgA, "p3")
	p3.Name += " (changed)"
	is.NoErr(s.PutProject(ctx, p3))
	page, err := s.ListDeletions(ctx, orgA, store.DeletionQuery{PageRequest: all, Since: getItem(t, projectKind, s, orgA, "p3").updated})
	is.NoErr(err)              // a recent since is known
	is.Equal(page.Total, 0)    // nothing was deleted
	is.True(page.Items != nil) // an empty page is [] in JSON, not null
}

// testVersions makes the writes that are no kind's own (each kind's put,
// change and delete are kindVersions'), and checks that each one moves
// the organization's data version to a value never seen before, the
// deleted and re-created organization included, and that a write to
// another organization never brings back a value it had.
func testVersions(t *testing.T, open func(t *testing.T) subject) {
	s := open(t)
	is := is.New(t)
	f := seedData()
	f.put(t, s)
	seen := map[int64]string{}
	moved := versionCheck(t, s, orgA, seen)
	moved("a project put", func() error { return projectKind.put(ctx, s, orgA, "v1", "", 0) })

	// Writes to the other organization may move org_a's version or not;
	// they never bring back a value it had.
	b := want(f.invoices, orgB, "ib")
	b.AmountDue = 1
	is.NoErr(s.PutInvoice(ctx, b))
	if n, err := s.DataVersion(ctx, orgA); err != nil || seen[n] != "" && seen[n] != "a project put" {
		t.Fatalf("after a write to org_b, org_a's version is %d (%v), as after %s", n, err, seen[n])
	}
	moved("a project deleted, with its items", func() error { return s.DeleteProject(ctx, orgA, "p1") })
	moved("the organization deleted", func() error { return s.DeleteOrganization(ctx, orgA) })
	moved("the organization put again, and a project", func() error {
		if err := s.PutOrganization(ctx, f.orgs[0]); err != nil {
			return err
		}
		return s.PutProject(ctx, want(f.projects, orgA, "p1"))
	})

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err := s.DataVersion(cancelled, orgA)
	is.True(errors.Is(err, context.Canceled)) // a cancelled context's error
}

// versionCheck returns moved, which makes a write and checks that it
// moved org's data version to a value not in seen, records it there, and
// checks that the version stays until the next write. The version before
// the first is recorded as well.
func versionCheck(t *testing.T, v store.Versions, org string, seen map[int64]string) func(what string, write func() error) {
	t.Helper()
	is := is.New(t)
	version := func() int64 {
		t.Helper()
		n, err := v.DataVersion(ctx, org)
		is.NoErr(err) // reading the data version
		return n
	}
	seen[version()] = "before the writes"
	return func(what string, write func() error) {
		t.Helper()
		is.NoErr(write()) // the write
		n := version()
		if prev, ok := seen[n]; ok {
			t.Fatalf("after %s the data version is %d, as it was after %s", what, n, prev)
		}
		seen[n] = what
		again := version()
		is.Equal(again, n) // a version moves only with a write
	}
}
