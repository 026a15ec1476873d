package storetest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/clientstatus/clientstatus/store"
	"github.com/matryer/is"
)

// Subject is what the suite tests: a store with its whole write side,
// and the clock it dates its writes from.
type Subject interface {
	store.Store
	store.Writer
	store.Deleter
	store.ThreadWriter
	store.Organizations
	store.RequestLog
	store.WebhookEndpoints
	store.WebhookQueue
	Clocked
}

// Run runs the whole suite as subtests of t: the read part (RunRead), then
// the cases of the write side, threads, events and sync, webhooks and the
// request log. open must return a fresh, empty
// store each time it is called (once per subtest), and arrange its cleanup
// with t.Cleanup.
func Run(t *testing.T, open func(t *testing.T) Subject) {
	var tests []suiteCase
	for _, c := range readCases {
		tests = append(tests, read(c))
	}
	tests = append(tests, []suiteCase{
		{"RejectsUnstorableIDs", testUnstorableWrites},
		{"CancelledContext", testCancelled},
		{"DeleteOrganization", testDeleteOrganization},
		{"DeletionsSinceTooOld", testDeletionsSinceTooOld},
		{"ConcurrentChanges", testConcurrentChanges},
		{"ThreadDepartures", testThreadDepartures},
		{"Versions", testVersions},
		{"RequestLog", testRequestLog},
		{"Ties", testTies},
		{"Events", testEvents},
		{"WebhooksOfDeletedOrganization", testWebhooksOfDeletedOrganization},
		{"Kinds", testKinds},
		{"WalkByAfter", testWalkByAfter},
		{"FollowSyncRule", testFollowSyncRule},
		{"DueBefore", testDueBefore},
		{"Threads", testThreads},
		{"ThreadsRestricted", testThreadsRestricted},
	}...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.run(t, open) })
	}
}

var ctx = context.Background()

// all is the first page with room for every seeded item.
var all = store.PageRequest{Page: 1, Limit: store.MaxLimit}

// testRoundTrip reads each project and deliverable back, by id and in
// its list: every field as put (milestones and invoices: testSingleItems).
func testRoundTrip(t *testing.T, open func(t *testing.T) reader) {
	s := open(t)
	from := s.Now()
	f := seedData()
	f.put(t, s)
	to := s.Now()
	for _, want := range f.projects {
		t.Run("project "+want.OrgID+"/"+want.ID, func(t *testing.T) {
			is := is.New(t)
			got, err := s.GetProject(ctx, want.OrgID, want.ID)
			is.NoErr(err)
			same(is, got, want)
			within(is, got.UpdatedAt, from, to)
			page, err := s.ListProjects(ctx, want.OrgID, store.ProjectQuery{PageRequest: all})
			is.NoErr(err)
			same(is, find(t, page.Items, want.ID, func(p store.Project) string { return p.ID }), want)
		})
	}
	for _, want := range f.deliverables {
		t.Run("deliverable "+want.OrgID+"/"+want.ID, func(t *testing.T) {
			is := is.New(t)
			got, err := s.GetDeliverable(ctx, want.OrgID, want.ID)
			is.NoErr(err)
			same(is, got, want)
			within(is, got.UpdatedAt, from, to)
			is.Equal(got.HasFile(), want.FileKey != "") // HasFile follows FileKey
			page, err := s.ListDeliverables(ctx, want.OrgID, store.DeliverableQuery{PageRequest: all})
			is.NoErr(err)
			same(is, find(t, page.Items, want.ID, func(d store.Deliverable) string { return d.ID }), want)
		})
	}
}

// testReturnsCopies checks that changing what a store returned, through its
// pointers too, does not change what it stores.
func testReturnsCopies(t *testing.T, open func(t *testing.T) reader) {
	is := is.New(t)
	s, _ := seeded(t, open)
	f := seedData() // pointers not shared with what was put

	p, err := s.GetProject(ctx, orgA, "p1")
	is.NoErr(err)
	*p.StartedAt = p.StartedAt.Add(time.Hour)
	*p.DueAt = p.DueAt.Add(time.Hour)
	p.Name = "changed"
	again, err := s.GetProject(ctx, orgA, "p1")
	is.NoErr(err)
	same(is, again, want(f.projects, orgA, "p1", func(p store.Project) (string, string) { return p.OrgID, p.ID })) // the stored project must not follow the caller's changes

	d, err := s.GetDeliverable(ctx, orgA, "d1")
	is.NoErr(err)
	*d.FileName = "changed.pdf"
	*d.ContentType = "text/plain"
	*d.SizeBytes = 1
	dAgain, err := s.GetDeliverable(ctx, orgA, "d1")
	is.NoErr(err)
	same(is, dAgain, want(f.deliverables, orgA, "d1", func(d store.Deliverable) (string, string) { return d.OrgID, d.ID })) // the stored deliverable must not follow the caller's changes

	// Nor may it follow changes to what was put.
	in := store.Invoice{ID: "i9", OrgID: orgA, Number: "A-0009", ProjectID: ptr("p1"), Status: store.InvoicePaid,
		Currency: "USD", Total: 10, AmountDue: 0, IssuedAt: day(2, 9), DueAt: day(3, 9), PaidAt: ptr(day(3, 9))}
	kept := in
	kept.ProjectID, kept.PaidAt = ptr("p1"), ptr(day(3, 9))
	is.NoErr(s.PutInvoice(ctx, in))
	*in.ProjectID = "p2"
	*in.PaidAt = day(9, 9)
	page, err := s.ListInvoices(ctx, orgA, store.InvoiceQuery{PageRequest: all})
	is.NoErr(err)
	same(is, find(t, page.Items, "i9", func(i store.Invoice) string { return i.ID }), kept) // the stored invoice must not follow changes to the value put
}

