package storetest

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/store"
)

// The suite's two organizations. They reuse each other's ids (p1, m1, d1,
// i1) for different items, and their times interleave, so a store that
// leaks one organization into the other fails most subtests.
const (
	orgA = "org_a"
	orgB = "org_b"
)

// zone is where every seeded time is given: a store must return the same
// instants in UTC.
var zone = time.FixedZone("UTC+2", 2*60*60)

// day is midnight (in zone) of day n after 2026-01-01, plus hours; whole
// seconds only, which every engine keeps.
func day(n, hours int) time.Time {
	return time.Date(2026, 1, 1+n, hours, 0, 0, 0, zone)
}

func ptr[T any](v T) *T { return &v }

// fixture is the suite's seed data. Beside the cases named in the lists,
// it holds non-ASCII text, an amount above 2^53 (exact only as an integer),
// a size of 0 (not nil) and nil pointers of every kind.
type fixture struct {
	orgs         []store.Organization
	projects     []store.Project
	milestones   []store.Milestone
	deliverables []store.Deliverable
	invoices     []store.Invoice
}

// seedData returns fresh seed data (callers may modify it). Items are listed
// in an order unrelated to any list order, and the comments give each list's
// expected order, which the subtests spell out again as ids.
func seedData() fixture {
	return fixture{
		orgs: []store.Organization{
			{ID: orgA, Name: "Acme", Plan: "growth", RetainerActive: true, APIEnabled: true},
			{ID: orgB, Name: "Bolt", Plan: "starter", RetainerActive: false, APIEnabled: true},
		},
		// org_a by StartedAt desc, nil last, then id: p4, p1, p2, p5, p0, p3.
		// org_b: p1, pb.
		projects: []store.Project{
			{ID: "p3", OrgID: orgA, Name: "Brand refresh", Status: store.ProjectPlanned, UpdatedAt: day(0, 9)},
			{ID: "p1", OrgID: orgA, Name: "Website", Status: store.ProjectInProgress, StartedAt: ptr(day(10, 9)), DueAt: ptr(day(60, 18)), UpdatedAt: day(11, 10)},
			{ID: "p5", OrgID: orgA, Name: "Old intranet", Status: store.ProjectCancelled, StartedAt: ptr(day(5, 9)), DueAt: ptr(day(9, 18)), UpdatedAt: day(8, 12)},
			{ID: "p2", OrgID: orgA, Name: "Logo", Status: store.ProjectCompleted, StartedAt: ptr(day(10, 9)), UpdatedAt: day(12, 16)},
			{ID: "p0", OrgID: orgA, Name: "Newsletter", Status: store.ProjectPlanned, DueAt: ptr(day(90, 0)), UpdatedAt: day(1, 9)},
			{ID: "p4", OrgID: orgA, Name: "Mobile app", Status: store.ProjectOnHold, StartedAt: ptr(day(20, 9)), UpdatedAt: day(21, 9)},
			{ID: "pb", OrgID: orgB, Name: `Café "Größe" shop — 店`, Status: store.ProjectInProgress, UpdatedAt: day(3, 9)},
			{ID: "p1", OrgID: orgB, Name: "Bolt website", Status: store.ProjectCompleted, StartedAt: ptr(day(15, 9)), DueAt: ptr(day(30, 9)), UpdatedAt: day(30, 9)},
		},
		// org_a p1 by DueAt asc then id: m2, m1, m3, m4; p2: m5.
		// org_b p1: m1; pb: mb.
		milestones: []store.Milestone{
			{ID: "m4", OrgID: orgA, ProjectID: "p1", Name: "Launch", Status: store.MilestonePending, DueAt: day(40, 12)},
			{ID: "m1", OrgID: orgA, ProjectID: "p1", Name: "Design", Status: store.MilestonePending, DueAt: day(30, 12)},
			{ID: "m3", OrgID: orgA, ProjectID: "p1", Name: "Build", Status: store.MilestoneInProgress, DueAt: day(30, 12)},
			{ID: "m2", OrgID: orgA, ProjectID: "p1", Name: "Kick-off", Status: store.MilestoneCompleted, DueAt: day(15, 12), CompletedAt: ptr(day(14, 17))},
			{ID: "m5", OrgID: orgA, ProjectID: "p2", Name: "Final logo", Status: store.MilestoneCompleted, DueAt: day(12, 12), CompletedAt: ptr(day(12, 11))},
			{ID: "m1", OrgID: orgB, ProjectID: "p1", Name: "Bolt handover", Status: store.MilestoneCompleted, DueAt: day(31, 12), CompletedAt: ptr(day(30, 8))},
			{ID: "mb", OrgID: orgB, ProjectID: "pb", Name: "Checkout", Status: store.MilestoneInProgress, DueAt: day(45, 12)},
		},
		// org_a by CreatedAt desc then id: d4, d2, d1, d3, d5. org_b: d1.
		deliverables: []store.Deliverable{
			{ID: "d3", OrgID: orgA, ProjectID: "p2", Name: "Logo sketches", Status: store.DeliverablePending, CreatedAt: day(12, 10), UpdatedAt: day(12, 10)},
			{ID: "d1", OrgID: orgA, ProjectID: "p1", Name: "Homepage design", Status: store.DeliverableApproved,
				FileName: ptr("homepage.pdf"), ContentType: ptr("application/pdf"), SizeBytes: ptr(int64(48213)), FileKey: "org_a/d1/homepage.pdf",
				CreatedAt: day(12, 10), UpdatedAt: day(13, 15)},
			{ID: "d5", OrgID: orgA, ProjectID: "p4", Name: "App wireframes", Status: store.DeliverableApproved,
				FileName: ptr("wireframes.zip"), ContentType: ptr("application/zip"), SizeBytes: ptr(int64(0)), FileKey: "org_a/d5.zip",
				CreatedAt: day(1, 9), UpdatedAt: day(2, 9)},
			{ID: "d2", OrgID: orgA, ProjectID: "p1", Name: "About page", Status: store.DeliverableInReview, CreatedAt: day(15, 9), UpdatedAt: day(16, 9)},
			{ID: "d4", OrgID: orgA, ProjectID: "p1", Name: "Contact form", Status: store.DeliverableRejected, CreatedAt: day(20, 9), UpdatedAt: day(20, 9)},
			{ID: "d1", OrgID: orgB, ProjectID: "pb", Name: "Bolt checkout flow", Status: store.DeliverableInReview,
				FileName: ptr("checkout flow (v2).png"), ContentType: ptr("image/png"), SizeBytes: ptr(int64(1024)), FileKey: "org_b/flow.png",
				CreatedAt: day(14, 9), UpdatedAt: day(14, 9)},
		},
		// org_a by IssuedAt desc then id: i6, i2, i3, i1, i4, i5.
		// org_b: ib, i1.
		invoices: []store.Invoice{
			{ID: "i4", OrgID: orgA, Number: "A-0004", ProjectID: ptr("p2"), Status: store.InvoiceDraft, Currency: "EUR", Total: 50000, AmountDue: 50000, IssuedAt: day(5, 9), DueAt: day(35, 9)},
			{ID: "i1", OrgID: orgA, Number: "A-0001", ProjectID: ptr("p1"), Status: store.InvoicePaid, Currency: "USD", Total: 120000, AmountDue: 0, IssuedAt: day(10, 9), DueAt: day(40, 9), PaidAt: ptr(day(20, 14)),
				DocumentKey: "org_a/invoices/A-0001.pdf"},
			{ID: "i5", OrgID: orgA, Number: "A-0005", Status: store.InvoiceVoid, Currency: "USD", Total: 1999, AmountDue: 0, IssuedAt: day(1, 9), DueAt: day(31, 9),
				DocumentKey: "org_a/retainer 2026-01 (Größe).pdf"},
			{ID: "i3", OrgID: orgA, Number: "A-0003", ProjectID: ptr("p1"), Status: store.InvoiceOpen, Currency: "USD", Total: 80000, AmountDue: 30000, IssuedAt: day(30, 9), DueAt: day(60, 9)},
			{ID: "i2", OrgID: orgA, Number: "A-0002", Status: store.InvoiceOpen, Currency: "EUR", Total: 250000, AmountDue: 250000, IssuedAt: day(30, 9), DueAt: day(45, 9)},
			{ID: "i6", OrgID: orgA, Number: "A-0006", ProjectID: ptr("p2"), Status: store.InvoicePaid, Currency: "EUR", Total: 0, AmountDue: 0, IssuedAt: day(40, 9), DueAt: day(40, 9), PaidAt: ptr(day(40, 9))},
			{ID: "i1", OrgID: orgB, Number: "B-0001", ProjectID: ptr("p1"), Status: store.InvoicePaid, Currency: "GBP", Total: 9900, AmountDue: 0, IssuedAt: day(11, 9), DueAt: day(25, 9), PaidAt: ptr(day(12, 9))},
			{ID: "ib", OrgID: orgB, Number: "B-0002", Status: store.InvoiceOpen, Currency: "GBP", Total: 9_007_199_254_740_993, AmountDue: 9_007_199_254_740_993, IssuedAt: day(50, 9), DueAt: day(80, 9)},
		},
	}
}

