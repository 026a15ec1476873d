package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clientstatus/clientstatus/store"
	"github.com/matryer/is"
)

// The cases of threads and messages that are not every kind's
// (kindcases.go): their fields, orders, the invisibility of internal
// content, attachments and the cascades of a thread.

// testThreads runs the thread cases as subtests.
func testThreads(t *testing.T, open func(t *testing.T) Subject) {
	openT := open
	tests := []struct {
		name string
		run  func(t *testing.T, open func(t *testing.T) Subject)
	}{
		{"RoundTrip", testThreadRoundTrip},
		{"ReturnsCopies", testThreadCopies},
		{"Lists", testThreadLists},
		{"Paging", testThreadPaging},
		{"Replace", testThreadReplace},
		{"InternalContent", testInternalContent},
		{"InternalActivityChangesNothing", testInternalActivity},
		{"Scoping", testThreadScoping},
		{"NotFound", testThreadNotFound},
		{"GetMessage", testGetMessage},
		{"RejectsInvalidItems", testThreadRejectsInvalid},
		{"UnstorableIDs", testThreadUnstorable},
		{"Text", testThreadText},
		{"DeleteThread", testDeleteThread},
		{"DeleteProject", testThreadDeleteProject},
		{"DeleteAboutItem", testThreadDeleteAbout},
		{"DeleteOrganization", testThreadDeleteOrganization},
		{"UpdatedAt", testThreadUpdatedAt},
		{"Deletions", testThreadDeletions},
		{"ConcurrentUse", testThreadConcurrent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.run(t, openT) })
	}
}

// threadFixture is the suite's threads and messages, on top of the seed
// data. Both organizations have a thread t1, a message msg1 and an
// attachment a1. Its internal content would change every list, count and
// time were it visible: the internal message mi1 is t1's newest, the
// internal thread ti the newest of all, and mi2 is t6's only message.
type threadFixture struct {
	threads  []store.Thread
	messages []store.Message
}

// threadData returns fresh thread data (callers may modify it).
//
// org_a's visible threads by LastMessageAt desc, without a visible message
// last, then id: t2, t1, t5 (t1 and t5 tie), t3, t4, t6. Its visible
// messages by CreatedAt then id: msg6, msg1, msg2, msg3, msg7 (msg3 and
// msg7 tie), msg4, msg5. org_b: threads t1, tb; messages msg1.
func threadData() threadFixture {
	agency := store.Author{Name: "Ana", Side: store.SideAgency}
	client := store.Author{Name: "Bo Client", Side: store.SideClient}
	return threadFixture{
		threads: []store.Thread{
			{ID: "t3", OrgID: orgA, ProjectID: ptr("p2"), Subject: "Logo feedback", Status: store.ThreadOpen,
				About: &store.Ref{Kind: store.KindDeliverable, ID: "d3"}, CreatedAt: day(12, 9)},
			{ID: "t1", OrgID: orgA, ProjectID: ptr("p1"), Subject: "Launch date", Status: store.ThreadOpen,
				About: &store.Ref{Kind: store.KindMilestone, ID: "m1"}, CreatedAt: day(20, 8),
				// Computed by the store: what is given is ignored.
				MessageCount: 99, LastMessageAt: ptr(day(99, 0)), UpdatedAt: day(-5, 0)},
			{ID: "ti", OrgID: orgA, ProjectID: ptr("p1"), Subject: "Internal: margin", Status: store.ThreadOpen, Internal: true, CreatedAt: day(60, 9)},
			{ID: "t2", OrgID: orgA, Subject: "Invoice A-0002", Status: store.ThreadResolved,
				About: &store.Ref{Kind: store.KindInvoice, ID: "i2"}, CreatedAt: day(30, 8), ResolvedAt: ptr(day(31, 10))},
			{ID: "t6", OrgID: orgA, ProjectID: ptr("p4"), Subject: "Wireframes", Status: store.ThreadOpen,
				About: &store.Ref{Kind: store.KindDeliverable, ID: "d5"}, CreatedAt: day(2, 9)},
			{ID: "t4", OrgID: orgA, ProjectID: ptr("p1"), Subject: "Kick-off agenda", Status: store.ThreadOpen, CreatedAt: day(40, 9)},
			{ID: "t5", OrgID: orgA, ProjectID: ptr("p1"), Subject: "Staging access", Status: store.ThreadResolved,
				CreatedAt: day(21, 9), ResolvedAt: ptr(day(23, 9))},
			{ID: "tb", OrgID: orgB, Subject: "Hello", Status: store.ThreadOpen, CreatedAt: day(1, 9)},
			{ID: "t1", OrgID: orgB, ProjectID: ptr("pb"), Subject: "Checkout copy", Status: store.ThreadOpen,
				About: &store.Ref{Kind: store.KindDeliverable, ID: "d1"}, CreatedAt: day(14, 8)},
		},
		messages: []store.Message{
			{ID: "msg3", OrgID: orgA, ThreadID: "t1", Author: agency, Body: "Moved.", CreatedAt: day(22, 9), EditedAt: ptr(day(22, 10))},
			{ID: "mi1", OrgID: orgA, ThreadID: "t1", Author: agency, Body: "Note: they always slip.", Internal: true, CreatedAt: day(25, 9),
				Attachments: []store.Attachment{{ID: "ai1", FileName: "margin.xlsx", ContentType: "application/vnd.ms-excel", SizeBytes: 900, FileKey: "org_a/ai1"}}},
			{ID: "msg1", OrgID: orgA, ThreadID: "t1", Author: agency, Body: "Can we move the launch to March?", CreatedAt: day(20, 9),
				UpdatedAt: day(-5, 0)},
			{ID: "msg2", OrgID: orgA, ThreadID: "t1", Author: client, Body: "Yes, see the plan.", CreatedAt: day(20, 11),
				Attachments: []store.Attachment{{ID: "a1", FileName: "plan.txt", ContentType: "text/plain", SizeBytes: 12, FileKey: "org_a/a1"}}},
			{ID: "msg7", OrgID: orgA, ThreadID: "t5", Author: agency, Body: "Staging is up.", CreatedAt: day(22, 9)},
			{ID: "msg5", OrgID: orgA, ThreadID: "t2", Author: agency, Body: "One is the CDN.", CreatedAt: day(31, 9),
				Attachments: []store.Attachment{
					{ID: "a2", FileName: `report "final".pdf`, ContentType: "application/pdf", SizeBytes: 0, FileKey: "org_a/a2"},
					{ID: "a3", FileName: "Größe/店 ü.png", ContentType: "image/png", SizeBytes: 1 << 40, FileKey: "org_a/a3"},
				}},
			{ID: "msg4", OrgID: orgA, ThreadID: "t2", Author: client, Body: "Why two lines for hosting?", CreatedAt: day(30, 9)},
			{ID: "msg6", OrgID: orgA, ThreadID: "t3", Author: client, Body: "Rounder, please.", CreatedAt: day(12, 10)},
			{ID: "mi2", OrgID: orgA, ThreadID: "t6", Author: agency, Body: "Waiting on them.", Internal: true, CreatedAt: day(50, 9)},
			{ID: "mi3", OrgID: orgA, ThreadID: "ti", Author: agency, Body: "20% this time.", CreatedAt: day(60, 10),
				Attachments: []store.Attachment{{ID: "ai2", FileName: "costs.csv", ContentType: "text/csv", SizeBytes: 10, FileKey: "org_a/ai2"}}},
			{ID: "msg1", OrgID: orgB, ThreadID: "t1", Author: store.Author{Name: "Cy", Side: store.SideClient}, Body: "Shorter copy?", CreatedAt: day(14, 9),
				Attachments: []store.Attachment{{ID: "a1", FileName: "flow.png", ContentType: "image/png", SizeBytes: 1024, FileKey: "org_b/a1"}}},
		},
	}
}

