package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/clientstatus/clientstatus/store"
	"github.com/matryer/is"
)

// The cases of the optional store.Versions: they run for a Subject that
// implements it and are skipped for one that does not.

// testVersions makes every kind of write and checks that each one moves
// the organization's data version to a value never seen before, the
// deleted and re-created organization included.
func testVersions(t *testing.T, open func(t *testing.T) Subject) {
	s := open(t)
	v := s
	is := is.New(t)
	f := seedData()
	f.put(t, s)
	seen := map[int64]string{}
	version := func() int64 {
		t.Helper()
		n, err := v.DataVersion(ctx, orgA)
		is.NoErr(err) // reading the data version
		return n
	}
	moved := func(what string, write func() error) {
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
	seen[version()] = "seeding"

	p := want(f.projects, orgA, "p1", projectKey)
	p.Name = "Website v2"
	moved("a project put", func() error { return s.PutProject(ctx, p) })
	ms := f.milestones[0]
	ms.Name = "Launch v2"
	moved("a milestone put", func() error { return s.PutMilestone(ctx, ms) })
	d := want(f.deliverables, orgA, "d2", deliverableKey)
	d.Name = "About page v2"
	moved("a deliverable put", func() error { return s.PutDeliverable(ctx, d) })
	i := want(f.invoices, orgA, "i3", invoiceKey)
	i.AmountDue = 0
	moved("an invoice put", func() error { return s.PutInvoice(ctx, i) })

	// Writes to the other organization may move org_a's version or not;
	// they never bring back a value it had.
	b := want(f.invoices, orgB, "ib", invoiceKey)
	b.AmountDue = 1
	is.NoErr(s.PutInvoice(ctx, b))
	if n := version(); seen[n] != "" && seen[n] != "an invoice put" {
		t.Fatalf("after a write to org_b, org_a's version is %d, as after %s", n, seen[n])
	}

	if ts, ok := s.(threadSubject); ok {
		moved("a thread put", func() error {
			return ts.PutThread(ctx, store.Thread{ID: "tv", OrgID: orgA, ProjectID: ptr("p1"), Subject: "Versions",
				Status: store.ThreadOpen, CreatedAt: day(3, 9)})
		})
		moved("a message put", func() error {
			return ts.PutMessage(ctx, store.Message{ID: "mv", OrgID: orgA, ThreadID: "tv",
				Author: store.Author{Name: "A", Side: store.SideAgency}, Body: "b", CreatedAt: day(3, 10)})
		})
		moved("a message deleted", func() error { return ts.DeleteMessage(ctx, orgA, "mv") })
		moved("a thread deleted", func() error { return ts.DeleteThread(ctx, orgA, "tv") })
	}

	del, ok := s.(store.Deleter)
	if !ok {
		return
	}
	moved("an invoice deleted", func() error { return del.DeleteInvoice(ctx, orgA, "i3") })
	moved("a deliverable deleted", func() error { return del.DeleteDeliverable(ctx, orgA, "d2") })
	moved("a milestone deleted", func() error { return del.DeleteMilestone(ctx, orgA, ms.ID) })
	moved("a project deleted, with its items", func() error { return del.DeleteProject(ctx, orgA, "p1") })
	moved("the organization deleted", func() error { return del.DeleteOrganization(ctx, orgA) })
	moved("the organization put again, and a project", func() error {
		if err := s.PutOrganization(ctx, f.orgs[0]); err != nil {
			return err
		}
		return s.PutProject(ctx, p)
	})

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err := v.DataVersion(cancelled, orgA)
	is.True(errors.Is(err, context.Canceled)) // a cancelled context's error
}
