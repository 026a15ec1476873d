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

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/store"
)

// Reader is what the read part of the suite (RunRead) tests: a store's read
// side and the writer that seeds it, nothing else.
type Reader interface {
	store.Store
	store.Writer
}

// RunRead runs the read part of the suite as subtests of t: round trips,
// copies, orders, filters, restrictions and pages, single items, scoping
// and validation, for projects, milestones, deliverables and invoices.
// open must return a fresh, empty store each time it is called, and
// arrange its cleanup with t.Cleanup. The suite lets no time pass: a
// clock without an advance will do (WithClock), or none.
func RunRead(t *testing.T, open func(t *testing.T) Reader, opts ...Option) {
	runPart(t, "RunRead", readCases, false, func(t *testing.T) subject {
		s := open(t)
		return subject{Store: s, Writer: s}
	}, opts)
}

// readCases are the cases of RunRead.
var readCases = []suiteCase{
	{"RoundTrip", testRoundTrip},
	{"ReturnsCopies", testReturnsCopies},
	{"Replace", testReplace},
	{"Order", testOrder},
	{"FarPages", testFarPages},
	{"GetProjects", testGetProjects},
	{"RejectsInvalidItems", testRejectsInvalid},
	{"AllMilestones", testAllMilestones},
	{"KindsDescribed", testKindsDescribed},
	{"Kinds", kindsCase(writerKinds, readRules)},
}

// testRoundTrip reads each seeded item back, by id and in its list:
// every field as put, UpdatedAt the store's own.
func testRoundTrip(t *testing.T, open func(t *testing.T) subject) {
	s := open(t)
	from := s.Now()
	f := seedData()
	f.put(t, s)
	to := s.Now()
	roundTrip(t, from, to, f.projects, s.GetProject, func(p store.Project) (store.Page[store.Project], error) {
		return s.ListProjects(ctx, p.OrgID, store.ProjectQuery{PageRequest: all})
	}, nil)
	roundTrip(t, from, to, f.milestones, s.GetMilestone, func(m store.Milestone) (store.Page[store.Milestone], error) {
		return s.ListMilestones(ctx, m.OrgID, m.ProjectID, store.MilestoneQuery{PageRequest: all})
	}, nil)
	roundTrip(t, from, to, f.deliverables, s.GetDeliverable, func(d store.Deliverable) (store.Page[store.Deliverable], error) {
		return s.ListDeliverables(ctx, d.OrgID, store.DeliverableQuery{PageRequest: all})
	}, func(_ *testing.T, is *is.I, got, want store.Deliverable) {
		is.Equal(got.HasFile(), want.FileKey != "") // HasFile follows FileKey
	})
	roundTrip(t, from, to, f.invoices, s.GetInvoice, func(i store.Invoice) (store.Page[store.Invoice], error) {
		return s.ListInvoices(ctx, i.OrgID, store.InvoiceQuery{PageRequest: all})
	}, func(_ *testing.T, is *is.I, got, want store.Invoice) {
		is.Equal(got.HasDocument(), want.DocumentKey != "") // HasDocument follows DocumentKey
	})
}

// roundTrip reads each of items by get and in its list, as a subtest:
// every field as want holds it, UpdatedAt between from and to and the
// same in both, and what more checks.
func roundTrip[T any](t *testing.T, from, to time.Time, items []T, get func(ctx context.Context, org, id string) (T, error),
	list func(T) (store.Page[T], error), more func(t *testing.T, is *is.I, got, want T)) {
	t.Helper()
	field := func(v any, name string) reflect.Value { return reflect.ValueOf(v).FieldByName(name) }
	for _, want := range items {
		org, id := field(want, "OrgID").String(), field(want, "ID").String()
		t.Run(fmt.Sprintf("%T %s/%s", want, org, id), func(t *testing.T) {
			is := is.New(t)
			got, err := get(ctx, org, id)
			is.NoErr(err)
			same(is, got, want)
			updated := field(got, "UpdatedAt").Interface().(time.Time)
			within(is, updated, from, to)
			if more != nil {
				more(t, is, got, want)
			}
			page, err := list(want)
			is.NoErr(err)
			listed := find(t, page.Items, id)
			same(is, listed, want)
			is.True(field(listed, "UpdatedAt").Interface().(time.Time).Equal(updated)) // a list and a get agree on UpdatedAt
		})
	}
}