// threadCounts are the seeded visible threads' MessageCount and
// LastMessageAt: of their visible messages only.
var threadCounts = map[string]struct {
	n    int
	last *time.Time
}{
	orgA + "/t1": {3, ptr(day(22, 9))},
	orgA + "/t2": {2, ptr(day(31, 9))},
	orgA + "/t3": {1, ptr(day(12, 10))},
	orgA + "/t4": {0, nil},
	orgA + "/t5": {1, ptr(day(22, 9))},
	orgA + "/t6": {0, nil},
	orgB + "/t1": {1, ptr(day(14, 9))},
	orgB + "/tb": {0, nil},
}

// put writes the threads, then the messages.
func (f threadFixture) put(t *testing.T, s Subject) {
	t.Helper()
	for _, th := range f.threads {
		if err := s.PutThread(ctx, th); err != nil {
			t.Fatalf("seeding thread %s/%s: %v", th.OrgID, th.ID, err)
		}
	}
	for _, m := range f.messages {
		if err := s.PutMessage(ctx, m); err != nil {
			t.Fatalf("seeding message %s/%s: %v", m.OrgID, m.ID, err)
		}
	}
}

// thread returns the seeded thread as clients see it.
func (f threadFixture) thread(org, id string) store.Thread {
	th := want(f.threads, org, id, threadKey)
	c, ok := threadCounts[org+"/"+id]
	if !ok {
		panic("storetest: no counts for thread " + org + "/" + id)
	}
	th.MessageCount, th.LastMessageAt = c.n, c.last
	return th
}

// message returns the seeded message.
func (f threadFixture) message(org, id string) store.Message {
	return want(f.messages, org, id, messageKey)
}

func threadKey(th store.Thread) (string, string)  { return th.OrgID, th.ID }
func messageKey(m store.Message) (string, string) { return m.OrgID, m.ID }

// seededThreads opens a fresh store and writes the seed data and the
// thread data into it.
func seededThreads(t *testing.T, open func(t *testing.T) Subject) (Subject, threadFixture) {
	t.Helper()
	s := open(t)
	seedData().put(t, s)
	f := threadData()
	f.put(t, s)
	return s, f
}

// The lists of threads and messages, as ids.

func threadList(s store.Threads, org string, q store.ThreadQuery) func(context.Context, store.Store, store.PageRequest) ([]string, int, error) {
	return func(ctx context.Context, _ store.Store, r store.PageRequest) ([]string, int, error) {
		q.PageRequest = r
		p, err := s.ListThreads(ctx, org, q)
		return ids(p.Items, func(th store.Thread) string { return th.ID }), p.Total, err
	}
}

func messageList(s store.Threads, org string, q store.MessageQuery) func(context.Context, store.Store, store.PageRequest) ([]string, int, error) {
	return func(ctx context.Context, _ store.Store, r store.PageRequest) ([]string, int, error) {
		q.PageRequest = r
		p, err := s.ListMessages(ctx, org, q)
		return ids(p.Items, func(m store.Message) string { return m.ID }), p.Total, err
	}
}

func threadMessageList(s store.Threads, org, thread string, q store.MessageQuery) func(context.Context, store.Store, store.PageRequest) ([]string, int, error) {
	return func(ctx context.Context, _ store.Store, r store.PageRequest) ([]string, int, error) {
		q.PageRequest = r
		p, err := s.ListThreadMessages(ctx, org, thread, q)
		return ids(p.Items, func(m store.Message) string { return m.ID }), p.Total, err
	}
}