func testReplace(t *testing.T, open func(t *testing.T) reader) {
	is := is.New(t)
	s, _ := seeded(t, open)

	// Each replacement changes the sort key, so the item must move, and
	// clears the pointers, so stale values must not survive.
	p := store.Project{ID: "p4", OrgID: orgA, Name: "Mobile app v2", Status: store.ProjectPlanned, UpdatedAt: day(22, 9)}
	is.NoErr(s.PutProject(ctx, p))
	gotP, err := s.GetProject(ctx, orgA, "p4")
	is.NoErr(err)
	same(is, gotP, p)
	m := store.Milestone{ID: "m2", OrgID: orgA, ProjectID: "p1", Name: "Kick-off (moved)", Status: store.MilestonePending, DueAt: day(50, 12)}
	is.NoErr(s.PutMilestone(ctx, m))
	d := store.Deliverable{ID: "d1", OrgID: orgA, ProjectID: "p4", Name: "Homepage, file withdrawn", Status: store.DeliverablePending, CreatedAt: day(0, 9), UpdatedAt: day(25, 9)}
	is.NoErr(s.PutDeliverable(ctx, d))
	gotD, err := s.GetDeliverable(ctx, orgA, "d1")
	is.NoErr(err)
	same(is, gotD, d)
	is.True(!gotD.HasFile()) // the replaced deliverable has no file
	i := store.Invoice{ID: "i1", OrgID: orgA, Number: "A-0001b", Status: store.InvoiceVoid, Currency: "EUR", Total: 7, AmountDue: 7, IssuedAt: day(45, 9), DueAt: day(46, 9)}
	is.NoErr(s.PutInvoice(ctx, i))
	// Replacing an organization keeps what it owns.
	is.NoErr(s.PutOrganization(ctx, store.Organization{ID: orgA, Name: "Acme Inc", Plan: "enterprise", RetainerActive: true, APIEnabled: false}))

	for _, l := range []list{
		{"projects", projects(orgA, store.ProjectQuery{}), []string{"p1", "p2", "p5", "p0", "p3", "p4"}},
		{"milestones of p1", milestones(orgA, "p1", store.MilestoneQuery{}), []string{"m1", "m3", "m4", "m2"}},
		{"milestones of p1 completed (m2 no longer is)", milestones(orgA, "p1", store.MilestoneQuery{Status: store.MilestoneCompleted}), []string{}},
		{"deliverables", deliverables(orgA, store.DeliverableQuery{}), []string{"d4", "d2", "d3", "d5", "d1"}},
		{"deliverables of p1 (d1 moved to p4)", deliverables(orgA, store.DeliverableQuery{ListFilter: store.ListFilter{ProjectID: "p1"}}), []string{"d4", "d2"}},
		{"invoices", invoices(orgA, store.InvoiceQuery{}), []string{"i1", "i6", "i2", "i3", "i4", "i5"}},
		{"invoices of p1 (i1 became a retainer invoice)", invoices(orgA, store.InvoiceQuery{ListFilter: store.ListFilter{ProjectID: "p1"}}), []string{"i3"}},
		{"org_b's projects are untouched", projects(orgB, store.ProjectQuery{}), []string{"p1", "pb"}},
		{"org_b's invoices are untouched", invoices(orgB, store.InvoiceQuery{}), []string{"ib", "i1"}},
	} {
		got, total, err := l.fetch(ctx, s, all)
		is.NoErr(err)                // l.name
		is.Equal(got, l.want)        // each replaced item is listed once, at its new place
		is.Equal(total, len(l.want)) // a replacement does not add to the total
	}

	pageM, err := s.ListMilestones(ctx, orgA, "p1", store.MilestoneQuery{PageRequest: all})
	is.NoErr(err)
	same(is, find(t, pageM.Items, "m2", func(m store.Milestone) string { return m.ID }), m)
	pageI, err := s.ListInvoices(ctx, orgA, store.InvoiceQuery{PageRequest: all})
	is.NoErr(err)
	same(is, find(t, pageI.Items, "i1", func(i store.Invoice) string { return i.ID }), i)
}