// put writes the fixture, owners first.
func (f fixture) put(t *testing.T, s store.Writer) {
	t.Helper()
	is := is.New(t)
	ctx := context.Background()
	for _, o := range f.orgs {
		is.NoErr(s.PutOrganization(ctx, o)) // seeding an organization
	}
	for _, p := range f.projects {
		is.NoErr(s.PutProject(ctx, p)) // seeding a project
	}
	for _, m := range f.milestones {
		is.NoErr(s.PutMilestone(ctx, m)) // seeding a milestone
	}
	for _, d := range f.deliverables {
		is.NoErr(s.PutDeliverable(ctx, d)) // seeding a deliverable
	}
	for _, i := range f.invoices {
		is.NoErr(s.PutInvoice(ctx, i)) // seeding an invoice
	}
}

// seeded opens a fresh store and writes the seed data into it.
func seeded[S store.Writer](t *testing.T, open func(t *testing.T) S) (S, fixture) {
	t.Helper()
	s := open(t)
	f := seedData()
	f.put(t, s)
	return s, f
}

// list is one query against one of the four lists, reduced to what the
// order, filter and paging subtests compare: the ids of a page, in order,
// and the total.
type list struct {
	name  string
	fetch fetchFunc
	want  []string // every matching id, in list order
}

// paged returns a copy of the query q with the page r: a list's fetch
// reads its own copy, as subtests fetch the same list in parallel.
func paged[Q any](q Q, r store.PageRequest) Q {
	reflect.ValueOf(&q).Elem().FieldByName("PageRequest").Set(reflect.ValueOf(r))
	return q
}