// testReturnsCopies checks that changing what a store returned, through its
// pointers too, does not change what it stores.
func testReturnsCopies(t *testing.T, open func(t *testing.T) subject) {
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
	same(is, again, want(f.projects, orgA, "p1")) // the stored project must not follow the caller's changes

	d, err := s.GetDeliverable(ctx, orgA, "d1")
	is.NoErr(err)
	*d.FileName = "changed.pdf"
	*d.ContentType = "text/plain"
	*d.SizeBytes = 1
	dAgain, err := s.GetDeliverable(ctx, orgA, "d1")
	is.NoErr(err)
	same(is, dAgain, want(f.deliverables, orgA, "d1")) // the stored deliverable must not follow the caller's changes

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
	same(is, find(t, page.Items, "i9"), kept) // the stored invoice must not follow changes to the value put
}

func testReplace(t *testing.T, open func(t *testing.T) subject) {
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
	same(is, find(t, pageM.Items, "m2"), m)
	pageI, err := s.ListInvoices(ctx, orgA, store.InvoiceQuery{PageRequest: all})
	is.NoErr(err)
	same(is, find(t, pageI.Items, "i1"), i)
}

// testOrder reads every list, filtered or not: the documented order,
// ties broken by id, only the matching items, with their total; and page
// by page, every item once, in order, with the true total on each page.
func testOrder(t *testing.T, open func(t *testing.T) subject) {
	s, _ := seeded(t, open)
	lists := append(append([]list{}, orderLists...), filterLists...)
	checkLists(t, s, lists)
	walk(t, s, lists...)
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
func testFarPages(t *testing.T, open func(t *testing.T) subject) {
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

// testGetProjects reads many projects at once: in the order asked,
// each once, as GetProject answers them, scoped by organization.
func testGetProjects(t *testing.T, open func(t *testing.T) subject) {
	s, f := seeded(t, open)
	is := is.New(t)
	got, err := s.GetProjects(ctx, orgA, []string{"p2", "nope", "p1", "pb", "p2", "p1\x00", ""})
	is.NoErr(err)
	is.Equal(ids(got), []string{"p2", "p1"}) // in the order asked, each once, unknown and other organization's ids skipped
	same(is, got[0], want(f.projects, orgA, "p2"))
	same(is, got[1], want(f.projects, orgA, "p1"))
	one, err := s.GetProject(ctx, orgA, "p1")
	is.NoErr(err)
	is.Equal(describe(got[1]), describe(one)) // as GetProject answers

	got, err = s.GetProjects(ctx, orgB, []string{"p1"})
	is.NoErr(err)
	is.Equal(len(got), 1)
	is.Equal(got[0].Name, "Bolt website") // org_b's p1

	for _, tc := range []struct {
		org string
		ids []string
	}{{orgA, nil}, {orgA, []string{}}, {"org_unknown", []string{"p1"}}, {"", []string{"p1"}}} {
		got, err := s.GetProjects(ctx, tc.org, tc.ids)
		is.NoErr(err)         // nothing to find is no error
		is.Equal(len(got), 0) // nothing found
	}
}

// refusal is a put that a store must refuse: the error wraps
// store.ErrNotFound when notFound (a missing owner or reference), else
// store.ErrInvalid.
type refusal struct {
	name     string
	put      func() error
	notFound bool
}

// checkRefusals runs each put as a subtest and checks its refusal: an
// error of the right kind, never an outage.
func checkRefusals(t *testing.T, refusals []refusal) {
	t.Helper()
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			err := tt.put()
			is.True(err != nil) // the item must be refused
			if tt.notFound {
				is.True(errors.Is(err, store.ErrNotFound)) // a missing owner or reference wraps store.ErrNotFound
			} else {
				is.True(errors.Is(err, store.ErrInvalid)) // an invalid item wraps store.ErrInvalid
			}
			is.True(tt.notFound || !errors.Is(err, store.ErrNotFound)) // an invalid item is not a missing one
			is.True(!errors.Is(err, store.ErrUnavailable))             // a refusal is never an outage
		})
	}
}