// seededThreadLists are the lists of the seeded threads and messages,
// filtered or not.
func seededThreadLists(s Subject) []list {
	return []list{
		{"threads of org_a", threadList(s, orgA, store.ThreadQuery{}), []string{"t2", "t1", "t5", "t3", "t4", "t6"}},
		{"threads of org_b", threadList(s, orgB, store.ThreadQuery{}), []string{"t1", "tb"}},
		{"threads open", threadList(s, orgA, store.ThreadQuery{Status: store.ThreadOpen}), []string{"t1", "t3", "t4", "t6"}},
		{"threads resolved", threadList(s, orgA, store.ThreadQuery{Status: store.ThreadResolved}), []string{"t2", "t5"}},
		{"threads of p1", threadList(s, orgA, store.ThreadQuery{ListFilter: store.ListFilter{ProjectID: "p1"}}), []string{"t1", "t5", "t4"}},
		{"threads of p1 open", threadList(s, orgA, store.ThreadQuery{Status: store.ThreadOpen, ListFilter: store.ListFilter{ProjectID: "p1"}}), []string{"t1", "t4"}},
		{"threads of p1 resolved", threadList(s, orgA, store.ThreadQuery{Status: store.ThreadResolved, ListFilter: store.ListFilter{ProjectID: "p1"}}), []string{"t5"}},
		{"threads of p2", threadList(s, orgA, store.ThreadQuery{ListFilter: store.ListFilter{ProjectID: "p2"}}), []string{"t3"}},
		{"threads of p2 resolved (none)", threadList(s, orgA, store.ThreadQuery{Status: store.ThreadResolved, ListFilter: store.ListFilter{ProjectID: "p2"}}), []string{}},
		{"threads of p4 (only an internal message)", threadList(s, orgA, store.ThreadQuery{ListFilter: store.ListFilter{ProjectID: "p4"}}), []string{"t6"}},
		{"threads of p3, a project without any", threadList(s, orgA, store.ThreadQuery{ListFilter: store.ListFilter{ProjectID: "p3"}}), []string{}},
		{"threads of an unknown project", threadList(s, orgA, store.ThreadQuery{ListFilter: store.ListFilter{ProjectID: "nope"}}), []string{}},
		{"threads of org_b's project pb, asked by org_a", threadList(s, orgA, store.ThreadQuery{ListFilter: store.ListFilter{ProjectID: "pb"}}), []string{}},
		{"threads of org_b pb", threadList(s, orgB, store.ThreadQuery{ListFilter: store.ListFilter{ProjectID: "pb"}}), []string{"t1"}},
		{"threads of org_b p1 (none)", threadList(s, orgB, store.ThreadQuery{ListFilter: store.ListFilter{ProjectID: "p1"}}), []string{}},

		{"messages of org_a", messageList(s, orgA, store.MessageQuery{}), []string{"msg6", "msg1", "msg2", "msg3", "msg7", "msg4", "msg5"}},
		{"messages of org_b", messageList(s, orgB, store.MessageQuery{}), []string{"msg1"}},
		{"messages of t1", messageList(s, orgA, store.MessageQuery{ThreadID: "t1"}), []string{"msg1", "msg2", "msg3"}},
		{"messages of t2", messageList(s, orgA, store.MessageQuery{ThreadID: "t2"}), []string{"msg4", "msg5"}},
		{"messages of t4, a thread without any", messageList(s, orgA, store.MessageQuery{ThreadID: "t4"}), []string{}},
		{"messages of t6 (only an internal one)", messageList(s, orgA, store.MessageQuery{ThreadID: "t6"}), []string{}},
		{"messages of ti, an internal thread", messageList(s, orgA, store.MessageQuery{ThreadID: "ti"}), []string{}},
		{"messages of an unknown thread", messageList(s, orgA, store.MessageQuery{ThreadID: "nope"}), []string{}},
		{"messages of org_b's thread tb, asked by org_a", messageList(s, orgA, store.MessageQuery{ThreadID: "tb"}), []string{}},
		{"messages of p1", messageList(s, orgA, store.MessageQuery{ListFilter: store.ListFilter{ProjectID: "p1"}}), []string{"msg1", "msg2", "msg3", "msg7"}},
		{"messages of p2", messageList(s, orgA, store.MessageQuery{ListFilter: store.ListFilter{ProjectID: "p2"}}), []string{"msg6"}},
		{"messages of p4 (only an internal one)", messageList(s, orgA, store.MessageQuery{ListFilter: store.ListFilter{ProjectID: "p4"}}), []string{}},
		{"messages of an unknown project", messageList(s, orgA, store.MessageQuery{ListFilter: store.ListFilter{ProjectID: "nope"}}), []string{}},
		{"messages of t1 in p1", messageList(s, orgA, store.MessageQuery{ThreadID: "t1", ListFilter: store.ListFilter{ProjectID: "p1"}}), []string{"msg1", "msg2", "msg3"}},
		{"messages of t1 in p2 (none)", messageList(s, orgA, store.MessageQuery{ThreadID: "t1", ListFilter: store.ListFilter{ProjectID: "p2"}}), []string{}},
		{"messages of org_b pb", messageList(s, orgB, store.MessageQuery{ListFilter: store.ListFilter{ProjectID: "pb"}}), []string{"msg1"}},
		{"messages of org_b p1 (none)", messageList(s, orgB, store.MessageQuery{ListFilter: store.ListFilter{ProjectID: "p1"}}), []string{}},

		{"thread t1's messages", threadMessageList(s, orgA, "t1", store.MessageQuery{}), []string{"msg1", "msg2", "msg3"}},
		{"thread t2's messages", threadMessageList(s, orgA, "t2", store.MessageQuery{}), []string{"msg4", "msg5"}},
		{"thread t4's messages (none)", threadMessageList(s, orgA, "t4", store.MessageQuery{}), []string{}},
		{"thread t6's messages (only an internal one)", threadMessageList(s, orgA, "t6", store.MessageQuery{}), []string{}},
		{"thread t1's messages, filters ignored", threadMessageList(s, orgA, "t1", store.MessageQuery{ThreadID: "t2", ListFilter: store.ListFilter{ProjectID: "p2"}}), []string{"msg1", "msg2", "msg3"}},
		{"org_b thread t1's messages", threadMessageList(s, orgB, "t1", store.MessageQuery{}), []string{"msg1"}},
	}
}

// getThread returns a thread clients see, failing the test when there is
// none.
func getThread(t *testing.T, s store.Threads, org, id string) store.Thread {
	t.Helper()
	th, err := s.GetThread(ctx, org, id)
	if err != nil {
		t.Fatalf("thread %s/%s: %v", org, id, err)
	}
	return th
}

// getMessage returns a message clients see, failing the test when there
// is none.
func getMessage(t *testing.T, s store.Threads, org, id string) store.Message {
	t.Helper()
	page, err := s.ListMessages(ctx, org, store.MessageQuery{PageRequest: all})
	if err != nil {
		t.Fatalf("messages of %s: %v", org, err)
	}
	return find(t, page.Items, id, func(m store.Message) string { return m.ID })
}