// The lists of the seed data, as ids.

func projects(org string, q store.ProjectQuery) fetchFunc {
	return func(ctx context.Context, s store.Store, r store.PageRequest) ([]string, int, error) {
		return pageIDs(s.ListProjects(ctx, org, paged(q, r)))
	}
}

func milestones(org, project string, q store.MilestoneQuery) fetchFunc {
	return func(ctx context.Context, s store.Store, r store.PageRequest) ([]string, int, error) {
		return pageIDs(s.ListMilestones(ctx, org, project, paged(q, r)))
	}
}

func deliverables(org string, q store.DeliverableQuery) fetchFunc {
	return func(ctx context.Context, s store.Store, r store.PageRequest) ([]string, int, error) {
		return pageIDs(s.ListDeliverables(ctx, org, paged(q, r)))
	}
}

func invoices(org string, q store.InvoiceQuery) fetchFunc {
	return func(ctx context.Context, s store.Store, r store.PageRequest) ([]string, int, error) {
		return pageIDs(s.ListInvoices(ctx, org, paged(q, r)))
	}
}

// ids returns the items' ids ("kind id" for a deletion); never nil, so
// that an empty page compares equal to []string{}.
func ids[T any](items []T) []string {
	out := []string{}
	for _, v := range items {
		if d, ok := any(v).(store.Deletion); ok {
			out = append(out, string(d.Kind)+" "+d.ID)
			continue
		}
		out = append(out, reflect.ValueOf(v).FieldByName("ID").String())
	}
	return out
}

