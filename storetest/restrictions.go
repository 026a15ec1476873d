package storetest

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/store"
)

// The cases of restricted keys (see store.Store): every list honours
// OnlyProjects, the deletion records OnlyKinds too, with totals that
// count only what they keep.

// sinceEver is an UpdatedSince before every item: the lists then come in
// change order, with the same items.
var sinceEver = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// testThreadsRestricted reads threads, messages and attachments restricted
// to projects, for a store that holds threads (store.Threads and
// store.ThreadWriter). Orders are the Threads cases'; here only which
// items come, and their totals.
func testThreadsRestricted(t *testing.T, open func(t *testing.T) Subject) {
	s, _ := seeded(t, open)
	th := s
	w := s
	is := is.New(t)
	for _, tr := range []store.Thread{
		{ID: "t1", OrgID: orgA, ProjectID: ptr("p1"), Subject: "Launch", Status: store.ThreadOpen, CreatedAt: day(1, 9)},
		{ID: "t2", OrgID: orgA, ProjectID: ptr("p2"), Subject: "Logo", Status: store.ThreadOpen, CreatedAt: day(1, 9)},
		{ID: "t0", OrgID: orgA, Subject: "Retainer", Status: store.ThreadOpen, CreatedAt: day(1, 9)},
	} {
		is.NoErr(w.PutThread(ctx, tr)) // seeding a thread
	}
	for i, tr := range []string{"t1", "t2", "t0"} {
		is.NoErr(w.PutMessage(ctx, store.Message{ID: "msg" + tr, OrgID: orgA, ThreadID: tr,
			Author: store.Author{Name: "Ana", Side: store.SideAgency}, Body: "hello", CreatedAt: day(2, i),
			Attachments: []store.Attachment{{ID: "att" + tr, FileName: "f.txt", ContentType: "text/plain", SizeBytes: 1, FileKey: "k" + tr}}})) // seeding a message
	}
	threadIDs := func(q store.ThreadQuery) ([]string, int) {
		q.PageRequest = all
		p, err := th.ListThreads(ctx, orgA, q)
		is.NoErr(err)
		return sortedIDs(p.Items, func(t store.Thread) string { return t.ID }), p.Total
	}
	messageIDs := func(q store.MessageQuery) ([]string, int) {
		q.PageRequest = all
		p, err := th.ListMessages(ctx, orgA, q)
		is.NoErr(err)
		return sortedIDs(p.Items, func(m store.Message) string { return m.ID }), p.Total
	}
	for _, tt := range []struct {
		name  string
		got   func() ([]string, int)
		wantI []string
	}{
		{"threads of p1", func() ([]string, int) {
			return threadIDs(store.ThreadQuery{ListFilter: store.ListFilter{OnlyProjects: []string{"p1"}}})
		}, []string{"t1"}},
		{"threads of p1 and p2", func() ([]string, int) {
			return threadIDs(store.ThreadQuery{ListFilter: store.ListFilter{OnlyProjects: []string{"p1", "p2"}}})
		}, []string{"t1", "t2"}},
		{"threads of p1, asked for p2", func() ([]string, int) {
			return threadIDs(store.ThreadQuery{ListFilter: store.ListFilter{OnlyProjects: []string{"p1"}, ProjectID: "p2"}})
		}, []string{}},
		{"threads of no project", func() ([]string, int) {
			return threadIDs(store.ThreadQuery{ListFilter: store.ListFilter{OnlyProjects: []string{}}})
		}, []string{}},
		{"messages of p2", func() ([]string, int) {
			return messageIDs(store.MessageQuery{ListFilter: store.ListFilter{OnlyProjects: []string{"p2"}}})
		}, []string{"msgt2"}},
		{"messages of p1, asked for t2", func() ([]string, int) {
			return messageIDs(store.MessageQuery{ThreadID: "t2", ListFilter: store.ListFilter{OnlyProjects: []string{"p1"}}})
		}, []string{}},
		{"messages of no project", func() ([]string, int) {
			return messageIDs(store.MessageQuery{ListFilter: store.ListFilter{OnlyProjects: []string{}}})
		}, []string{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			got, total := tt.got()
			is.Equal(got, tt.wantI)        // only the restricted projects' items
			is.Equal(total, len(tt.wantI)) // and the total counts only them
		})
	}
	_, err := th.ListThreadMessages(ctx, orgA, "t1", store.MessageQuery{PageRequest: all, ListFilter: store.ListFilter{OnlyProjects: []string{"p1"}}})
	is.NoErr(err) // a thread of the key's projects
	for _, id := range []string{"t2", "t0"} {
		_, err := th.ListThreadMessages(ctx, orgA, id, store.MessageQuery{PageRequest: all, ListFilter: store.ListFilter{OnlyProjects: []string{"p1"}}})
		is.True(errors.Is(err, store.ErrNotFound)) // another project's thread, or an organization-wide one, is not found
	}
	for id, want := range map[string]string{"attt1": "p1", "attt2": "p2", "attt0": ""} {
		a, err := th.GetAttachment(ctx, orgA, id)
		is.NoErr(err)
		got := ""
		if a.ProjectID != nil {
			got = *a.ProjectID
		}
		is.Equal(got, want) // GetAttachment names the project of the attachment's thread
	}
}

// sortedIDs returns the items' ids, sorted; never nil.
func sortedIDs[T any](items []T, id func(T) string) []string {
	out := ids(items, id)
	slices.Sort(out)
	return out
}
