package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/clientstatus/clientstatus/store"
	"github.com/matryer/is"
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
