package storetest

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/store"
)

// newThread and newMessage are a thread and a message (in thread) that
// a store takes, which the cases of refusals change one field of.
func newThread() store.Thread {
	return store.Thread{ID: "new", OrgID: orgA, ProjectID: ptr("p1"), Subject: "n", Status: store.ThreadOpen,
		About: &store.Ref{Kind: store.KindMilestone, ID: "m1"}, CreatedAt: day(1, 1)}
}

func newMessage(thread string) store.Message {
	return store.Message{ID: "new", OrgID: orgA, ThreadID: thread, Author: store.Author{Name: "A", Side: store.SideClient}, Body: "b", CreatedAt: day(1, 1),
		Attachments: []store.Attachment{{ID: "anew", FileName: "f", ContentType: "text/plain", SizeBytes: 1, FileKey: "k"}}}
}

// testThreadRejectsInvalid puts threads and messages that must be
// refused, and checks that nothing of them is stored (an empty id, an
// unknown organization or project, another organization's project are
// kindRejects'), and that reads by
// the unstorable ids among them match nothing. A reference to a
// missing organization, project, About item or thread (in the same
// organization) wraps store.ErrNotFound; any other refusal,
// store.ErrInvalid.
func testThreadRejectsInvalid(t *testing.T, open func(t *testing.T) subject) {
	s, f := seededThreads(t, open)
	okT, okM := newThread(), newMessage("t4")
	about := func(k store.Kind, id string) *store.Ref { return &store.Ref{Kind: k, ID: id} }
	withAttachment := func(a store.Attachment) func() error {
		return func() error { m := okM; m.Attachments = []store.Attachment{a}; return s.PutMessage(ctx, m) }
	}
	att := okM.Attachments[0]

	tests := []refusal{
		{"thread with an empty project id", func() error { th := okT; th.ProjectID = ptr(""); return s.PutThread(ctx, th) }, false},
		{"thread with unknown status", func() error { th := okT; th.Status = "closed"; return s.PutThread(ctx, th) }, false},
		{"thread without status", func() error { th := okT; th.Status = ""; return s.PutThread(ctx, th) }, false},
		{"thread about a project", func() error { th := okT; th.About = about(store.KindProject, "p1"); return s.PutThread(ctx, th) }, false},
		{"thread about a thread", func() error { th := okT; th.About = about(store.KindThread, "t1"); return s.PutThread(ctx, th) }, false},
		{"thread about an unknown kind", func() error { th := okT; th.About = about("Milestone", "m1"); return s.PutThread(ctx, th) }, false},
		{"thread about nothing by id", func() error { th := okT; th.About = about(store.KindMilestone, ""); return s.PutThread(ctx, th) }, false},
		{"thread about an unknown milestone", func() error { th := okT; th.About = about(store.KindMilestone, "nope"); return s.PutThread(ctx, th) }, true},
		{"thread about a milestone by a deliverable's id", func() error { th := okT; th.About = about(store.KindMilestone, "d1"); return s.PutThread(ctx, th) }, true},
		{"thread about another organization's milestone", func() error { th := okT; th.About = about(store.KindMilestone, "mb"); return s.PutThread(ctx, th) }, true},
		{"thread about an unknown deliverable", func() error { th := okT; th.About = about(store.KindDeliverable, "nope"); return s.PutThread(ctx, th) }, true},
		{"thread about an invoice by a milestone's id", func() error { th := okT; th.About = about(store.KindInvoice, "m1"); return s.PutThread(ctx, th) }, true},
		{"thread about another organization's invoice", func() error { th := okT; th.About = about(store.KindInvoice, "ib"); return s.PutThread(ctx, th) }, true},

		{"message without thread", func() error { m := okM; m.ThreadID = ""; return s.PutMessage(ctx, m) }, false},
		{"message of unknown thread", func() error { m := okM; m.ThreadID = "nope"; return s.PutMessage(ctx, m) }, true},
		{"message of another organization's thread", func() error { m := okM; m.ThreadID = "tb"; return s.PutMessage(ctx, m) }, true},
		{"message of a thread by a message's id", func() error { m := okM; m.ThreadID = "msg1"; return s.PutMessage(ctx, m) }, true},
		{"message without author name", func() error { m := okM; m.Author.Name = ""; return s.PutMessage(ctx, m) }, false},
		{"message with unknown author side", func() error { m := okM; m.Author.Side = "staff"; return s.PutMessage(ctx, m) }, false},
		{"message without author side", func() error { m := okM; m.Author.Side = ""; return s.PutMessage(ctx, m) }, false},
		{"attachment without id", withAttachment(store.Attachment{FileName: "f", ContentType: "text/plain", FileKey: "k"}), false},
		{"attachment without file key", withAttachment(store.Attachment{ID: "anew", FileName: "f", ContentType: "text/plain"}), false},
		{"attachment with negative size", withAttachment(store.Attachment{ID: "anew", FileName: "f", ContentType: "text/plain", SizeBytes: -1, FileKey: "k"}), false},
		{"two attachments with one id", func() error { m := okM; m.Attachments = []store.Attachment{att, att}; return s.PutMessage(ctx, m) }, false},
		{"attachment id of another message", func() error { a := att; a.ID = "a1"; return withAttachment(a)() }, false},
		{"attachment id of another message, among others", func() error {
			m := okM
			m.Attachments = []store.Attachment{att, {ID: "a3", FileName: "f", ContentType: "text/plain", FileKey: "k"}}
			return s.PutMessage(ctx, m)
		}, false},
		{"attachment id of an internal message", func() error { a := att; a.ID = "ai1"; return withAttachment(a)() }, false},
		{"attachment id of a message of an internal thread", func() error { a := att; a.ID = "ai2"; return withAttachment(a)() }, false},
		{"attachment id of another message, by a message put again", func() error {
			m := f.message(orgA, "msg4")
			m.Attachments = []store.Attachment{{ID: "a2", FileName: "f", ContentType: "text/plain", FileKey: "k"}}
			return s.PutMessage(ctx, m)
		}, false},
	}
	// References and attachment ids no store keeps exactly: invalid, not
	// missing (each kind's own ids are kindRejects').
	for _, id := range unstorable("t1") {
		tests = append(tests, refusal{fmt.Sprintf("message of thread %q", id), func() error { m := okM; m.ThreadID = id; return s.PutMessage(ctx, m) }, false})
	}
	for _, id := range unstorable("m1") {
		tests = append(tests, refusal{fmt.Sprintf("thread about milestone %q", id), func() error {
			th := okT
			th.About = about(store.KindMilestone, id)
			return s.PutThread(ctx, th)
		}, false})
	}
	for _, id := range unstorable("a1") {
		tests = append(tests, refusal{fmt.Sprintf("attachment %q", id), withAttachment(store.Attachment{ID: id, FileName: "f", ContentType: "text/plain", FileKey: "k"}), false})
	}
	for _, key := range unstorable("org_a/a1") {
		tests = append(tests, refusal{fmt.Sprintf("attachment with file key %q", key), withAttachment(store.Attachment{ID: "anew", FileName: "f", ContentType: "text/plain", FileKey: key}), false})
	}
	checkRefusals(t, tests)

	// Nothing of the refused items was stored, and the seed data is intact;
	// reads by unstorable ids match nothing.
	is := is.New(t)
	for _, id := range unstorable("t1") {
		_, err := s.ListThreadMessages(ctx, orgA, id, store.MessageQuery{PageRequest: all})
		is.True(errors.Is(err, store.ErrNotFound)) // ListThreadMessages of an unstorable id
		checkLists(t, s, []list{{fmt.Sprintf("messages of thread %q", id), messageList(orgA, store.MessageQuery{ThreadID: id}), []string{}}})
	}
	for _, id := range unstorable("a1") {
		noAttachment(is, s, orgA, id)
	}
	for _, org := range unstorable(orgA) {
		noAttachment(is, s, org, "a1")
	}
	for _, org := range []string{orgA, orgB, "org_unknown"} {
		_, err := s.GetThread(ctx, org, "new")
		is.True(errors.Is(err, store.ErrNotFound)) // no refused thread is stored
		noAttachment(is, s, org, "anew")           // no refused attachment is stored
	}
	checkLists(t, s, seededThreadLists) // refused items leave the lists as they were
	same(is, getMessage(t, s, orgA, "msg4"), f.message(orgA, "msg4"))
	a, err := getAttachment(s, ctx, orgA, "a2")
	is.NoErr(err)
	is.Equal(a, f.message(orgA, "msg5").Attachments[0]) // a2 is still msg5's

	// A message put again keeps its own attachment ids.
	msg2 := f.message(orgA, "msg2")
	msg2.Attachments[0].FileName = "plan v2.txt"
	is.NoErr(s.PutMessage(ctx, msg2)) // a message keeps its attachment ids
	a, err = getAttachment(s, ctx, orgA, "a1")
	is.NoErr(err)
	is.Equal(a, msg2.Attachments[0]) // the attachment put again
}

