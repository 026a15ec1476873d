package storetest

import (
	"errors"
	"strings"
	"testing"

	"github.com/clientstatus/clientstatus/store"
	"github.com/matryer/is"
)

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
			is.True(!errors.Is(err, store.ErrUnavailable)) // a refusal is never an outage
		})
	}
}

// testRejectsInvalid puts items that must be refused, and checks that
// nothing of them is stored. A reference to a missing organization or
// project (in the same organization) wraps store.ErrNotFound; any other
// refusal, store.ErrInvalid.
func testRejectsInvalid(t *testing.T, open func(t *testing.T) reader) {
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
		{"project without id", func() error { p := okP; p.ID = ""; return s.PutProject(ctx, p) }, false},
		{"project without organization", func() error { p := okP; p.OrgID = ""; return s.PutProject(ctx, p) }, false},
		{"project of unknown organization", func() error { p := okP; p.OrgID = "org_unknown"; return s.PutProject(ctx, p) }, true},
		{"project with unknown status", func() error { p := okP; p.Status = "done"; return s.PutProject(ctx, p) }, false},
		{"milestone without id", func() error { m := okM; m.ID = ""; return s.PutMilestone(ctx, m) }, false},
		{"milestone of unknown organization", func() error { m := okM; m.OrgID = "org_unknown"; return s.PutMilestone(ctx, m) }, true},
		{"milestone of unknown project", func() error { m := okM; m.ProjectID = "nope"; return s.PutMilestone(ctx, m) }, true},
		{"milestone of another organization's project", func() error { m := okM; m.ProjectID = "pb"; return s.PutMilestone(ctx, m) }, true},
		{"milestone with unknown status", func() error { m := okM; m.Status = "late"; return s.PutMilestone(ctx, m) }, false},
		{"deliverable without id", func() error { d := okD; d.ID = ""; return s.PutDeliverable(ctx, d) }, false},
		{"deliverable of unknown project", func() error { d := okD; d.ProjectID = "nope"; return s.PutDeliverable(ctx, d) }, true},
		{"deliverable of another organization's project", func() error { d := okD; d.ProjectID = "pb"; return s.PutDeliverable(ctx, d) }, true},
		{"deliverable with unknown status", func() error { d := okD; d.Status = "APPROVED"; return s.PutDeliverable(ctx, d) }, false},
		{"deliverable with negative size", func() error { d := okD; d.SizeBytes = ptr(int64(-1)); return s.PutDeliverable(ctx, d) }, false},
		{"invoice without id", func() error { i := okI; i.ID = ""; return s.PutInvoice(ctx, i) }, false},
		{"invoice without organization", func() error { i := okI; i.OrgID = ""; return s.PutInvoice(ctx, i) }, false},
		{"invoice of unknown organization", func() error { i := okI; i.OrgID = "org_unknown"; return s.PutInvoice(ctx, i) }, true},
		{"invoice of unknown project", func() error { i := okI; i.ProjectID = ptr("nope"); return s.PutInvoice(ctx, i) }, true},
		{"invoice of another organization's project", func() error { i := okI; i.ProjectID = ptr("pb"); return s.PutInvoice(ctx, i) }, true},
		{"invoice with unknown status", func() error { i := okI; i.Status = "overdue"; return s.PutInvoice(ctx, i) }, false},
		{"invoice with lower-case currency", func() error { i := okI; i.Currency = "usd"; return s.PutInvoice(ctx, i) }, false},
		{"invoice with two-letter currency", func() error { i := okI; i.Currency = "US"; return s.PutInvoice(ctx, i) }, false},
		{"invoice without currency", func() error { i := okI; i.Currency = ""; return s.PutInvoice(ctx, i) }, false},
		{"invoice with negative total", func() error { i := okI; i.Total = -1; return s.PutInvoice(ctx, i) }, false},
		{"invoice with negative amount due", func() error { i := okI; i.AmountDue = -100; return s.PutInvoice(ctx, i) }, false},
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
	for _, l := range orderLists {
		got, _, err := l.fetch(ctx, s, all)
		is.NoErr(err)
		is.Equal(got, l.want) // refused items leave the lists as they were
	}
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

// testUnstorableWrites puts organizations, and a deliverable's file key,
// that no store can keep exactly (each kind's unstorable ids and
// references are kindRejects'): each is refused as invalid, not as
// missing, and nothing of them is stored.
func testUnstorableWrites(t *testing.T, open func(t *testing.T) Subject) {
	s, _ := seeded(t, open)
	var puts []func() error
	for _, org := range unstorable(orgA) {
		puts = append(puts, func() error { return s.PutOrganization(ctx, store.Organization{ID: org, Name: "n", Plan: "starter"}) })
	}
	for _, key := range unstorable("org_a/d1/homepage.pdf") {
		puts = append(puts, func() error {
			return s.PutDeliverable(ctx, store.Deliverable{ID: "new", OrgID: orgA, ProjectID: "p1", Name: "n", Status: store.DeliverablePending,
				CreatedAt: day(1, 1), FileName: ptr("f"), ContentType: ptr("text/plain"), SizeBytes: ptr(int64(1)), FileKey: key})
		})
	}
	is := is.New(t)
	for _, put := range puts {
		err := put()
		is.True(err != nil)                         // an unstorable id must be refused
		is.True(!errors.Is(err, store.ErrNotFound)) // an unstorable id is invalid, not missing
	}
	_, err := s.GetDeliverable(ctx, orgA, "new")
	is.True(errors.Is(err, store.ErrNotFound)) // no refused deliverable is stored
	for _, l := range orderLists {
		got, _, err := l.fetch(ctx, s, all)
		is.NoErr(err)
		is.Equal(got, l.want) // refused items leave the lists as they were
	}
}
