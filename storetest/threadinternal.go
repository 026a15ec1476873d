package storetest

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/store"
)

// The cases of internal content: invisible to clients, appearing and
// disappearing as it is marked, and changing nothing they see however
// much happens in it.

// testInternalContent checks that internal threads and messages are
// invisible, and that they appear and disappear as they are marked.
func testInternalContent(t *testing.T, open func(t *testing.T) subject) {
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
	ti := want(f.threads, orgA, "ti")
	ti.Internal = false
	is.NoErr(s.PutThread(ctx, ti))
	checkLists(t, s, []list{
		{"threads with ti visible", threadList(orgA, store.ThreadQuery{}), []string{"ti", "t2", "t1", "t5", "t3", "t4", "t6"}},
		{"messages with mi1 and ti visible", messageList(orgA, store.MessageQuery{}), []string{"msg6", "msg1", "msg2", "msg3", "msg7", "mi1", "msg4", "msg5", "mi3"}},
		{"thread t1's messages with mi1 visible", threadMessageList(orgA, "t1", store.MessageQuery{}), []string{"msg1", "msg2", "msg3", "mi1"}},
		{"messages of p1", messageList(orgA, store.MessageQuery{ListFilter: store.ListFilter{ProjectID: "p1"}}), []string{"msg1", "msg2", "msg3", "msg7", "mi1", "mi3"}},
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
	t2 := want(f.threads, orgA, "t2")
	t2.Internal = true
	is.NoErr(s.PutThread(ctx, t2))
	checkLists(t, s, []list{
		{"threads with t2 internal", threadList(orgA, store.ThreadQuery{}), []string{"t1", "t5", "t3", "t4", "t6"}},
		{"threads resolved with t2 internal", threadList(orgA, store.ThreadQuery{Status: store.ThreadResolved}), []string{"t5"}},
		{"messages with msg2 and t2 internal", messageList(orgA, store.MessageQuery{}), []string{"msg6", "msg1", "msg3", "msg7"}},
		{"messages of t2, an internal thread", messageList(orgA, store.MessageQuery{ThreadID: "t2"}), []string{}},
		{"thread t1's messages with msg2 internal", threadMessageList(orgA, "t1", store.MessageQuery{}), []string{"msg1", "msg3"}},
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
	checkLists(t, s, seededThreadLists)
	for _, id := range []string{"t1", "t2"} {
		same(is, getThread(t, s, orgA, id), f.thread(orgA, id)) // a thread visible again is as seeded
	}
}

// testInternalActivity checks that however much happens in internal
// content, every answer clients can get stays exactly as it was,
// UpdatedAt included.
func testInternalActivity(t *testing.T, open func(t *testing.T) subject) {
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
	ti := want(f.threads, orgA, "ti")
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
func snapshot(t *testing.T, s subject) []string {
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
	for _, org := range []string{orgA, orgB} {
		page, err := s.ListThreads(ctx, org, store.ThreadQuery{PageRequest: all, ListFilter: store.ListFilter{UpdatedSince: earliest}})
		add("threads updated since the seeding "+org, page, err)
		msgs, err := s.ListMessages(ctx, org, store.MessageQuery{PageRequest: all, ListFilter: store.ListFilter{UpdatedSince: earliest}})
		add("messages updated since the seeding "+org, msgs, err)
		dels, err := s.ListDeletions(ctx, org, store.DeletionQuery{PageRequest: all, Since: earliest})
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