// hidden checks that clients do not see a thread, or a message.
func hidden(t *testing.T, s store.Threads, org string, kind store.Kind, id string) {
	t.Helper()
	is := is.New(t)
	switch kind {
	case store.KindThread:
		_, err := s.GetThread(ctx, org, id)
		is.True(errors.Is(err, store.ErrNotFound)) // a thread clients do not see is not found
		_, err = s.ListThreadMessages(ctx, org, id, store.MessageQuery{PageRequest: all})
		is.True(errors.Is(err, store.ErrNotFound)) // the messages of a thread clients do not see are not found
		page, err := s.ListThreads(ctx, org, store.ThreadQuery{PageRequest: all})
		is.NoErr(err)
		is.True(!slices.Contains(ids(page.Items, func(th store.Thread) string { return th.ID }), id)) // a thread clients do not see is not listed
	case store.KindMessage:
		page, err := s.ListMessages(ctx, org, store.MessageQuery{PageRequest: all})
		is.NoErr(err)
		is.True(!slices.Contains(ids(page.Items, func(m store.Message) string { return m.ID }), id)) // a message clients do not see is not listed
	}
}

// noAttachment checks that an attachment is not found.
func noAttachment(is *is.I, s store.Threads, org, id string) {
	is.Helper()
	_, err := getAttachment(s, ctx, org, id)
	is.True(errors.Is(err, store.ErrNotFound)) // the attachment is not found
}

func testThreadRoundTrip(t *testing.T, open func(t *testing.T) Subject) {
	s := open(t)
	from := s.Now()
	seedData().put(t, s)
	f := threadData()
	f.put(t, s)
	to := s.Now()
	for _, th := range f.threads {
		if th.Internal {
			continue
		}
		t.Run("thread "+th.OrgID+"/"+th.ID, func(t *testing.T) {
			is := is.New(t)
			want := f.thread(th.OrgID, th.ID)
			got, err := s.GetThread(ctx, th.OrgID, th.ID)
			is.NoErr(err)
			same(is, got, want) // MessageCount and LastMessageAt are of the visible messages, whatever was given
			within(is, got.UpdatedAt, from, to)
			page, err := s.ListThreads(ctx, th.OrgID, store.ThreadQuery{PageRequest: all})
			is.NoErr(err)
			listed := find(t, page.Items, th.ID, func(th store.Thread) string { return th.ID })
			same(is, listed, want)
			is.True(listed.UpdatedAt.Equal(got.UpdatedAt)) // a list and a get agree on UpdatedAt
		})
	}
	for _, m := range f.messages {
		if m.Internal || m.ThreadID == "ti" {
			continue
		}
		t.Run("message "+m.OrgID+"/"+m.ID, func(t *testing.T) {
			is := is.New(t)
			page, err := s.ListThreadMessages(ctx, m.OrgID, m.ThreadID, store.MessageQuery{PageRequest: all})
			is.NoErr(err)
			got := find(t, page.Items, m.ID, func(m store.Message) string { return m.ID })
			same(is, got, m)
			is.True(got.Attachments != nil) // a message without attachments has an empty list
			within(is, got.UpdatedAt, from, to)
			listed, err := s.ListMessages(ctx, m.OrgID, store.MessageQuery{PageRequest: all})
			is.NoErr(err)
			same(is, find(t, listed.Items, m.ID, func(m store.Message) string { return m.ID }), m)
			for _, a := range m.Attachments {
				got, err := getAttachment(s, ctx, m.OrgID, a.ID)
				is.NoErr(err)
				is.Equal(got, a) // every field of an attachment comes back as it was put
			}
		})
	}
}

// testThreadCopies checks that changing what a store returned, or what
// was put, through pointers and slices, does not change what it stores.
func testThreadCopies(t *testing.T, open func(t *testing.T) Subject) {
	is := is.New(t)
	s, f := seededThreads(t, open)

	t1 := getThread(t, s, orgA, "t1")
	t2 := getThread(t, s, orgA, "t2")
	msg3 := getMessage(t, s, orgA, "msg3")
	is.True(t1.ProjectID != nil && t1.About != nil && t1.LastMessageAt != nil && t2.ResolvedAt != nil && msg3.EditedAt != nil) // the seeded pointers come back set
	*t1.ProjectID = "p2"
	t1.About.ID = "m2"
	*t1.LastMessageAt = t1.LastMessageAt.Add(time.Hour)
	*t2.ResolvedAt = t2.ResolvedAt.Add(time.Hour)
	same(is, getThread(t, s, orgA, "t1"), f.thread(orgA, "t1")) // the stored thread must not follow the caller's changes
	same(is, getThread(t, s, orgA, "t2"), f.thread(orgA, "t2")) // the stored thread must not follow the caller's changes

	page, err := s.ListThreadMessages(ctx, orgA, "t2", store.MessageQuery{PageRequest: all})
	is.NoErr(err)
	for _, m := range page.Items {
		for k := range m.Attachments {
			m.Attachments[k].FileName = "changed"
		}
	}
	*msg3.EditedAt = msg3.EditedAt.Add(time.Hour)
	same(is, getMessage(t, s, orgA, "msg5"), f.message(orgA, "msg5")) // the stored attachments must not follow the caller's changes
	same(is, getMessage(t, s, orgA, "msg3"), f.message(orgA, "msg3")) // the stored message must not follow the caller's changes

	// Nor may it follow changes to what was put.
	th := store.Thread{ID: "t9", OrgID: orgA, ProjectID: ptr("p1"), Subject: "s", Status: store.ThreadResolved,
		About: &store.Ref{Kind: store.KindMilestone, ID: "m1"}, CreatedAt: day(3, 9), ResolvedAt: ptr(day(4, 9))}
	keptT := th
	keptT.ProjectID, keptT.About, keptT.ResolvedAt = ptr("p1"), &store.Ref{Kind: store.KindMilestone, ID: "m1"}, ptr(day(4, 9))
	is.NoErr(s.PutThread(ctx, th))
	*th.ProjectID, th.About.ID, *th.ResolvedAt = "p2", "m2", day(9, 9)
	m := store.Message{ID: "msg9", OrgID: orgA, ThreadID: "t9", Author: store.Author{Name: "A", Side: store.SideAgency}, Body: "b",
		CreatedAt: day(3, 9), EditedAt: ptr(day(3, 10)),
		Attachments: []store.Attachment{{ID: "a9", FileName: "f.txt", ContentType: "text/plain", SizeBytes: 1, FileKey: "k"}}}
	keptM := m
	keptM.EditedAt, keptM.Attachments = ptr(day(3, 10)), slices.Clone(m.Attachments)
	is.NoErr(s.PutMessage(ctx, m))
	m.Attachments[0].FileName, *m.EditedAt = "changed.txt", day(9, 9)
	keptT.MessageCount, keptT.LastMessageAt = 1, ptr(day(3, 9))
	same(is, getThread(t, s, orgA, "t9"), keptT)    // the stored thread must not follow changes to the value put
	same(is, getMessage(t, s, orgA, "msg9"), keptM) // the stored message must not follow changes to the value put
	a, err := getAttachment(s, ctx, orgA, "a9")
	is.NoErr(err)
	is.Equal(a, keptM.Attachments[0]) // the stored attachment must not follow changes to the value put
}