// pageIDs is a page as the lists compare it: its ids and its total.
func pageIDs[T any](p store.Page[T], err error) ([]string, int, error) {
	return ids(p.Items), p.Total, err
}

// orderLists are the unfiltered lists of the seed data. Their expected
// orders include ties on the sort key (p1/p2, p0/p3, m1/m3, d1/d3, i2/i3),
// broken by id.
var orderLists = []list{
	{"projects of org_a", projects(orgA, store.ProjectQuery{}), []string{"p4", "p1", "p2", "p5", "p0", "p3"}},
	{"projects of org_b", projects(orgB, store.ProjectQuery{}), []string{"p1", "pb"}},
	{"milestones of org_a p1", milestones(orgA, "p1", store.MilestoneQuery{}), []string{"m2", "m1", "m3", "m4"}},
	{"milestones of org_a p2", milestones(orgA, "p2", store.MilestoneQuery{}), []string{"m5"}},
	{"milestones of org_a p3 (none)", milestones(orgA, "p3", store.MilestoneQuery{}), []string{}},
	{"milestones of org_b p1", milestones(orgB, "p1", store.MilestoneQuery{}), []string{"m1"}},
	{"deliverables of org_a", deliverables(orgA, store.DeliverableQuery{}), []string{"d4", "d2", "d1", "d3", "d5"}},
	{"deliverables of org_b", deliverables(orgB, store.DeliverableQuery{}), []string{"d1"}},
	{"invoices of org_a", invoices(orgA, store.InvoiceQuery{}), []string{"i6", "i2", "i3", "i1", "i4", "i5"}},
	{"invoices of org_b", invoices(orgB, store.InvoiceQuery{}), []string{"ib", "i1"}},
}

