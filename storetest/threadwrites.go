package storetest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/store"
)

func testDeleteThread(t *testing.T, open func(t *testing.T) subject) {
	s, _ := seededThreads(t, open)
	is := is.New(t)
	is.NoErr(s.DeleteThread(ctx, orgA, "t1"))
	is.NoErr(s.DeleteMessage(ctx, orgA, "msg4"))
	hidden(t, s, orgA, store.KindThread, "t1")
	for _, id := range []string{"msg1", "msg2", "msg3", "mi1", "msg4"} {
		is.True(errors.Is(s.DeleteMessage(ctx, orgA, id), store.ErrNotFound)) // a deleted message, or one deleted with its thread, is gone
	}
	noAttachment(is, s, orgA, "a1")
	checkLists(t, s, []list{
		{"threads", threadList(orgA, store.ThreadQuery{}), []string{"t2", "t5", "t3", "t4", "t6"}},
		{"threads of p1", threadList(orgA, store.ThreadQuery{ListFilter: store.ListFilter{ProjectID: "p1"}}), []string{"t5", "t4"}},
		{"messages", messageList(orgA, store.MessageQuery{}), []string{"msg6", "msg7", "msg5"}},
		{"messages of t1", messageList(orgA, store.MessageQuery{ThreadID: "t1"}), []string{}},
		{"messages of p1", messageList(orgA, store.MessageQuery{ListFilter: store.ListFilter{ProjectID: "p1"}}), []string{"msg7"}},
		{"org_b's threads (its t1 stays)", threadList(orgB, store.ThreadQuery{}), []string{"t1", "tb"}},
		{"org_b's messages (its msg1 stays)", messageList(orgB, store.MessageQuery{}), []string{"msg1"}},
	})
	t2 := getThread(t, s, orgA, "t2")
	is.Equal(t2.MessageCount, 1)                            // a deleted message does not count
	is.True(sameInstant(t2.LastMessageAt, ptr(day(31, 9)))) // LastMessageAt of the messages left

	// The ids of what was deleted are free again, attachment ids too.
	is.NoErr(s.PutThread(ctx, store.Thread{ID: "t1", OrgID: orgA, Subject: "Again", Status: store.ThreadOpen, CreatedAt: day(5, 0)}))
	is.NoErr(s.PutMessage(ctx, store.Message{ID: "msg1", OrgID: orgA, ThreadID: "t2", Author: store.Author{Name: "A", Side: store.SideAgency},
		Body: "again", CreatedAt: day(5, 0), Attachments: []store.Attachment{
			{ID: "a1", FileName: "f", ContentType: "text/plain", FileKey: "k"},
			{ID: "ai1", FileName: "g", ContentType: "text/plain", FileKey: "k"},
		}}))
	th := getThread(t, s, orgA, "t1")
	is.Equal(th.MessageCount, 0) // a thread put again does not get back its deleted messages
	_, err := getAttachment(s, ctx, orgA, "ai1")
	is.NoErr(err) // the id of an attachment deleted with its thread is free again
}