func testThreadLists(t *testing.T, open func(t *testing.T) Subject) {
	s, _ := seededThreads(t, open)
	checkLists(t, s, seededThreadLists(s))
}

// testThreadPaging walks every list page by page: each item exactly
// once, in order, with the true total, a page past the end included.
func testThreadPaging(t *testing.T, open func(t *testing.T) Subject) {
	s, _ := seededThreads(t, open)
	for _, l := range seededThreadLists(s) {
		walk(t, s, l)
	}
}

// testThreadReplace replaces threads and messages: changed sort keys,
// filters and counts, a message moved to another thread, attachments
// dropped and their ids taken by another message.
func testThreadReplace(t *testing.T, open func(t *testing.T) Subject) {
	s, f := seededThreads(t, open)
	is := is.New(t)

	t3 := f.thread(orgA, "t3")
	t3.ProjectID, t3.Status, t3.ResolvedAt, t3.Subject, t3.About = ptr("p1"), store.ThreadResolved, ptr(day(13, 9)), "Logo feedback (moved)", nil
	is.NoErr(s.PutThread(ctx, t3))
	msg7 := f.message(orgA, "msg7")
	msg7.ThreadID = "t2" // from t5
	is.NoErr(s.PutMessage(ctx, msg7))
	msg5 := f.message(orgA, "msg5")
	msg5.Body = "One is the CDN (corrected)."
	msg5.Attachments = []store.Attachment{msg5.Attachments[1], {ID: "a4", FileName: "cdn.txt", ContentType: "text/plain", SizeBytes: 4, FileKey: "org_a/a4"}}
	is.NoErr(s.PutMessage(ctx, msg5)) // a2 dropped, a3 kept
	msg4 := f.message(orgA, "msg4")
	msg4.Attachments = []store.Attachment{{ID: "a2", FileName: "hosting.pdf", ContentType: "application/pdf", SizeBytes: 7, FileKey: "org_a/a2-hosting"}}
	is.NoErr(s.PutMessage(ctx, msg4)) // a2 is free again
	msg1 := f.message(orgA, "msg1")
	msg1.CreatedAt = day(32, 9)
	is.NoErr(s.PutMessage(ctx, msg1))

	checkLists(t, s, []list{
		{"threads", threadList(s, orgA, store.ThreadQuery{}), []string{"t1", "t2", "t3", "t4", "t5", "t6"}},
		{"threads open", threadList(s, orgA, store.ThreadQuery{Status: store.ThreadOpen}), []string{"t1", "t4", "t6"}},
		{"threads resolved", threadList(s, orgA, store.ThreadQuery{Status: store.ThreadResolved}), []string{"t2", "t3", "t5"}},
		{"threads of p1 (t3 moved in)", threadList(s, orgA, store.ThreadQuery{ListFilter: store.ListFilter{ProjectID: "p1"}}), []string{"t1", "t3", "t4", "t5"}},
		{"threads of p2 (t3 moved out)", threadList(s, orgA, store.ThreadQuery{ListFilter: store.ListFilter{ProjectID: "p2"}}), []string{}},
		{"messages", messageList(s, orgA, store.MessageQuery{}), []string{"msg6", "msg2", "msg3", "msg7", "msg4", "msg5", "msg1"}},
		{"messages of t2 (msg7 moved in)", messageList(s, orgA, store.MessageQuery{ThreadID: "t2"}), []string{"msg7", "msg4", "msg5"}},
		{"messages of t5 (msg7 moved out)", messageList(s, orgA, store.MessageQuery{ThreadID: "t5"}), []string{}},
		{"messages of p1 (t3's moved in, msg7 out)", messageList(s, orgA, store.MessageQuery{ListFilter: store.ListFilter{ProjectID: "p1"}}), []string{"msg6", "msg2", "msg3", "msg1"}},
		{"messages of p2", messageList(s, orgA, store.MessageQuery{ListFilter: store.ListFilter{ProjectID: "p2"}}), []string{}},
		{"thread t1's messages", threadMessageList(s, orgA, "t1", store.MessageQuery{}), []string{"msg2", "msg3", "msg1"}},
		{"thread t2's messages", threadMessageList(s, orgA, "t2", store.MessageQuery{}), []string{"msg7", "msg4", "msg5"}},
	})

	t3.MessageCount, t3.LastMessageAt = 1, ptr(day(12, 10))
	same(is, getThread(t, s, orgA, "t3"), t3) // a replaced thread comes back as put
	for _, c := range []struct {
		id   string
		n    int
		last *time.Time
	}{{"t1", 3, ptr(day(32, 9))}, {"t2", 3, ptr(day(31, 9))}, {"t5", 0, nil}} {
		th := getThread(t, s, orgA, c.id)
		is.Equal(th.MessageCount, c.n)                 // MessageCount follows messages moved, replaced and re-dated
		is.True(sameInstant(th.LastMessageAt, c.last)) // LastMessageAt follows messages moved, replaced and re-dated
	}
	same(is, getMessage(t, s, orgA, "msg5"), msg5) // a replaced message comes back as put
	for _, a := range append(slices.Clone(msg5.Attachments), msg4.Attachments...) {
		got, err := getAttachment(s, ctx, orgA, a.ID)
		is.NoErr(err)
		is.Equal(got, a) // the attachments of the replacements are found, a2 as msg4's now
	}
}