// testThreadText round-trips text that encodings, escaping and column
// sizes get wrong: Unicode everywhere, a 100 KB body, and attachment file
// names with quotes, slashes and non-ASCII.
func testThreadText(t *testing.T, open func(t *testing.T) subject) {
	s, _ := seededThreads(t, open)
	is := is.New(t)
	var b strings.Builder
	for b.Len() < 100<<10 {
		b.WriteString("Grüße, 世界 🌍 \"quoted\" 'single' \\back\\slash\ttab\r\nline <b>html</b> &amp; %s %% \u00a0nbsp \u200bzero-width — ")
	}
	body := b.String()
	th := store.Thread{ID: "tü-🧵", OrgID: orgA, ProjectID: ptr("p1"), Subject: `Café "Größe" — 店 🚀 \ / ' ` + "\t\n", Status: store.ThreadOpen, CreatedAt: day(3, 9)}
	is.NoErr(s.PutThread(ctx, th))
	names := []string{`report "final".pdf`, `a/b\c.txt`, `../../etc/passwd`, "Größe 店 🚀.png", `semi;colon, comma=x; filename*=UTF-8''evil.txt`, `'single'.txt`, "line\nbreak.txt", " spaced  .txt"}
	var atts []store.Attachment
	for n, name := range names {
		atts = append(atts, store.Attachment{ID: fmt.Sprintf("att-ü-%d", n), FileName: name, ContentType: "text/plain; charset=utf-8", SizeBytes: int64(n), FileKey: "org_a/" + name})
	}
	long := store.Message{ID: "msg-long", OrgID: orgA, ThreadID: th.ID, Author: store.Author{Name: `José Ñúñez "JJ" O'Brien 李`, Side: store.SideClient},
		Body: body, CreatedAt: day(3, 10), Attachments: atts}
	empty := store.Message{ID: "msg-empty", OrgID: orgA, ThreadID: th.ID, Author: store.Author{Name: "A", Side: store.SideAgency}, Body: "", CreatedAt: day(3, 11)}
	is.NoErr(s.PutMessage(ctx, long))
	is.NoErr(s.PutMessage(ctx, empty))

	gotT := getThread(t, s, orgA, th.ID)
	is.Equal(gotT.Subject, th.Subject) // the subject comes back byte for byte
	page, err := s.ListThreadMessages(ctx, orgA, th.ID, store.MessageQuery{PageRequest: all})
	is.NoErr(err)
	is.Equal(len(page.Items), 2)
	got := page.Items[0]
	is.Equal(len(got.Body), len(body)) // the 100 KB body comes back whole
	is.True(got.Body == body)          // the 100 KB body comes back byte for byte
	is.Equal(got.Author, long.Author)  // the author comes back byte for byte
	is.Equal(got.Attachments, atts)    // the attachments come back byte for byte, in order
	is.Equal(page.Items[1].Body, "")   // an empty body comes back empty
	for _, a := range atts {
		gotA, err := getAttachment(s, ctx, orgA, a.ID)
		is.NoErr(err)
		is.Equal(gotA, a) // the attachment's file name comes back byte for byte
	}
}