// testThreadDeleteProject checks the cascade: a project's threads,
// internal ones too, go with it, with their messages; other threads stay,
// and those about a milestone or deliverable it took lose their About.
func testThreadDeleteProject(t *testing.T, open func(t *testing.T) subject) {
	s, _ := seededThreads(t, open)
	is := is.New(t)
	is.NoErr(s.PutThread(ctx, store.Thread{ID: "tx", OrgID: orgA, Subject: "About p1's milestone", Status: store.ThreadOpen,
		About: &store.Ref{Kind: store.KindMilestone, ID: "m2"}, CreatedAt: day(3, 0)}))
	is.NoErr(s.PutThread(ctx, store.Thread{ID: "ty", OrgID: orgA, ProjectID: ptr("p2"), Subject: "About p1's deliverable", Status: store.ThreadOpen,
		About: &store.Ref{Kind: store.KindDeliverable, ID: "d1"}, CreatedAt: day(3, 0)}))
	s.Advance(tick)
	before := map[string]time.Time{}
	for _, id := range []string{"tx", "ty", "t2", "t3"} {
		before[id] = getThread(t, s, orgA, id).UpdatedAt
	}
	s.Advance(tick)
	is.NoErr(s.DeleteProject(ctx, orgA, "p1"))

	for _, id := range []string{"t1", "t4", "t5", "ti"} {
		is.True(errors.Is(s.DeleteThread(ctx, orgA, id), store.ErrNotFound)) // a thread deleted with its project is gone, an internal one too
	}
	for _, id := range []string{"msg1", "msg7", "mi1", "mi3"} {
		is.True(errors.Is(s.DeleteMessage(ctx, orgA, id), store.ErrNotFound)) // a message deleted with its project's thread is gone, an internal one too
	}
	noAttachment(is, s, orgA, "a1")
	checkLists(t, s, []list{
		{"threads", threadList(orgA, store.ThreadQuery{}), []string{"t2", "t3", "t6", "tx", "ty"}},
		{"threads of p1", threadList(orgA, store.ThreadQuery{ListFilter: store.ListFilter{ProjectID: "p1"}}), []string{}},
		{"messages", messageList(orgA, store.MessageQuery{}), []string{"msg6", "msg4", "msg5"}},
		{"org_b's threads (its p1 stays)", threadList(orgB, store.ThreadQuery{}), []string{"t1", "tb"}},
	})
	for _, id := range []string{"tx", "ty"} {
		th := getThread(t, s, orgA, id)
		is.Equal(th.About, nil)                 // a thread about an item deleted with the project stays, about nothing
		is.True(th.UpdatedAt.After(before[id])) // losing its About moves the thread's UpdatedAt
	}
	for _, id := range []string{"t2", "t3"} {
		is.True(getThread(t, s, orgA, id).UpdatedAt.Equal(before[id])) // a thread the cascade leaves alone keeps its UpdatedAt
	}
	is.Equal(getThread(t, s, orgA, "t2").About, &store.Ref{Kind: store.KindInvoice, ID: "i2"}) // an invoice stays, and a thread about it too

	page, err := s.ListDeletions(ctx, orgA, store.DeletionQuery{PageRequest: all, Since: before["t3"]})
	is.NoErr(err)
	got := map[string]string{}
	for _, r := range page.Items {
		if r.Kind == store.KindThread || r.Kind == store.KindMessage {
			got[string(r.Kind)+" "+r.ID] = r.ProjectID
		}
	}
	is.Equal(got, map[string]string{
		"thread t1": "p1", "thread t4": "p1", "thread t5": "p1",
		"message msg1": "p1", "message msg2": "p1", "message msg3": "p1", "message msg7": "p1",
	}) // the cascade records the visible threads and messages, with the project, and nothing of the internal ones
}

// testThreadDeleteAbout checks that a thread about a milestone, a
// deliverable or an invoice that is deleted stays, about nothing.
func testThreadDeleteAbout(t *testing.T, open func(t *testing.T) subject) {
	s, f := seededThreads(t, open)
	is := is.New(t)
	for _, c := range []struct {
		thread string
		del    func() error
	}{
		{"t1", func() error { return s.DeleteMilestone(ctx, orgA, "m1") }},
		{"t3", func() error { return s.DeleteDeliverable(ctx, orgA, "d3") }},
		{"t2", func() error { return s.DeleteInvoice(ctx, orgA, "i2") }},
	} {
		old := getThread(t, s, orgA, c.thread)
		s.Advance(tick)
		is.NoErr(c.del())
		th := getThread(t, s, orgA, c.thread)
		is.Equal(th.About, nil)                    // a thread about a deleted item stays, about nothing
		is.True(th.UpdatedAt.After(old.UpdatedAt)) // losing its About moves the thread's UpdatedAt
		w := f.thread(orgA, c.thread)
		w.About = nil
		same(is, th, w) // only About changes
	}
	same(is, getThread(t, s, orgB, "t1"), f.thread(orgB, "t1")) // org_b's thread about its d1 is untouched

	// Put again as it was, the thread names a missing item.
	err := s.PutThread(ctx, want(f.threads, orgA, "t1"))
	is.True(errors.Is(err, store.ErrNotFound)) // a thread about a deleted item is refused
}