// testInternalContent checks that internal threads and messages are
// invisible, and that they appear and disappear as they are marked.
func testInternalContent(t *testing.T, open func(t *testing.T) Subject) {
	s, f := seededThreads(t, open)
	is := is.New(t)

	hidden(t, s, orgA, store.KindThread, "ti")
	for _, id := range []string{"mi1", "mi2", "mi3"} {
		hidden(t, s, orgA, store.KindMessage, id)
	}
	noAttachment(is, s, orgA, "ai1") // of an internal message
	noAttachment(is, s, orgA, "ai2") // of a message of an internal thread

	// Made visible, the internal content counts, orders and is found.
	mi1 := f.message(orgA, "mi1")
	mi1.Internal = false
	is.NoErr(s.PutMessage(ctx, mi1))
	ti := want(f.threads, orgA, "ti", threadKey)
	ti.Internal = false
	is.NoErr(s.PutThread(ctx, ti))
	checkLists(t, s, []list{
		{"threads with ti visible", threadList(s, orgA, store.ThreadQuery{}), []string{"ti", "t2", "t1", "t5", "t3", "t4", "t6"}},
		{"messages with mi1 and ti visible", messageList(s, orgA, store.MessageQuery{}), []string{"msg6", "msg1", "msg2", "msg3", "msg7", "mi1", "msg4", "msg5", "mi3"}},
		{"thread t1's messages with mi1 visible", threadMessageList(s, orgA, "t1", store.MessageQuery{}), []string{"msg1", "msg2", "msg3", "mi1"}},
		{"messages of p1", messageList(s, orgA, store.MessageQuery{ListFilter: store.ListFilter{ProjectID: "p1"}}), []string{"msg1", "msg2", "msg3", "msg7", "mi1", "mi3"}},
	})
	t1 := getThread(t, s, orgA, "t1")
	is.Equal(t1.MessageCount, 4)                            // a message made visible counts
	is.True(sameInstant(t1.LastMessageAt, ptr(day(25, 9)))) // a message made visible is the thread's last
	is.Equal(getThread(t, s, orgA, "ti").MessageCount, 1)   // a thread made visible counts its visible messages
	for _, id := range []string{"ai1", "ai2"} {
		_, err := getAttachment(s, ctx, orgA, id)
		is.NoErr(err) // the attachments of content made visible are found
	}

	// Hidden again, with visible content hidden too: a message, and a
	// thread with its messages.
	mi1.Internal = true
	is.NoErr(s.PutMessage(ctx, mi1))
	ti.Internal = true
	is.NoErr(s.PutThread(ctx, ti))
	msg2 := f.message(orgA, "msg2")
	msg2.Internal = true
	is.NoErr(s.PutMessage(ctx, msg2))
	t2 := want(f.threads, orgA, "t2", threadKey)
	t2.Internal = true
	is.NoErr(s.PutThread(ctx, t2))
	checkLists(t, s, []list{
		{"threads with t2 internal", threadList(s, orgA, store.ThreadQuery{}), []string{"t1", "t5", "t3", "t4", "t6"}},
		{"threads resolved with t2 internal", threadList(s, orgA, store.ThreadQuery{Status: store.ThreadResolved}), []string{"t5"}},
		{"messages with msg2 and t2 internal", messageList(s, orgA, store.MessageQuery{}), []string{"msg6", "msg1", "msg3", "msg7"}},
		{"messages of t2, an internal thread", messageList(s, orgA, store.MessageQuery{ThreadID: "t2"}), []string{}},
		{"thread t1's messages with msg2 internal", threadMessageList(s, orgA, "t1", store.MessageQuery{}), []string{"msg1", "msg3"}},
	})
	hidden(t, s, orgA, store.KindThread, "t2")
	hidden(t, s, orgA, store.KindThread, "ti")
	is.Equal(getThread(t, s, orgA, "t1").MessageCount, 2) // a message made internal does not count
	for _, id := range []string{"a1", "a2", "a3", "ai1", "ai2"} {
		noAttachment(is, s, orgA, id) // the attachments of hidden content are not found
	}

	// Visible again, everything is as seeded.
	msg2.Internal, t2.Internal = false, false
	is.NoErr(s.PutMessage(ctx, msg2))
	is.NoErr(s.PutThread(ctx, t2))
	checkLists(t, s, seededThreadLists(s))
	for _, id := range []string{"t1", "t2"} {
		same(is, getThread(t, s, orgA, id), f.thread(orgA, id)) // a thread visible again is as seeded
	}
}

// testInternalActivity checks that however much happens in internal
// content, every answer clients can get stays exactly as it was,
// UpdatedAt included.
func testInternalActivity(t *testing.T, open func(t *testing.T) Subject) {
	s, f := seededThreads(t, open)
	is := is.New(t)
	// A deletion, so that the deletion records are not trivially empty.
	is.NoErr(s.DeleteMessage(ctx, orgA, "msg7"))
	before := snapshot(t, s)
	s.Advance(tick)

	agency := store.Author{Name: "Ana", Side: store.SideAgency}
	threads := []string{"t1", "t4", "t6", "t2"}
	for n := range 40 {
		is.NoErr(s.PutMessage(ctx, store.Message{ID: fmt.Sprintf("hx%02d", n), OrgID: orgA, ThreadID: threads[n%len(threads)],
			Author: agency, Body: "internal note", Internal: true, CreatedAt: day(10+n, n%24),
			Attachments: []store.Attachment{{ID: fmt.Sprintf("hxa%02d", n), FileName: "n.txt", ContentType: "text/plain", SizeBytes: 1, FileKey: "k"}}}))
	}
	for n := range 10 { // edits of internal messages, one moved to another thread
		is.NoErr(s.PutMessage(ctx, store.Message{ID: fmt.Sprintf("hx%02d", n), OrgID: orgA, ThreadID: threads[(n+1)%len(threads)],
			Author: agency, Body: "internal note, edited", Internal: true, CreatedAt: day(70, 0), EditedAt: ptr(day(70, 1))}))
	}
	mi1 := f.message(orgA, "mi1")
	mi1.Body, mi1.EditedAt = "Note: edited.", ptr(day(26, 9))
	is.NoErr(s.PutMessage(ctx, mi1))
	mi2 := f.message(orgA, "mi2")
	mi2.ThreadID = "t3"
	is.NoErr(s.PutMessage(ctx, mi2))
	for n := range 5 {
		is.NoErr(s.DeleteMessage(ctx, orgA, fmt.Sprintf("hx%02d", 30+n)))
	}
	// An internal thread with messages that are not internal themselves,
	// edited, moved and deleted; and the seeded one edited.
	tj := store.Thread{ID: "tj", OrgID: orgA, ProjectID: ptr("p1"), Subject: "Internal", Status: store.ThreadOpen, Internal: true, CreatedAt: day(80, 0)}
	is.NoErr(s.PutThread(ctx, tj))
	for n := range 5 {
		is.NoErr(s.PutMessage(ctx, store.Message{ID: fmt.Sprintf("tjm%d", n), OrgID: orgA, ThreadID: "tj", Author: agency, Body: "x",
			CreatedAt: day(80, n), Attachments: []store.Attachment{{ID: fmt.Sprintf("tja%d", n), FileName: "f", ContentType: "text/plain", FileKey: "k"}}}))
	}
	tj.Subject, tj.Status, tj.ProjectID = "Internal, renamed", store.ThreadResolved, ptr("p2")
	is.NoErr(s.PutThread(ctx, tj))
	is.NoErr(s.PutMessage(ctx, store.Message{ID: "tjm0", OrgID: orgA, ThreadID: "ti", Author: agency, Body: "moved", CreatedAt: day(81, 0)}))
	ti := want(f.threads, orgA, "ti", threadKey)
	ti.Subject, ti.About = "Internal: margin, revised", &store.Ref{Kind: store.KindInvoice, ID: "i1"}
	is.NoErr(s.PutThread(ctx, ti))
	is.NoErr(s.DeleteThread(ctx, orgA, "tj"))

	after := snapshot(t, s)
	is.Equal(len(after), len(before))
	for k := range before {
		if after[k] != before[k] {
			t.Errorf("internal activity changed what clients see:\nbefore: %s\nafter:  %s", before[k], after[k])
		}
	}
}