// testRejectsInvalid puts items that must be refused, organization ids
// and a file key no store keeps exactly among them, and checks that
// nothing of them is stored (an empty id, an unknown organization or
// project, another organization's project are kindRejects'). A reference to a missing organization or
// project (in the same organization) wraps store.ErrNotFound; any other
// refusal, store.ErrInvalid.
func testRejectsInvalid(t *testing.T, open func(t *testing.T) subject) {
	s, _ := seeded(t, open)
	okP := store.Project{ID: "new", OrgID: orgA, Name: "n", Status: store.ProjectPlanned, UpdatedAt: day(1, 1)}
	okM := store.Milestone{ID: "new", OrgID: orgA, ProjectID: "p1", Name: "n", Status: store.MilestonePending, DueAt: day(1, 1)}
	okD := store.Deliverable{ID: "new", OrgID: orgA, ProjectID: "p1", Name: "n", Status: store.DeliverablePending, CreatedAt: day(1, 1), UpdatedAt: day(1, 1)}
	okI := store.Invoice{ID: "new", OrgID: orgA, Number: "n", Status: store.InvoiceOpen, Currency: "USD", Total: 1, AmountDue: 1, IssuedAt: day(1, 1), DueAt: day(2, 1)}

	tests := []refusal{
		{"organization without id", func() error { return s.PutOrganization(ctx, store.Organization{Name: "x", Plan: "starter"}) }, false},
		{"organization with unknown plan", func() error {
			return s.PutOrganization(ctx, store.Organization{ID: "org_new", Name: "x", Plan: "platinum"})
		}, false},
		{"project with unknown status", func() error { p := okP; p.Status = "done"; return s.PutProject(ctx, p) }, false},
		{"milestone with unknown status", func() error { m := okM; m.Status = "late"; return s.PutMilestone(ctx, m) }, false},
		{"deliverable with unknown status", func() error { d := okD; d.Status = "APPROVED"; return s.PutDeliverable(ctx, d) }, false},
		{"deliverable with negative size", func() error { d := okD; d.SizeBytes = ptr(int64(-1)); return s.PutDeliverable(ctx, d) }, false},
		{"invoice with unknown status", func() error { i := okI; i.Status = "overdue"; return s.PutInvoice(ctx, i) }, false},
		{"invoice with lower-case currency", func() error { i := okI; i.Currency = "usd"; return s.PutInvoice(ctx, i) }, false},
		{"invoice with two-letter currency", func() error { i := okI; i.Currency = "US"; return s.PutInvoice(ctx, i) }, false},
		{"invoice without currency", func() error { i := okI; i.Currency = ""; return s.PutInvoice(ctx, i) }, false},
		{"invoice with negative total", func() error { i := okI; i.Total = -1; return s.PutInvoice(ctx, i) }, false},
		{"invoice with negative amount due", func() error { i := okI; i.AmountDue = -100; return s.PutInvoice(ctx, i) }, false},
	}
	// Organization ids and a file key no store keeps exactly: invalid, not
	// missing (each kind's own ids and references are kindRejects').
	for _, org := range unstorable(orgA) {
		tests = append(tests, refusal{fmt.Sprintf("organization %q", org), func() error {
			return s.PutOrganization(ctx, store.Organization{ID: org, Name: "n", Plan: "starter"})
		}, false})
	}
	for _, key := range unstorable("org_a/d1/homepage.pdf") {
		tests = append(tests, refusal{fmt.Sprintf("deliverable with file key %q", key), func() error {
			d := okD
			d.FileName, d.ContentType, d.SizeBytes, d.FileKey = ptr("f"), ptr("text/plain"), ptr(int64(1)), key
			return s.PutDeliverable(ctx, d)
		}, false})
	}
	checkRefusals(t, tests)

	// Nothing of the refused items was stored, and the seed data is intact.
	is := is.New(t)
	_, err := s.GetProject(ctx, orgA, "new")
	is.True(errors.Is(err, store.ErrNotFound)) // no refused project is stored
	_, err = s.GetDeliverable(ctx, orgA, "new")
	is.True(errors.Is(err, store.ErrNotFound)) // no refused deliverable is stored
	_, err = s.ListMilestones(ctx, "org_unknown", "new", store.MilestoneQuery{PageRequest: all})
	is.True(errors.Is(err, store.ErrNotFound)) // no refused organization or project is stored
	_, err = s.ListProjects(ctx, "org_new", store.ProjectQuery{PageRequest: all})
	is.NoErr(err)
	checkLists(t, s, orderLists) // refused items leave the lists as they were
	for _, org := range []string{orgB, "org_unknown"} {
		_, err := s.GetProject(ctx, org, "new")
		is.True(errors.Is(err, store.ErrNotFound)) // no refused project is stored in any organization
	}
}

// unstorable returns ids that no store can keep exactly (see
// store.Storable), most of which PostgreSQL's driver, were they sent,
// would turn into id itself: it drops a NUL, and it replaces each byte
// that is not UTF-8 with U+FFFD, so "p1\x00" would be "p1" and "p\xff"
// would be "p\ufffd". The last few are invalid UTF-8 of other kinds.
func unstorable(id string) []string {
	out := []string{id + "\x00", "\x00" + id, id[:1] + "\x00" + id[1:], id + "\x00\x00"}
	if strings.Contains(id, "\ufffd") {
		for _, b := range []string{"\xff", "\x80", "\xc3"} { // never UTF-8; a continuation alone; a lead byte alone
			out = append(out, strings.Replace(id, "\ufffd", b, 1))
		}
	}
	return append(out,
		id+"\xff",
		id+"\xef\xbf",     // U+FFFD cut short
		id+"\xc0\x80",     // NUL in the overlong form of modified UTF-8
		id+"\xed\xa0\x80", // a surrogate half, which UTF-8 does not encode
	)
}