// filterLists are filtered lists of the seed data.
var filterLists = []list{
	{"projects planned", projects(orgA, store.ProjectQuery{Status: store.ProjectPlanned}), []string{"p0", "p3"}},
	{"projects in_progress", projects(orgA, store.ProjectQuery{Status: store.ProjectInProgress}), []string{"p1"}},
	{"projects on_hold", projects(orgA, store.ProjectQuery{Status: store.ProjectOnHold}), []string{"p4"}},
	{"projects completed", projects(orgA, store.ProjectQuery{Status: store.ProjectCompleted}), []string{"p2"}},
	{"projects cancelled", projects(orgA, store.ProjectQuery{Status: store.ProjectCancelled}), []string{"p5"}},
	{"projects of org_b in_progress", projects(orgB, store.ProjectQuery{Status: store.ProjectInProgress}), []string{"pb"}},
	{"projects of org_b cancelled (none)", projects(orgB, store.ProjectQuery{Status: store.ProjectCancelled}), []string{}},

	{"milestones of p1 pending", milestones(orgA, "p1", store.MilestoneQuery{Status: store.MilestonePending}), []string{"m1", "m4"}},
	{"milestones of p1 in_progress", milestones(orgA, "p1", store.MilestoneQuery{Status: store.MilestoneInProgress}), []string{"m3"}},
	{"milestones of p1 completed", milestones(orgA, "p1", store.MilestoneQuery{Status: store.MilestoneCompleted}), []string{"m2"}},
	{"milestones of p2 pending (none)", milestones(orgA, "p2", store.MilestoneQuery{Status: store.MilestonePending}), []string{}},
	{"milestones of org_b p1 completed", milestones(orgB, "p1", store.MilestoneQuery{Status: store.MilestoneCompleted}), []string{"m1"}},

	{"deliverables approved", deliverables(orgA, store.DeliverableQuery{Status: store.DeliverableApproved}), []string{"d1", "d5"}},
	{"deliverables pending", deliverables(orgA, store.DeliverableQuery{Status: store.DeliverablePending}), []string{"d3"}},
	{"deliverables in_review", deliverables(orgA, store.DeliverableQuery{Status: store.DeliverableInReview}), []string{"d2"}},
	{"deliverables rejected", deliverables(orgA, store.DeliverableQuery{Status: store.DeliverableRejected}), []string{"d4"}},
	{"deliverables of p1", deliverables(orgA, store.DeliverableQuery{ListFilter: store.ListFilter{ProjectID: "p1"}}), []string{"d4", "d2", "d1"}},
	{"deliverables of p1 approved", deliverables(orgA, store.DeliverableQuery{Status: store.DeliverableApproved, ListFilter: store.ListFilter{ProjectID: "p1"}}), []string{"d1"}},
	{"deliverables of p1 pending (none)", deliverables(orgA, store.DeliverableQuery{Status: store.DeliverablePending, ListFilter: store.ListFilter{ProjectID: "p1"}}), []string{}},
	{"deliverables of p3, a project without any", deliverables(orgA, store.DeliverableQuery{ListFilter: store.ListFilter{ProjectID: "p3"}}), []string{}},
	{"deliverables of org_b's project pb, asked by org_a", deliverables(orgA, store.DeliverableQuery{ListFilter: store.ListFilter{ProjectID: "pb"}}), []string{}},
	{"deliverables of org_b p1 (org_a's p1 has three)", deliverables(orgB, store.DeliverableQuery{ListFilter: store.ListFilter{ProjectID: "p1"}}), []string{}},
	{"deliverables of org_b pb", deliverables(orgB, store.DeliverableQuery{ListFilter: store.ListFilter{ProjectID: "pb"}}), []string{"d1"}},

	{"invoices draft", invoices(orgA, store.InvoiceQuery{Status: store.InvoiceDraft}), []string{"i4"}},
	{"invoices open", invoices(orgA, store.InvoiceQuery{Status: store.InvoiceOpen}), []string{"i2", "i3"}},
	{"invoices paid", invoices(orgA, store.InvoiceQuery{Status: store.InvoicePaid}), []string{"i6", "i1"}},
	{"invoices void", invoices(orgA, store.InvoiceQuery{Status: store.InvoiceVoid}), []string{"i5"}},
	{"invoices of p1", invoices(orgA, store.InvoiceQuery{ListFilter: store.ListFilter{ProjectID: "p1"}}), []string{"i3", "i1"}},
	{"invoices of p2", invoices(orgA, store.InvoiceQuery{ListFilter: store.ListFilter{ProjectID: "p2"}}), []string{"i6", "i4"}},
	{"invoices of p2 paid", invoices(orgA, store.InvoiceQuery{Status: store.InvoicePaid, ListFilter: store.ListFilter{ProjectID: "p2"}}), []string{"i6"}},
	{"invoices of p1 void (none)", invoices(orgA, store.InvoiceQuery{Status: store.InvoiceVoid, ListFilter: store.ListFilter{ProjectID: "p1"}}), []string{}},
	{"invoices of p3, a project without any", invoices(orgA, store.InvoiceQuery{ListFilter: store.ListFilter{ProjectID: "p3"}}), []string{}},
	{"invoices of org_b p1", invoices(orgB, store.InvoiceQuery{ListFilter: store.ListFilter{ProjectID: "p1"}}), []string{"i1"}},
	{"invoices of org_b open", invoices(orgB, store.InvoiceQuery{Status: store.InvoiceOpen}), []string{"ib"}},

	// DueBefore of another organization (testDueBefore reads org_a's lists
	// with it, under every filter, at every bound).
	{"invoices of org_b due before day 26", invoices(orgB, store.InvoiceQuery{ListFilter: store.ListFilter{DueBefore: day(26, 0)}}), []string{"i1"}},
}