// snapshot renders everything clients can get from the store's threads:
// every list, filtered or not, and every item, UpdatedAt included, the
// internal content's attachments, and on a store.Changes the changes
// since the seeding and the deletion records.
func snapshot(t *testing.T, s Subject) []string {
	t.Helper()
	var out []string
	add := func(what string, v any, err error) {
		if err != nil {
			out = append(out, what+": "+describeErr(err))
			return
		}
		out = append(out, what+": "+render(v))
	}
	earliest := time.Time{}
	for _, org := range []string{orgA, orgB} {
		threadQueries := []store.ThreadQuery{{}, {Status: store.ThreadOpen}, {Status: store.ThreadResolved}, {ListFilter: store.ListFilter{ProjectID: "p1"}}, {ListFilter: store.ListFilter{ProjectID: "p2"}}, {ListFilter: store.ListFilter{ProjectID: "p4"}}}
		messageQueries := []store.MessageQuery{{}, {ListFilter: store.ListFilter{ProjectID: "p1"}}, {ListFilter: store.ListFilter{ProjectID: "p2"}}, {ListFilter: store.ListFilter{ProjectID: "p4"}}}
		for _, id := range []string{"t1", "t2", "t3", "t4", "t5", "t6", "ti", "tj", "tb"} {
			messageQueries = append(messageQueries, store.MessageQuery{ThreadID: id})
			th, err := s.GetThread(ctx, org, id)
			add("thread "+org+"/"+id, th, err)
			if err == nil && (earliest.IsZero() || th.UpdatedAt.Before(earliest)) {
				earliest = th.UpdatedAt
			}
			page, err := s.ListThreadMessages(ctx, org, id, store.MessageQuery{PageRequest: all})
			add("messages of thread "+org+"/"+id, page, err)
		}
		for _, q := range threadQueries {
			q.PageRequest = all
			page, err := s.ListThreads(ctx, org, q)
			add(fmt.Sprintf("threads %s %+v", org, q), page, err)
		}
		for _, q := range messageQueries {
			q.PageRequest = all
			page, err := s.ListMessages(ctx, org, q)
			add(fmt.Sprintf("messages %s %+v", org, q), page, err)
		}
		for _, id := range []string{"a1", "a2", "a3", "ai1", "ai2", "hxa00", "hxa39", "tja0"} {
			a, err := getAttachment(s, ctx, org, id)
			add("attachment "+org+"/"+id, a, err)
		}
	}
	c := s
	for _, org := range []string{orgA, orgB} {
		page, err := s.ListThreads(ctx, org, store.ThreadQuery{PageRequest: all, ListFilter: store.ListFilter{UpdatedSince: earliest}})
		add("threads updated since the seeding "+org, page, err)
		msgs, err := s.ListMessages(ctx, org, store.MessageQuery{PageRequest: all, ListFilter: store.ListFilter{UpdatedSince: earliest}})
		add("messages updated since the seeding "+org, msgs, err)
		dels, err := c.ListDeletions(ctx, org, store.DeletionQuery{PageRequest: all, Since: earliest})
		add("deletions since the seeding "+org, dels, err)
	}
	return out
}

// render writes a value as snapshot compares it: a page's total and
// items, each with every field and its UpdatedAt.
func render(v any) string {
	rv := reflect.ValueOf(v)
	if items := rv.FieldByName("Items"); items.IsValid() {
		var b strings.Builder
		fmt.Fprintf(&b, "total %d:", rv.FieldByName("Total").Int())
		for k := range items.Len() {
			b.WriteString("\n\t" + render(items.Index(k).Interface()))
		}
		return b.String()
	}
	s := describe(v)
	if u := rv.FieldByName("UpdatedAt"); u.IsValid() {
		s += " UpdatedAt:" + u.Interface().(time.Time).UTC().Format(time.RFC3339Nano)
	}
	return s
}

// describeErr reduces an error to what callers branch on.
func describeErr(err error) string {
	if errors.Is(err, store.ErrNotFound) {
		return "not found"
	}
	return "error " + err.Error()
}