// testThreadDeleteOrganization: the attachments of a deleted
// organization go with it (its threads and messages are
// kindOrganizationDeleted's); the other organization's stay.
func testThreadDeleteOrganization(t *testing.T, open func(t *testing.T) subject) {
	s, _ := seededThreads(t, open)
	is := is.New(t)
	is.NoErr(s.DeleteOrganization(ctx, orgA))
	is.NoErr(s.PutOrganization(ctx, seedData().orgs[0])) // org_a again
	noAttachment(is, s, orgA, "a1")
	_, err := getAttachment(s, ctx, orgB, "a1")
	is.NoErr(err) // org_b's a1 stays
}

// testThreadUpdatedAt checks when a write moves a thread's and a
// message's UpdatedAt, and when it must not (that writes of internal
// content move nothing is testInternalActivity's).
func testThreadUpdatedAt(t *testing.T, open func(t *testing.T) subject) {
	s, f := seededThreads(t, open)
	s.Advance(tick)

	agency := store.Author{Name: "Ana", Side: store.SideAgency}
	t1, t2, t3 := want(f.threads, orgA, "t1"), want(f.threads, orgA, "t2"), want(f.threads, orgA, "t3")
	msg2, msg3, msg5, msg7 := f.message(orgA, "msg2"), f.message(orgA, "msg3"), f.message(orgA, "msg5"), f.message(orgA, "msg7")
	msg1, mi1 := f.message(orgA, "msg1"), f.message(orgA, "mi1")
	msg8 := store.Message{ID: "msg8", OrgID: orgA, ThreadID: "t1", Author: agency, Body: "New.", CreatedAt: day(24, 9)}

	at := func(item string) (time.Time, bool) {
		kind, id, _ := strings.Cut(item, " ")
		if kind == "thread" {
			th, err := s.GetThread(ctx, orgA, id)
			return th.UpdatedAt, err == nil
		}
		page, err := s.ListMessages(ctx, orgA, store.MessageQuery{PageRequest: all})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range page.Items {
			if m.ID == id {
				return m.UpdatedAt, true
			}
		}
		return time.Time{}, false
	}
	tests := []struct {
		name    string
		write   func() error
		moves   []string // visible before and after, with a new UpdatedAt
		appears []string // not visible before, dated by the write
		stays   []string // keep their UpdatedAt
	}{
		{"thread put again as it was, in UTC", func() error {
			th := t1
			th.CreatedAt, th.UpdatedAt, th.MessageCount, th.LastMessageAt = th.CreatedAt.UTC(), day(99, 0), 7, ptr(day(1, 0))
			return s.PutThread(ctx, th)
		}, nil, nil, []string{"thread t1", "message msg1", "message msg2", "message msg3"}},
		{"message put again as it was", func() error { m := msg2; m.UpdatedAt = day(99, 0); return s.PutMessage(ctx, m) }, nil, nil, []string{"thread t1", "message msg2"}},
		{"thread subject", func() error { t1.Subject += " (new)"; return s.PutThread(ctx, t1) }, []string{"thread t1"}, nil, []string{"message msg1", "message msg2", "thread t2"}},
		{"thread resolved", func() error {
			t1.Status, t1.ResolvedAt = store.ThreadResolved, ptr(day(23, 0))
			return s.PutThread(ctx, t1)
		}, []string{"thread t1"}, nil, []string{"message msg3"}},
		{"thread about nothing", func() error { t1.About = nil; return s.PutThread(ctx, t1) }, []string{"thread t1"}, nil, nil},
		{"thread created a second earlier", func() error { t1.CreatedAt = t1.CreatedAt.Add(-time.Second); return s.PutThread(ctx, t1) }, []string{"thread t1"}, nil, nil},
		{"new visible message", func() error { return s.PutMessage(ctx, msg8) }, []string{"thread t1"}, []string{"message msg8"}, []string{"message msg1", "thread t2"}},
		{"visible message edited", func() error {
			msg3.Body, msg3.EditedAt = "Moved again.", ptr(day(22, 11))
			return s.PutMessage(ctx, msg3)
		}, []string{"thread t1", "message msg3"}, nil, []string{"message msg1"}},
		{"visible message's file key only", func() error { msg5.Attachments[0].FileKey += ".v2"; return s.PutMessage(ctx, msg5) }, []string{"thread t2", "message msg5"}, nil, []string{"message msg4", "thread t1"}},
		{"attachment added to a visible message", func() error {
			msg2.Attachments = append(msg2.Attachments, store.Attachment{ID: "a9", FileName: "more.txt", ContentType: "text/plain", FileKey: "k"})
			return s.PutMessage(ctx, msg2)
		}, []string{"thread t1", "message msg2"}, nil, nil},
		{"visible message made internal", func() error { msg1.Internal = true; return s.PutMessage(ctx, msg1) }, []string{"thread t1"}, nil, []string{"message msg2"}},
		{"internal message made visible", func() error { mi1.Internal = false; return s.PutMessage(ctx, mi1) }, []string{"thread t1"}, []string{"message mi1"}, []string{"message msg2"}},
		{"visible message deleted", func() error { return s.DeleteMessage(ctx, orgA, "msg8") }, []string{"thread t1"}, nil, []string{"message msg2"}},
		{"message moved to another thread", func() error { msg7.ThreadID = "t2"; return s.PutMessage(ctx, msg7) }, []string{"thread t2", "thread t5", "message msg7"}, nil, []string{"thread t1", "message msg5"}},
		{"thread moved to another project", func() error { t3.ProjectID = ptr("p1"); return s.PutThread(ctx, t3) }, []string{"thread t3", "message msg6"}, nil, []string{"thread t1"}},
		{"thread made internal", func() error { t2.Internal = true; return s.PutThread(ctx, t2) }, nil, nil, []string{"thread t1", "thread t3"}},
		{"thread made visible again", func() error { t2.Internal = false; return s.PutThread(ctx, t2) }, nil,
			[]string{"thread t2", "message msg4", "message msg5", "message msg7"}, []string{"thread t1"}},
		{"new thread, with an old UpdatedAt given", func() error {
			return s.PutThread(ctx, store.Thread{ID: "t7", OrgID: orgA, Subject: "New", Status: store.ThreadOpen, CreatedAt: day(1, 0), UpdatedAt: day(1, 0)})
		}, nil, []string{"thread t7"}, []string{"thread t1"}},
		{"new message, with a future UpdatedAt given", func() error {
			return s.PutMessage(ctx, store.Message{ID: "msg9", OrgID: orgA, ThreadID: "t7", Author: agency, Body: "Hi", CreatedAt: day(1, 0), UpdatedAt: s.Now().Add(time.Hour)})
		}, []string{"thread t7"}, []string{"message msg9"}, []string{"thread t1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			old := map[string]time.Time{}
			for _, item := range append(slices.Clone(tt.moves), tt.stays...) {
				u, ok := at(item)
				if !ok {
					t.Fatalf("%s is not visible before the write", item)
				}
				old[item] = u
			}
			s.Advance(tick)
			from := s.Now()
			is.NoErr(tt.write())
			to := s.Now()
			for _, item := range append(slices.Clone(tt.moves), tt.appears...) {
				u, ok := at(item)
				if !ok {
					t.Fatalf("%s is not visible after the write", item)
				}
				if prev, ok := old[item]; ok {
					is.True(u.After(prev)) // the write moves UpdatedAt forward
				}
				within(is, u, from, to)
			}
			for _, item := range tt.stays {
				u, ok := at(item)
				if !ok {
					t.Fatalf("%s is not visible after the write", item)
				}
				if !u.Equal(old[item]) {
					t.Errorf("%s: UpdatedAt moved from %s to %s, want it kept", item, old[item], u)
				}
			}
		})
	}
}

