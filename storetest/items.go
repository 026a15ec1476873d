package storetest

import (
	"errors"
	"testing"

	"github.com/clientstatus/clientstatus/store"
	"github.com/matryer/is"
)

// The cases of single items beside GetProject and GetDeliverable:
// GetMilestone and GetInvoice answer exactly what the lists hold, scoped
// by organization; GetProjects reads many projects at once; and
// Threads.GetMessage answers visible messages only, honouring a
// restriction to projects.

// testSingleItems reads each milestone and invoice by its id: as put,
// and as its list answers it (each kind's not-found and scoping are
// kindScoping's).
func testSingleItems(t *testing.T, open func(t *testing.T) reader) {
	s := open(t)
	from := s.Now()
	f := seedData()
	f.put(t, s)
	to := s.Now()
	for _, want := range f.milestones {
		t.Run("milestone "+want.OrgID+"/"+want.ID, func(t *testing.T) {
			is := is.New(t)
			got, err := s.GetMilestone(ctx, want.OrgID, want.ID)
			is.NoErr(err)
			same(is, got, want)
			within(is, got.UpdatedAt, from, to)
			page, err := s.ListMilestones(ctx, want.OrgID, want.ProjectID, store.MilestoneQuery{PageRequest: all})
			is.NoErr(err)
			is.Equal(describe(find(t, page.Items, want.ID, func(m store.Milestone) string { return m.ID })), describe(got)) // the get answers as the list
		})
	}
	for _, want := range f.invoices {
		t.Run("invoice "+want.OrgID+"/"+want.ID, func(t *testing.T) {
			is := is.New(t)
			got, err := s.GetInvoice(ctx, want.OrgID, want.ID)
			is.NoErr(err)
			same(is, got, want) // DocumentKey included
			within(is, got.UpdatedAt, from, to)
			is.Equal(got.HasDocument(), want.DocumentKey != "")
			page, err := s.ListInvoices(ctx, want.OrgID, store.InvoiceQuery{PageRequest: all})
			is.NoErr(err)
			is.Equal(describe(find(t, page.Items, want.ID, func(i store.Invoice) string { return i.ID })), describe(got)) // the get answers as the list
		})
	}

}

func testGetProjects(t *testing.T, open func(t *testing.T) reader) {
	s, f := seeded(t, open)
	is := is.New(t)
	projectIDs := func(ps []store.Project) []string {
		return ids(ps, func(p store.Project) string { return p.ID })
	}
	got, err := s.GetProjects(ctx, orgA, []string{"p2", "nope", "p1", "pb", "p2", "p1\x00", ""})
	is.NoErr(err)
	is.Equal(projectIDs(got), []string{"p2", "p1"}) // in the order asked, each once, unknown and other organization's ids skipped
	same(is, got[0], want(f.projects, orgA, "p2", func(p store.Project) (string, string) { return p.OrgID, p.ID }))
	same(is, got[1], want(f.projects, orgA, "p1", func(p store.Project) (string, string) { return p.OrgID, p.ID }))
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

func testGetMessage(t *testing.T, open func(t *testing.T) Subject) {
	s := open(t)
	from := s.Now()
	seedData().put(t, s)
	f := threadData()
	f.put(t, s)
	to := s.Now()
	for _, msg := range f.messages {
		visible := !msg.Internal && !want(f.threads, msg.OrgID, msg.ThreadID, threadKey).Internal
		t.Run("message "+msg.OrgID+"/"+msg.ID, func(t *testing.T) {
			is := is.New(t)
			got, err := s.GetMessage(ctx, msg.OrgID, msg.ID, nil)
			if !visible {
				is.True(errors.Is(err, store.ErrNotFound)) // internal content is not found
				return
			}
			is.NoErr(err)
			listed := getMessage(t, s, msg.OrgID, msg.ID)
			is.Equal(describe(got), describe(listed))      // the get answers as the list
			is.True(got.UpdatedAt.Equal(listed.UpdatedAt)) // the same UpdatedAt
			within(is, got.UpdatedAt, from, to)
		})
	}
	is := is.New(t)
	_, err := s.GetMessage(ctx, orgA, "a1", nil)
	is.True(errors.Is(err, store.ErrNotFound)) // a message by an attachment's id (each kind's not-found is kindScoping's)

	// A restriction to projects: msg1 is in t1 (p1), msg4 in t2 (no project).
	for _, tc := range []struct {
		id, why string
		only    []string
		found   bool
	}{
		{"msg1", "a message of a thread of an allowed project", []string{"p2", "p1"}, true},
		{"msg1", "a message of a thread of another project", []string{"p2"}, false},
		{"msg1", "no project allowed", []string{}, false},
		{"msg4", "a message of an organization-wide thread", []string{"p1"}, false},
		{"msg4", "no restriction", nil, true},
		{"msg1", "an unstorable project id only", []string{"p1\x00"}, false},
	} {
		_, err := s.GetMessage(ctx, orgA, tc.id, tc.only)
		if tc.found {
			is.NoErr(err) // tc.why
		} else {
			is.True(errors.Is(err, store.ErrNotFound)) // tc.why
		}
	}

	// Made internal, or its thread made internal, or deleted: not found.
	m := f.message(orgA, "msg2")
	m.Internal = true
	is.NoErr(s.PutMessage(ctx, m))
	_, err = s.GetMessage(ctx, orgA, "msg2", nil)
	is.True(errors.Is(err, store.ErrNotFound)) // a message made internal is not found
	th := want(f.threads, orgA, "t5", threadKey)
	th.Internal = true
	is.NoErr(s.PutThread(ctx, th))
	_, err = s.GetMessage(ctx, orgA, "msg7", nil)
	is.True(errors.Is(err, store.ErrNotFound)) // a message of a thread made internal is not found
	is.NoErr(s.DeleteMessage(ctx, orgA, "msg3"))
	_, err = s.GetMessage(ctx, orgA, "msg3", nil)
	is.True(errors.Is(err, store.ErrNotFound)) // a deleted message is not found
}
