package storetest

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/store"
)

// The cases of threads and messages that are not every kind's
// (kindcases.go): their fields, orders, the invisibility of internal
// content, attachments and the cascades of a thread.

// ThreadStore is what the part of the suite of threads (RunThreads)
// tests: a Reader that also deletes, and writes threads and messages.
type ThreadStore interface {
	Reader
	store.Deleter
	store.ThreadWriter
}

// RunThreads runs the part of the suite of threads and messages as
// subtests of t: their fields, orders, restrictions, the invisibility of
// internal content, attachments, the cascades of a thread, their events
// and departures, and every rule of every kind (RunRead's and
// RunChanges') for threads and messages. open must return a fresh, empty
// store each time it is called, and arrange its cleanup with t.Cleanup;
// opts must hold a clock the suite can move (WithClock).
func RunThreads(t *testing.T, open func(t *testing.T) ThreadStore, opts ...Option) {
	runPart(t, "RunThreads", threadCases, true, func(t *testing.T) subject {
		s := open(t)
		return subject{Store: s, Writer: s, Deleter: s, ThreadWriter: s}
	}, opts)
}

// threadCases are the cases of RunThreads.
var threadCases = []suiteCase{
	{"RoundTrip", testThreadRoundTrip},
	{"ReturnsCopies", testThreadCopies},
	{"Lists", testThreadLists},
	{"Replace", testThreadReplace},
	{"InternalContent", testInternalContent},
	{"InternalActivityChangesNothing", testInternalActivity},
	{"Scoping", testThreadScoping},
	{"GetMessage", testGetMessage},
	{"RejectsInvalidItems", testThreadRejectsInvalid},
	{"Text", testThreadText},
	{"DeleteThread", testDeleteThread},
	{"DeleteProject", testThreadDeleteProject},
	{"DeleteAboutItem", testThreadDeleteAbout},
	{"DeleteOrganization", testThreadDeleteOrganization},
	{"UpdatedAt", testThreadUpdatedAt},
	{"Deletions", testThreadDeletions},
	{"ConcurrentUse", testThreadConcurrent},
	{"Restricted", testThreadsRestricted},
	{"Departures", testThreadDepartures},
	{"Events", eventsCase([]suiteCase{{"Cascades", testEventCascades}, {"Internal", testEventInternal}})},
	{"Kinds", kindsCase(threadKinds, append(append([]kindRule{}, readRules...), changeRules...))},
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
func (f threadFixture) put(t *testing.T, s subject) {
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
	th := want(f.threads, org, id)
	c, ok := threadCounts[org+"/"+id]
	if !ok {
		panic("storetest: no counts for thread " + org + "/" + id)
	}
	th.MessageCount, th.LastMessageAt = c.n, c.last
	return th
}

// message returns the seeded message.
func (f threadFixture) message(org, id string) store.Message {
	return want(f.messages, org, id)
}

// seededThreads opens a fresh store and writes the seed data and the
// thread data into it.
func seededThreads(t *testing.T, open func(t *testing.T) subject) (subject, threadFixture) {
	t.Helper()
	s := open(t)
	seedData().put(t, s)
	f := threadData()
	f.put(t, s)
	return s, f
}

// The lists of threads and messages, as ids.

func threadList(org string, q store.ThreadQuery) fetchFunc {
	return func(ctx context.Context, s store.Store, r store.PageRequest) ([]string, int, error) {
		return pageIDs(s.ListThreads(ctx, org, paged(q, r)))
	}
}

func messageList(org string, q store.MessageQuery) fetchFunc {
	return func(ctx context.Context, s store.Store, r store.PageRequest) ([]string, int, error) {
		return pageIDs(s.ListMessages(ctx, org, paged(q, r)))
	}
}

func threadMessageList(org, thread string, q store.MessageQuery) fetchFunc {
	return func(ctx context.Context, s store.Store, r store.PageRequest) ([]string, int, error) {
		return pageIDs(s.ListThreadMessages(ctx, org, thread, paged(q, r)))
	}
}

// seededThreadLists are the lists of the seeded threads and messages,
// filtered or not.
var seededThreadLists = []list{
	{"threads of org_a", threadList(orgA, store.ThreadQuery{}), []string{"t2", "t1", "t5", "t3", "t4", "t6"}},
	{"threads of org_b", threadList(orgB, store.ThreadQuery{}), []string{"t1", "tb"}},
	{"threads open", threadList(orgA, store.ThreadQuery{Status: store.ThreadOpen}), []string{"t1", "t3", "t4", "t6"}},
	{"threads resolved", threadList(orgA, store.ThreadQuery{Status: store.ThreadResolved}), []string{"t2", "t5"}},
	{"threads of p1", threadList(orgA, store.ThreadQuery{ListFilter: store.ListFilter{ProjectID: "p1"}}), []string{"t1", "t5", "t4"}},
	{"threads of p1 open", threadList(orgA, store.ThreadQuery{Status: store.ThreadOpen, ListFilter: store.ListFilter{ProjectID: "p1"}}), []string{"t1", "t4"}},
	{"threads of p1 resolved", threadList(orgA, store.ThreadQuery{Status: store.ThreadResolved, ListFilter: store.ListFilter{ProjectID: "p1"}}), []string{"t5"}},
	{"threads of p2", threadList(orgA, store.ThreadQuery{ListFilter: store.ListFilter{ProjectID: "p2"}}), []string{"t3"}},
	{"threads of p2 resolved (none)", threadList(orgA, store.ThreadQuery{Status: store.ThreadResolved, ListFilter: store.ListFilter{ProjectID: "p2"}}), []string{}},
	{"threads of p4 (only an internal message)", threadList(orgA, store.ThreadQuery{ListFilter: store.ListFilter{ProjectID: "p4"}}), []string{"t6"}},
	{"threads of p3, a project without any", threadList(orgA, store.ThreadQuery{ListFilter: store.ListFilter{ProjectID: "p3"}}), []string{}},
	{"threads of org_b's project pb, asked by org_a", threadList(orgA, store.ThreadQuery{ListFilter: store.ListFilter{ProjectID: "pb"}}), []string{}},
	{"threads of org_b pb", threadList(orgB, store.ThreadQuery{ListFilter: store.ListFilter{ProjectID: "pb"}}), []string{"t1"}},
	{"threads of org_b p1 (none)", threadList(orgB, store.ThreadQuery{ListFilter: store.ListFilter{ProjectID: "p1"}}), []string{}},

	{"messages of org_a", messageList(orgA, store.MessageQuery{}), []string{"msg6", "msg1", "msg2", "msg3", "msg7", "msg4", "msg5"}},
	{"messages of org_b", messageList(orgB, store.MessageQuery{}), []string{"msg1"}},
	{"messages of t1", messageList(orgA, store.MessageQuery{ThreadID: "t1"}), []string{"msg1", "msg2", "msg3"}},
	{"messages of t2", messageList(orgA, store.MessageQuery{ThreadID: "t2"}), []string{"msg4", "msg5"}},
	{"messages of t4, a thread without any", messageList(orgA, store.MessageQuery{ThreadID: "t4"}), []string{}},
	{"messages of t6 (only an internal one)", messageList(orgA, store.MessageQuery{ThreadID: "t6"}), []string{}},
	{"messages of ti, an internal thread", messageList(orgA, store.MessageQuery{ThreadID: "ti"}), []string{}},
	{"messages of an unknown thread", messageList(orgA, store.MessageQuery{ThreadID: "nope"}), []string{}},
	{"messages of org_b's thread tb, asked by org_a", messageList(orgA, store.MessageQuery{ThreadID: "tb"}), []string{}},
	{"messages of p1", messageList(orgA, store.MessageQuery{ListFilter: store.ListFilter{ProjectID: "p1"}}), []string{"msg1", "msg2", "msg3", "msg7"}},
	{"messages of p2", messageList(orgA, store.MessageQuery{ListFilter: store.ListFilter{ProjectID: "p2"}}), []string{"msg6"}},
	{"messages of p4 (only an internal one)", messageList(orgA, store.MessageQuery{ListFilter: store.ListFilter{ProjectID: "p4"}}), []string{}},
	{"messages of t1 in p1", messageList(orgA, store.MessageQuery{ThreadID: "t1", ListFilter: store.ListFilter{ProjectID: "p1"}}), []string{"msg1", "msg2", "msg3"}},
	{"messages of t1 in p2 (none)", messageList(orgA, store.MessageQuery{ThreadID: "t1", ListFilter: store.ListFilter{ProjectID: "p2"}}), []string{}},
	{"messages of org_b pb", messageList(orgB, store.MessageQuery{ListFilter: store.ListFilter{ProjectID: "pb"}}), []string{"msg1"}},
	{"messages of org_b p1 (none)", messageList(orgB, store.MessageQuery{ListFilter: store.ListFilter{ProjectID: "p1"}}), []string{}},

	{"thread t1's messages", threadMessageList(orgA, "t1", store.MessageQuery{}), []string{"msg1", "msg2", "msg3"}},
	{"thread t2's messages", threadMessageList(orgA, "t2", store.MessageQuery{}), []string{"msg4", "msg5"}},
	{"thread t4's messages (none)", threadMessageList(orgA, "t4", store.MessageQuery{}), []string{}},
	{"thread t6's messages (only an internal one)", threadMessageList(orgA, "t6", store.MessageQuery{}), []string{}},
	{"thread t1's messages, filters ignored", threadMessageList(orgA, "t1", store.MessageQuery{ThreadID: "t2", ListFilter: store.ListFilter{ProjectID: "p2"}}), []string{"msg1", "msg2", "msg3"}},
	{"org_b thread t1's messages", threadMessageList(orgB, "t1", store.MessageQuery{}), []string{"msg1"}},
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
	return find(t, page.Items, id)
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
		is.True(!slices.Contains(ids(page.Items), id)) // a thread clients do not see is not listed
	case store.KindMessage:
		page, err := s.ListMessages(ctx, org, store.MessageQuery{PageRequest: all})
		is.NoErr(err)
		is.True(!slices.Contains(ids(page.Items), id)) // a message clients do not see is not listed
	}
}