// testThreadDeletions deletes and hides threads and messages, time apart,
// and reads the deletion records: one for each visible item that
// disappears (that internal content leaves none is
// testInternalActivity's), their projects, and records dropped when the
// content is visible again.
func testThreadDeletions(t *testing.T, open func(t *testing.T) subject) {
	s, f := seededThreads(t, open)
	is := is.New(t)

	s.Advance(tick)
	t4 := want(f.threads, orgA, "t4")
	t4.Subject += " (changed)"
	is.NoErr(s.PutThread(ctx, t4))
	since := getThread(t, s, orgA, "t4").UpdatedAt

	msg2 := f.message(orgA, "msg2")
	t2 := want(f.threads, orgA, "t2")
	from := s.Now()
	for _, write := range []func() error{
		func() error { return s.DeleteMessage(ctx, orgA, "msg3") },            // a visible message
		func() error { msg2.Internal = true; return s.PutMessage(ctx, msg2) }, // a visible message hidden
		func() error { t2.Internal = true; return s.PutThread(ctx, t2) },      // a thread hidden, with its messages
		func() error { return s.DeleteThread(ctx, orgA, "t5") },               // a thread, with its message
		func() error { return s.DeleteThread(ctx, orgA, "t6") },               // a thread with only an internal message
		func() error { return s.DeleteMessage(ctx, orgB, "msg1") },            // org_b's
	} {
		s.Advance(tick)
		is.NoErr(write())
	}
	to := s.Now()

	page, err := s.ListDeletions(ctx, orgA, store.DeletionQuery{PageRequest: all, Since: since})
	is.NoErr(err)
	is.NoErr(inFeedOrder(page.Items))
	feed := ids(page.Items)
	is.Equal(feed, []string{"message msg3", "message msg2", "message msg4", "message msg5", "thread t2", "message msg7", "thread t5", "thread t6"}) // a record for each visible item that disappeared, none for internal ones
	projectOf := map[string]string{}
	for _, r := range page.Items {
		within(is, r.DeletedAt, from, to)
		projectOf[string(r.Kind)+" "+r.ID] = r.ProjectID
	}
	is.Equal(projectOf, map[string]string{
		"message msg3": "p1", "message msg2": "p1", "message msg4": "", "message msg5": "", "thread t2": "",
		"message msg7": "p1", "thread t5": "p1", "thread t6": "p4",
	}) // each record names the project of the thread
	is.True(page.Items[2].DeletedAt.Equal(page.Items[4].DeletedAt)) // a thread hidden and its messages are recorded at one time
	lists := []list{
		{"threads", deletions(orgA, store.DeletionQuery{Since: since, Kind: store.KindThread}), []string{"thread t2", "thread t5", "thread t6"}},
		{"messages", deletions(orgA, store.DeletionQuery{Since: since, Kind: store.KindMessage}), []string{"message msg3", "message msg2", "message msg4", "message msg5", "message msg7"}},
		{"of org_b", deletions(orgB, store.DeletionQuery{Since: since}), []string{"message msg1"}},
	}
	checkLists(t, s, lists)
	walk(t, s, lists...)

	// Visible again, the content drops its records and comes back as
	// changed; put again while internal, a deleted item keeps its record:
	// hidden and deleted look the same.
	back := s.Now()
	t5 := want(f.threads, orgA, "t5")
	for _, write := range []func() error{
		func() error { msg2.Internal = false; return s.PutMessage(ctx, msg2) },
		func() error { t2.Internal = false; return s.PutThread(ctx, t2) },
		func() error { return s.PutMessage(ctx, f.message(orgA, "msg3")) },
		func() error { t5.Internal = true; return s.PutThread(ctx, t5) },
		func() error { return s.PutMessage(ctx, f.message(orgA, "msg7")) },
	} {
		s.Advance(tick)
		is.NoErr(write())
	}
	checkLists(t, s, []list{
		{"records left", deletions(orgA, store.DeletionQuery{Since: since}), []string{"message msg7", "thread t5", "thread t6"}},
		{"threads back", threadList(orgA, store.ThreadQuery{ListFilter: store.ListFilter{UpdatedSince: getThread(t, s, orgA, "t2").UpdatedAt}}), []string{"t2", "t1"}},
		{"messages back", messageList(orgA, store.MessageQuery{ListFilter: store.ListFilter{UpdatedSince: getMessage(t, s, orgA, "msg2").UpdatedAt}}), []string{"msg2", "msg4", "msg5", "msg3"}},
	})
	for _, id := range []string{"msg2", "msg3", "msg4", "msg5"} {
		within(is, getMessage(t, s, orgA, id).UpdatedAt, back, s.Now()) // content visible again is dated anew
	}
	t5.Internal = false
	is.NoErr(s.PutThread(ctx, t5))
	checkLists(t, s, []list{{"records left with t5 visible", deletions(orgA, store.DeletionQuery{Since: since}), []string{"thread t6"}}})
	is.Equal(getThread(t, s, orgA, "t5").MessageCount, 1) // the thread visible again counts its message put meanwhile
}

