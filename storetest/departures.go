package storetest

import (
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/store"
)

// testThreadDepartures moves threads out of a project: a visible thread
// moved takes its messages with it, for a key of the project it left; an
// internal one was never seen, and leaves nothing. (The departures of
// every kind are kindDepartures'.)
func testThreadDepartures(t *testing.T, open func(t *testing.T) Subject) {
	s, _ := seeded(t, open)
	is := is.New(t)
	s.Advance(tick)
	since := s.Now()
	q := func(mod func(*store.DeletionQuery)) store.DeletionQuery {
		q := store.DeletionQuery{Since: since}
		mod(&q)
		return q
	}
	w, c := s, s
	author := store.Author{Name: "A", Side: store.SideAgency}
	tx := store.Thread{ID: "tx", OrgID: orgA, ProjectID: ptr("p3"), Subject: "s", Status: store.ThreadOpen, CreatedAt: day(3, 9)}
	ti := store.Thread{ID: "ti", OrgID: orgA, ProjectID: ptr("p3"), Subject: "s", Status: store.ThreadOpen, CreatedAt: day(3, 9), Internal: true}
	is.NoErr(w.PutThread(ctx, tx))
	is.NoErr(w.PutThread(ctx, ti))
	is.NoErr(w.PutMessage(ctx, store.Message{ID: "mx", OrgID: orgA, ThreadID: "tx", Author: author, Body: "b", CreatedAt: day(3, 9)}))
	is.NoErr(w.PutMessage(ctx, store.Message{ID: "mi", OrgID: orgA, ThreadID: "ti", Author: author, Body: "b", CreatedAt: day(3, 9)}))
	s.Advance(tick)
	tx.ProjectID, ti.ProjectID = ptr("p5"), ptr("p5")
	is.NoErr(w.PutThread(ctx, tx))
	is.NoErr(w.PutThread(ctx, ti))
	threadsOnly := func(ids ...string) func(q *store.DeletionQuery) {
		return func(q *store.DeletionQuery) {
			q.OnlyProjects, q.OnlyKinds = ids, []store.Kind{store.KindThread, store.KindMessage}
		}
	}
	checkLists(t, s, []list{
		{"threads of p3", deletions(c, orgA, q(threadsOnly("p3"))), []string{"message mx", "thread tx"}},
		{"threads of p5", deletions(c, orgA, q(threadsOnly("p5"))), []string{}},
		{"threads, unrestricted", deletions(c, orgA, q(func(q *store.DeletionQuery) { q.OnlyKinds = []store.Kind{store.KindThread, store.KindMessage} })), []string{}},
	})
	s.Advance(tick)
	tx.ProjectID = ptr("p3")
	is.NoErr(w.PutThread(ctx, tx))
	checkLists(t, s, []list{
		{"threads of p3, tx back", deletions(c, orgA, q(threadsOnly("p3"))), []string{}},
		{"threads of p5, tx gone", deletions(c, orgA, q(threadsOnly("p5"))), []string{"message mx", "thread tx"}},
	})
}