// noAttachment checks that an attachment is not found.
func noAttachment(is *is.I, s store.Threads, org, id string) {
	is.Helper()
	_, err := getAttachment(s, ctx, org, id)
	is.True(errors.Is(err, store.ErrNotFound)) // the attachment is not found
}

// testThreadRoundTrip reads each visible thread and message back, by id
// and in its lists: every field as put, UpdatedAt the store's own, a
// thread's MessageCount and LastMessageAt of its visible messages,
// whatever was given.
func testThreadRoundTrip(t *testing.T, open func(t *testing.T) subject) {
	s := open(t)
	from := s.Now()
	seedData().put(t, s)
	f := threadData()
	f.put(t, s)
	to := s.Now()
	var threads []store.Thread
	for _, th := range f.threads {
		if !th.Internal {
			threads = append(threads, f.thread(th.OrgID, th.ID))
		}
	}
	roundTrip(t, from, to, threads, s.GetThread, func(th store.Thread) (store.Page[store.Thread], error) {
		return s.ListThreads(ctx, th.OrgID, store.ThreadQuery{PageRequest: all})
	}, nil)
	messages := slices.DeleteFunc(slices.Clone(f.messages), func(m store.Message) bool { return m.Internal || m.ThreadID == "ti" })
	getMessage := func(ctx context.Context, org, id string) (store.Message, error) {
		return s.GetMessage(ctx, org, id, nil)
	}
	roundTrip(t, from, to, messages, getMessage, func(m store.Message) (store.Page[store.Message], error) {
		return s.ListMessages(ctx, m.OrgID, store.MessageQuery{PageRequest: all})
	}, func(t *testing.T, is *is.I, got, want store.Message) {
		page, err := s.ListThreadMessages(ctx, want.OrgID, want.ThreadID, store.MessageQuery{PageRequest: all})
		is.NoErr(err)
		listed := find(t, page.Items, want.ID)
		same(is, listed, want)
		is.True(got.Attachments != nil && listed.Attachments != nil) // a message without attachments has an empty list
		for _, a := range want.Attachments {
			got, err := getAttachment(s, ctx, want.OrgID, a.ID)
			is.NoErr(err)
			is.Equal(got, a) // every field of an attachment comes back as it was put
		}
	})
}