// testThreadConcurrent puts and deletes messages, visible and internal,
// and hides and shows a thread, while other goroutines read; run it with
// -race. Every read must see an ordered list, and every write must be
// counted.
func testThreadConcurrent(t *testing.T, open func(t *testing.T) subject) {
	s, f := seededThreads(t, open)
	is := is.New(t)
	const writers, readers, each = 4, 4, 20
	t5 := want(f.threads, orgA, "t5")
	workers := []func(n int) error{func(n int) error {
		t5.Internal = n%2 == 0 && n < each-1
		return s.PutThread(ctx, t5)
	}}
	for w := range writers {
		workers = append(workers, func(n int) error {
			m := store.Message{ID: fmt.Sprintf("w%d-%02d", w, n), OrgID: orgA, ThreadID: "t4", Author: store.Author{Name: "W", Side: store.SideClient},
				Body: "b", Internal: n%4 == 3, CreatedAt: day(n, w),
				Attachments: []store.Attachment{{ID: fmt.Sprintf("wa%d-%02d", w, n), FileName: "f", ContentType: "text/plain", FileKey: "k"}}}
			if err := s.PutMessage(ctx, m); err != nil || n%4 != 0 {
				return err
			}
			return s.DeleteMessage(ctx, orgA, m.ID)
		})
	}
	for r := range readers {
		workers = append(workers, func(n int) error {
			page, err := s.ListThreadMessages(ctx, orgA, "t4", store.MessageQuery{PageRequest: store.PageRequest{Page: 1 + n%2, Limit: 5 + r}})
			if err != nil {
				return err
			}
			if err := inOrder(page.Items, func(m store.Message) (time.Time, string) { return m.CreatedAt, m.ID }); err != nil {
				return err
			}
			threads, err := s.ListThreads(ctx, orgA, store.ThreadQuery{PageRequest: all})
			if err != nil {
				return err
			}
			for k := 1; k < len(threads.Items); k++ {
				a, b := threads.Items[k-1], threads.Items[k]
				if b.LastMessageAt != nil && (a.LastMessageAt == nil || a.LastMessageAt.Before(*b.LastMessageAt)) {
					return fmt.Errorf("thread %s listed before %s", a.ID, b.ID)
				}
			}
			msgs, err := s.ListMessages(ctx, orgA, store.MessageQuery{PageRequest: store.PageRequest{Page: 1 + n%3, Limit: 5 + r}, ListFilter: store.ListFilter{ProjectID: "p1"}})
			if err != nil {
				return err
			}
			for _, m := range msgs.Items {
				if m.ThreadID != "t1" && m.ThreadID != "t4" && m.ThreadID != "t5" {
					return fmt.Errorf("message %s of thread %s listed for p1", m.ID, m.ThreadID)
				}
			}
			if _, err := s.GetThread(ctx, orgA, "t4"); err != nil {
				return err
			}
			_, err = getAttachment(s, ctx, orgA, "a1")
			return err
		})
	}
	concurrently(t, each, workers)

	visible := writers * each / 2 // of each four: one deleted, one internal
	page, err := s.ListThreadMessages(ctx, orgA, "t4", store.MessageQuery{PageRequest: store.PageRequest{Page: 1, Limit: 1}})
	is.NoErr(err)
	is.Equal(page.Total, visible)                               // every visible message kept is listed
	is.Equal(getThread(t, s, orgA, "t4").MessageCount, visible) // and counted
	is.Equal(getThread(t, s, orgA, "t5").MessageCount, 1)       // a thread hidden and shown again counts its message
}

// sameInstant reports whether two optional times are both nil or the same
// instant.
func sameInstant(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}