// testOrder reads every list, filtered or not: the documented order,
// ties broken by id, only the matching items, with their total; and page
// by page, every item once, in order, with the true total on each page.
func testOrder(t *testing.T, open func(t *testing.T) reader) {
	s, _ := seeded(t, open)
	lists := append(append([]list{}, orderLists...), filterLists...)
	checkLists(t, s, lists)
	for _, l := range lists {
		walk(t, s, l)
	}
}

// farPages are pages far past the end of any list: offsets just past
// what an int32 or a uint32 holds, where an engine that keeps the offset in
// 32 bits wraps around to the first page, and the last page the handler
// allows for a limit (page*limit within an int). Pages over math.MaxInt
// are left out where an int is 32 bits.
func farPages() []store.PageRequest {
	var out []store.PageRequest
	for _, r := range []struct {
		page  uint64
		limit int
	}{
		{1<<31 + 1, 1}, // page=2147483649&limit=1: offset 2^31
		{1 << 31, 1},   // offset 2^31-1, the largest int32
		{1<<31/100 + 2, 100},
		{1<<32 + 1, 1},
		{1<<32/7 + 2, 7},
		{1<<62 + 1, 1},
		{math.MaxInt / 100, 100}, // the handler's last page: offset near 2^63
		{math.MaxInt / 7, 7},
		{math.MaxInt, 1}, // offset 2^63-2, the largest there is
	} {
		if r.page <= uint64(math.MaxInt/r.limit) {
			out = append(out, store.PageRequest{Page: int(r.page), Limit: r.limit})
		}
	}
	return out
}

// testFarPages asks every list for pages far past its end: each is empty,
// with the true total.
func testFarPages(t *testing.T, open func(t *testing.T) reader) {
	s, _ := seeded(t, open)
	for _, l := range append(append([]list{}, orderLists...), filterLists...) {
		for _, r := range farPages() {
			t.Run(fmt.Sprintf("%s, page %d, limit %d", l.name, r.Page, r.Limit), func(t *testing.T) {
				is := is.New(t)
				got, total, err := l.fetch(ctx, s, r)
				is.NoErr(err)                // a page far past the end is no error
				is.Equal(got, []string{})    // a page far past the end is empty
				is.Equal(total, len(l.want)) // a page far past the end has the true total
			})
		}
	}
}

// testCancelled calls the methods that are no kind's (each kind's are
// kindCancelled's) with a cancelled context: each returns its error,
// wrapped, and a cancelled write stores nothing.
func testCancelled(t *testing.T, open func(t *testing.T) Subject) {
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

// find returns the item with the id, failing the test when there is none
// or more than one.
func find[T any](t *testing.T, items []T, id string, idOf func(T) string) T {
	t.Helper()
	var found []T
	for _, v := range items {
		if idOf(v) == id {
			found = append(found, v)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d items with id %q in the list, want 1", len(found), id)
	}
	return found[0]
}

// want returns the seeded item of the organization with the id.
func want[T any](items []T, org, id string, key func(T) (string, string)) T {
	for _, v := range items {
		if o, i := key(v); o == org && i == id {
			return v
		}
	}
	panic("storetest: no seeded item " + org + "/" + id)
}

// same checks that got holds want's values, field by field, times compared
// as instants, and that every time in got is in UTC. It leaves UpdatedAt
// out, which a store that tracks changes sets itself: testRoundTrip checks
// it with within.
func same(is *is.I, got, want any) {
	is.Helper()
	is.Equal(describe(got), describe(want)) // every field comes back as it was put
	is.Equal(nonUTC(got), []string{})       // every time comes back in UTC
}

// describe renders a struct's fields but UpdatedAt, following pointers and
// writing times as UTC instants, so that two items compare equal when
// their values do.
func describe(v any) string {
	rv := reflect.ValueOf(v)
	var b strings.Builder
	b.WriteString(rv.Type().Name() + "{")
	for k := range rv.NumField() {
		f := rv.Field(k)
		if rv.Type().Field(k).Name == "UpdatedAt" {
			continue
		}
		fmt.Fprintf(&b, " %s:", rv.Type().Field(k).Name)
		if f.Kind() == reflect.Pointer {
			if f.IsNil() {
				b.WriteString("nil")
				continue
			}
			b.WriteString("&")
			f = f.Elem()
		}
		if tm, ok := f.Interface().(time.Time); ok {
			b.WriteString(tm.UTC().Format(time.RFC3339Nano))
			continue
		}
		fmt.Fprintf(&b, "%q", fmt.Sprint(f.Interface()))
	}
	return b.String() + " }"
}

// nonUTC returns the names of the struct's time fields (set or pointed to)
// whose location is not UTC.
func nonUTC(v any) []string {
	rv := reflect.ValueOf(v)
	out := []string{}
	for k := range rv.NumField() {
		f := rv.Field(k)
		if f.Kind() == reflect.Pointer {
			if f.IsNil() {
				continue
			}
			f = f.Elem()
		}
		if tm, ok := f.Interface().(time.Time); ok && tm.Location() != time.UTC {
			out = append(out, rv.Type().Field(k).Name+" in "+tm.Location().String())
		}
	}
	return out
}