// testThreadCopies checks that changing what a store returned, or what
// was put, through pointers and slices, does not change what it stores.
func testThreadCopies(t *testing.T, open func(t *testing.T) subject) {
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

// testThreadLists reads every list of the seeded threads and messages,
// as testOrder does the seed data's: whole, and page by page.
func testThreadLists(t *testing.T, open func(t *testing.T) subject) {
	s, _ := seededThreads(t, open)
	checkLists(t, s, seededThreadLists)
	walk(t, s, seededThreadLists...)
}

// testThreadReplace replaces threads and messages: changed sort keys,
// filters and counts, a message moved to another thread, attachments
// dropped and their ids taken by another message.
func testThreadReplace(t *testing.T, open func(t *testing.T) subject) {
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
		{"threads", threadList(orgA, store.ThreadQuery{}), []string{"t1", "t2", "t3", "t4", "t5", "t6"}},
		{"threads open", threadList(orgA, store.ThreadQuery{Status: store.ThreadOpen}), []string{"t1", "t4", "t6"}},
		{"threads resolved", threadList(orgA, store.ThreadQuery{Status: store.ThreadResolved}), []string{"t2", "t3", "t5"}},
		{"threads of p1 (t3 moved in)", threadList(orgA, store.ThreadQuery{ListFilter: store.ListFilter{ProjectID: "p1"}}), []string{"t1", "t3", "t4", "t5"}},
		{"threads of p2 (t3 moved out)", threadList(orgA, store.ThreadQuery{ListFilter: store.ListFilter{ProjectID: "p2"}}), []string{}},
		{"messages", messageList(orgA, store.MessageQuery{}), []string{"msg6", "msg2", "msg3", "msg7", "msg4", "msg5", "msg1"}},
		{"messages of t2 (msg7 moved in)", messageList(orgA, store.MessageQuery{ThreadID: "t2"}), []string{"msg7", "msg4", "msg5"}},
		{"messages of t5 (msg7 moved out)", messageList(orgA, store.MessageQuery{ThreadID: "t5"}), []string{}},
		{"messages of p1 (t3's moved in, msg7 out)", messageList(orgA, store.MessageQuery{ListFilter: store.ListFilter{ProjectID: "p1"}}), []string{"msg6", "msg2", "msg3", "msg1"}},
		{"messages of p2", messageList(orgA, store.MessageQuery{ListFilter: store.ListFilter{ProjectID: "p2"}}), []string{}},
		{"thread t1's messages", threadMessageList(orgA, "t1", store.MessageQuery{}), []string{"msg2", "msg3", "msg1"}},
		{"thread t2's messages", threadMessageList(orgA, "t2", store.MessageQuery{}), []string{"msg7", "msg4", "msg5"}},
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

// testThreadScoping reads and deletes by ids of another organization,
// unknown ids and another kind's ids, where the rules of every kind do
// not (kindScoping, kindLists and kindDeletions do each kind's gets,
// lists and deletes): a thread's messages, attachments, and internal
// content, which the portal deletes as any other.
func testThreadScoping(t *testing.T, open func(t *testing.T) subject) {
	s, f := seededThreads(t, open)
	is := is.New(t)
	for _, c := range []struct{ org, a1Of string }{{orgA, "msg2"}, {orgB, "msg1"}} {
		a, err := getAttachment(s, ctx, c.org, "a1")
		is.NoErr(err)
		is.Equal(a, f.message(c.org, c.a1Of).Attachments[0]) // GetAttachment returns the asking organization's a1
		page, err := s.ListThreadMessages(ctx, c.org, "t1", store.MessageQuery{PageRequest: all})
		is.NoErr(err)
		for _, m := range page.Items {
			is.Equal(m.OrgID, c.org) // ListThreadMessages returns the organization's messages only
		}
	}
	for _, c := range []struct{ org, thread, attachment string }{
		{orgB, "t2", "a2"}, {orgA, "tb", "nope"}, // the other organization's
		{orgA, "nope", "nope"}, {"org_unknown", "nope", "nope"}, {"", "nope", "nope"},
		{orgA, "p1", "msg2"}, // a project's id, a message's id
	} {
		_, err := s.ListThreadMessages(ctx, c.org, c.thread, store.MessageQuery{PageRequest: all})
		is.True(errors.Is(err, store.ErrNotFound)) // the messages of a thread the organization does not have are not found
		noAttachment(is, s, c.org, c.attachment)
	}
	_, err := s.GetThread(ctx, orgA, "msg1")
	is.True(errors.Is(err, store.ErrNotFound))                               // a thread by a message's id
	is.True(errors.Is(s.DeleteThread(ctx, orgA, "msg1"), store.ErrNotFound)) // deleting a thread by a message's id
	is.True(errors.Is(s.DeleteMessage(ctx, orgA, "t1"), store.ErrNotFound))  // deleting a message by a thread's id

	is.NoErr(s.PutMessage(ctx, store.Message{ID: "msg4", OrgID: orgB, ThreadID: "tb", Author: store.Author{Name: "Cy", Side: store.SideClient},
		Body: "An id like org_a's", CreatedAt: day(2, 9),
		Attachments: []store.Attachment{{ID: "a2", FileName: "b.txt", ContentType: "text/plain", SizeBytes: 1, FileKey: "org_b/a2"}}})) // attachment ids are unique per organization only
	is.NoErr(s.DeleteMessage(ctx, orgB, "msg4"))
	checkLists(t, s, seededThreadLists) // the other organization's writes change nothing
	same(is, getMessage(t, s, orgA, "msg4"), f.message(orgA, "msg4"))

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

// The cases of restricted keys (see store.Store): every list honours
// OnlyProjects, the deletion records OnlyKinds too, with totals that
// count only what they keep.

// sinceEver is an UpdatedSince before every item: the lists then come in
// change order, with the same items.
var sinceEver = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// testThreadsRestricted reads messages and attachments restricted to
// projects where the rules of every kind do not (kindLists restricts
// ListThreads and ListMessages): with a thread filter, by thread, and an
// attachment's project.
func testThreadsRestricted(t *testing.T, open func(t *testing.T) subject) {
	s, _ := seeded(t, open)
	is := is.New(t)
	for _, tr := range []store.Thread{
		{ID: "t1", OrgID: orgA, ProjectID: ptr("p1"), Subject: "Launch", Status: store.ThreadOpen, CreatedAt: day(1, 9)},
		{ID: "t2", OrgID: orgA, ProjectID: ptr("p2"), Subject: "Logo", Status: store.ThreadOpen, CreatedAt: day(1, 9)},
		{ID: "t0", OrgID: orgA, Subject: "Retainer", Status: store.ThreadOpen, CreatedAt: day(1, 9)},
	} {
		is.NoErr(s.PutThread(ctx, tr)) // seeding a thread
	}
	for i, tr := range []string{"t1", "t2", "t0"} {
		is.NoErr(s.PutMessage(ctx, store.Message{ID: "msg" + tr, OrgID: orgA, ThreadID: tr,
			Author: store.Author{Name: "Ana", Side: store.SideAgency}, Body: "hello", CreatedAt: day(2, i),
			Attachments: []store.Attachment{{ID: "att" + tr, FileName: "f.txt", ContentType: "text/plain", SizeBytes: 1, FileKey: "k" + tr}}})) // seeding a message
	}
	checkLists(t, s, []list{
		{"messages of p1, asked for t2", messageList(orgA, store.MessageQuery{ThreadID: "t2", ListFilter: store.ListFilter{OnlyProjects: []string{"p1"}}}), []string{}},
		{"messages of p1 and p2, asked for t2", messageList(orgA, store.MessageQuery{ThreadID: "t2", ListFilter: store.ListFilter{OnlyProjects: []string{"p1", "p2"}}}), []string{"msgt2"}},
	})
	_, err := s.ListThreadMessages(ctx, orgA, "t1", store.MessageQuery{PageRequest: all, ListFilter: store.ListFilter{OnlyProjects: []string{"p1"}}})
	is.NoErr(err) // a thread of the key's projects
	for _, id := range []string{"t2", "t0"} {
		_, err := s.ListThreadMessages(ctx, orgA, id, store.MessageQuery{PageRequest: all, ListFilter: store.ListFilter{OnlyProjects: []string{"p1"}}})
		is.True(errors.Is(err, store.ErrNotFound)) // another project's thread, or an organization-wide one, is not found
	}
	for id, want := range map[string]string{"attt1": "p1", "attt2": "p2", "attt0": ""} {
		a, err := s.GetAttachment(ctx, orgA, id)
		is.NoErr(err)
		is.Equal(deref(a.ProjectID), want) // GetAttachment names the project of the attachment's thread
	}
}

// testThreadDepartures moves threads out of a project: a visible thread
// moved takes its messages with it, for a key of the project it left; an
// internal one was never seen, and leaves nothing. (The departures of
// every kind are kindDepartures'.)
func testThreadDepartures(t *testing.T, open func(t *testing.T) subject) {
	s, _ := seeded(t, open)
	is := is.New(t)
	s.Advance(tick)
	since := s.Now()
	author := store.Author{Name: "A", Side: store.SideAgency}
	tx := store.Thread{ID: "tx", OrgID: orgA, ProjectID: ptr("p3"), Subject: "s", Status: store.ThreadOpen, CreatedAt: day(3, 9)}
	ti := store.Thread{ID: "ti", OrgID: orgA, ProjectID: ptr("p3"), Subject: "s", Status: store.ThreadOpen, CreatedAt: day(3, 9), Internal: true}
	is.NoErr(s.PutThread(ctx, tx))
	is.NoErr(s.PutThread(ctx, ti))
	is.NoErr(s.PutMessage(ctx, store.Message{ID: "mx", OrgID: orgA, ThreadID: "tx", Author: author, Body: "b", CreatedAt: day(3, 9)}))
	is.NoErr(s.PutMessage(ctx, store.Message{ID: "mi", OrgID: orgA, ThreadID: "ti", Author: author, Body: "b", CreatedAt: day(3, 9)}))
	s.Advance(tick)
	tx.ProjectID, ti.ProjectID = ptr("p5"), ptr("p5")
	is.NoErr(s.PutThread(ctx, tx))
	is.NoErr(s.PutThread(ctx, ti))
	gone := func(only ...string) fetchFunc { // of threads and messages, restricted to only (none: unrestricted)
		return deletions(orgA, store.DeletionQuery{Since: since, OnlyProjects: only, OnlyKinds: []store.Kind{store.KindThread, store.KindMessage}})
	}
	checkLists(t, s, []list{
		{"threads of p3", gone("p3"), []string{"message mx", "thread tx"}},
		{"threads of p5", gone("p5"), []string{}},
		{"threads, unrestricted", gone(), []string{}},
	})
	s.Advance(tick)
	tx.ProjectID = ptr("p3")
	is.NoErr(s.PutThread(ctx, tx))
	checkLists(t, s, []list{
		{"threads of p3, tx back", gone("p3"), []string{}},
		{"threads of p5, tx gone", gone("p5"), []string{"message mx", "thread tx"}},
	})
}

// testGetMessage reads messages by GetMessage where the round trip does
// not: internal content, another kind's id, a restriction to projects,
// and messages made internal (the visible ones are testThreadRoundTrip's,
// a deleted one kindDeletions').
func testGetMessage(t *testing.T, open func(t *testing.T) subject) {
	s, f := seededThreads(t, open)
	for _, id := range []string{"mi1", "mi2", "mi3"} {
		_, err := s.GetMessage(ctx, orgA, id, nil)
		is.New(t).True(errors.Is(err, store.ErrNotFound)) // internal content is not found
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

	// Made internal, or its thread made internal: not found.
	m := f.message(orgA, "msg2")
	m.Internal = true
	is.NoErr(s.PutMessage(ctx, m))
	_, err = s.GetMessage(ctx, orgA, "msg2", nil)
	is.True(errors.Is(err, store.ErrNotFound)) // a message made internal is not found
	th := want(f.threads, orgA, "t5")
	th.Internal = true
	is.NoErr(s.PutThread(ctx, th))
	_, err = s.GetMessage(ctx, orgA, "msg7", nil)
	is.True(errors.Is(err, store.ErrNotFound)) // a message of a thread made internal is not found
}