func testThreadScoping(t *testing.T, open func(t *testing.T) Subject) {
	s, f := seededThreads(t, open)
	is := is.New(t)

	// Colliding ids: each organization gets its own version.
	for _, c := range []struct{ org, a1Of string }{{orgA, "msg2"}, {orgB, "msg1"}} {
		org := c.org
		same(is, getThread(t, s, org, "t1"), f.thread(org, "t1"))       // GetThread returns the asking organization's t1
		same(is, getMessage(t, s, org, "msg1"), f.message(org, "msg1")) // ListMessages returns the asking organization's msg1
		a, err := getAttachment(s, ctx, org, "a1")
		is.NoErr(err)
		is.Equal(a, f.message(org, c.a1Of).Attachments[0]) // GetAttachment returns the asking organization's a1
		page, err := s.ListThreadMessages(ctx, org, "t1", store.MessageQuery{PageRequest: all})
		is.NoErr(err)
		for _, m := range page.Items {
			is.Equal(m.OrgID, org) // ListThreadMessages returns the organization's messages only
		}
		threads, err := s.ListThreads(ctx, org, store.ThreadQuery{PageRequest: all})
		is.NoErr(err)
		for _, th := range threads.Items {
			is.Equal(th.OrgID, org) // ListThreads returns the organization's threads only
		}
		msgs, err := s.ListMessages(ctx, org, store.MessageQuery{PageRequest: all})
		is.NoErr(err)
		for _, m := range msgs.Items {
			is.Equal(m.OrgID, org) // ListMessages returns the organization's messages only
		}
	}

	// Ids that exist only in the other organization.
	for _, c := range []struct{ org, thread, attachment string }{{orgB, "t2", "a2"}, {orgA, "tb", "nope"}} {
		_, err := s.GetThread(ctx, c.org, c.thread)
		is.True(errors.Is(err, store.ErrNotFound)) // another organization's thread is not found
		_, err = s.ListThreadMessages(ctx, c.org, c.thread, store.MessageQuery{PageRequest: all})
		is.True(errors.Is(err, store.ErrNotFound)) // another organization's thread's messages are not found
		noAttachment(is, s, c.org, c.attachment)
	}
	is.True(errors.Is(s.DeleteThread(ctx, orgB, "t2"), store.ErrNotFound))    // deleting another organization's thread
	is.True(errors.Is(s.DeleteMessage(ctx, orgB, "msg4"), store.ErrNotFound)) // deleting another organization's message
	is.True(errors.Is(s.DeleteThread(ctx, orgA, "tb"), store.ErrNotFound))    // deleting another organization's thread
	is.NoErr(s.PutMessage(ctx, store.Message{ID: "msg4", OrgID: orgB, ThreadID: "tb", Author: store.Author{Name: "Cy", Side: store.SideClient},
		Body: "An id like org_a's", CreatedAt: day(2, 9),
		Attachments: []store.Attachment{{ID: "a2", FileName: "b.txt", ContentType: "text/plain", SizeBytes: 1, FileKey: "org_b/a2"}}})) // attachment ids are unique per organization only
	is.NoErr(s.DeleteMessage(ctx, orgB, "msg4"))
	checkLists(t, s, seededThreadLists(s)) // the other organization's writes change nothing
	same(is, getMessage(t, s, orgA, "msg4"), f.message(orgA, "msg4"))
}

func testThreadNotFound(t *testing.T, open func(t *testing.T) Subject) {
	s, _ := seededThreads(t, open)
	is := is.New(t)
	for _, org := range []string{orgA, "org_unknown", ""} {
		_, err := s.GetThread(ctx, org, "nope")
		is.True(errors.Is(err, store.ErrNotFound)) // GetThread of an unknown id
		_, err = s.ListThreadMessages(ctx, org, "nope", store.MessageQuery{PageRequest: all})
		is.True(errors.Is(err, store.ErrNotFound)) // ListThreadMessages of an unknown thread
		noAttachment(is, s, org, "nope")
		is.True(errors.Is(s.DeleteThread(ctx, org, "nope"), store.ErrNotFound))  // DeleteThread of an unknown id
		is.True(errors.Is(s.DeleteMessage(ctx, org, "nope"), store.ErrNotFound)) // DeleteMessage of an unknown id
	}
	for _, id := range []string{"t1", "tb"} {
		_, err := s.GetThread(ctx, "org_unknown", id)
		is.True(errors.Is(err, store.ErrNotFound)) // an unknown organization has no threads
	}
	_, err := s.GetThread(ctx, orgA, "msg1")
	is.True(errors.Is(err, store.ErrNotFound)) // a thread by a message's id
	noAttachment(is, s, orgA, "msg2")          // an attachment by its message's id
	_, err = s.ListThreadMessages(ctx, orgA, "p1", store.MessageQuery{PageRequest: all})
	is.True(errors.Is(err, store.ErrNotFound))                               // a thread by a project's id
	is.True(errors.Is(s.DeleteThread(ctx, orgA, "msg1"), store.ErrNotFound)) // deleting a thread by a message's id
	is.True(errors.Is(s.DeleteMessage(ctx, orgA, "t1"), store.ErrNotFound))  // deleting a message by a thread's id

	for _, l := range []list{
		{"threads", threadList(s, "org_unknown", store.ThreadQuery{}), nil},
		{"threads of p1", threadList(s, "org_unknown", store.ThreadQuery{ListFilter: store.ListFilter{ProjectID: "p1"}}), nil},
		{"messages", messageList(s, "org_unknown", store.MessageQuery{}), nil},
		{"messages of t1", messageList(s, "org_unknown", store.MessageQuery{ThreadID: "t1"}), nil},
	} {
		got, total, err := l.fetch(ctx, s, all)
		is.NoErr(err)             // listing an unknown organization is no error
		is.Equal(got, []string{}) // an unknown organization lists nothing
		is.Equal(total, 0)        // an unknown organization has a total of 0
	}

	// An item is deleted once, a thread's messages with it.
	is.NoErr(s.DeleteMessage(ctx, orgA, "msg1"))
	is.True(errors.Is(s.DeleteMessage(ctx, orgA, "msg1"), store.ErrNotFound)) // a message is deleted once
	is.NoErr(s.DeleteThread(ctx, orgA, "t3"))
	is.True(errors.Is(s.DeleteThread(ctx, orgA, "t3"), store.ErrNotFound))    // a thread is deleted once
	is.True(errors.Is(s.DeleteMessage(ctx, orgA, "msg6"), store.ErrNotFound)) // a message deleted with its thread is gone
	// Internal content exists for the portal: it deletes it.
	is.NoErr(s.DeleteMessage(ctx, orgA, "mi1"))
	is.NoErr(s.DeleteThread(ctx, orgA, "ti"))
	is.True(errors.Is(s.DeleteMessage(ctx, orgA, "mi3"), store.ErrNotFound)) // a message deleted with its internal thread is gone
}

// getAttachment is GetAttachment without the ProjectID the store adds for
// restricted keys (checked by the restriction cases), to compare with the
// attachment as it was put.
func getAttachment(s store.Threads, ctx context.Context, org, id string) (store.Attachment, error) {
	a, err := s.GetAttachment(ctx, org, id)
	a.ProjectID = nil
	return a, err
}
