package statusapi_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"testing/fstest"
	"testing/synctest"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/files"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/store"
)

// attachmentLink asks for the download link of an attachment with key "a".
func (a *testAPI) attachmentLink(id string) (*url.URL, string) {
	a.t.Helper()
	return a.downloadLink("/v1/attachments/" + id + "/download")
}

func TestThreads(t *testing.T) {
	is := is.New(t)
	api := newTestAPIWith(t, unlimited)

	l := listOf(t, api.do("GET", "/v1/threads", "a"))
	is.Equal(l.ids(), []string{"t1", "t2", "t4"}) // lastMessageAt descending, none last; t3 is internal
	is.Equal(l.Meta.Total, 3)                     // internal threads are not counted
	t1 := l.Data[0]
	is.Equal(t1["messageCount"], 2.0)                                      // the internal note is not counted
	is.Equal(t1["lastMessageAt"], at(t0.AddDate(0, 0, -2)))                // nor dated
	is.Equal(t1["about"], map[string]any{"type": "milestone", "id": "m3"}) // what it is about
	is.Equal(t1["projectId"], "p1")                                        // its project
	is.Equal(l.Data[1]["projectId"], nil)                                  // t2 is about the whole account
	is.Equal(l.Data[2]["lastMessageAt"], nil)                              // t4 has no message yet
	is.Equal(len(t1), 10)                                                  // every key of the contract, no other
	is.Equal(listOf(t, api.do("GET", "/v1/threads?status=resolved", "a")).ids(), []string{"t2"})
	is.Equal(listOf(t, api.do("GET", "/v1/threads?projectId=p2", "a")).ids(), []string{"t4"}) // not the internal t3
	is.Equal(listOf(t, api.do("GET", "/v1/threads?projectId=nope", "a")).Meta.Total, 0)

	res := api.do("GET", "/v1/threads/t1", "a")
	is.Equal(res.Code, 200)
	is.Equal(item(t, res)["subject"], "Launch date")
	is.Equal(api.do("GET", "/v1/threads/t3", "a").Code, 404)                                // internal: like an unknown id
	is.Equal(api.do("GET", "/v1/threads/t3/messages", "a").Code, 404)                       // its messages too
	is.Equal(api.do("GET", "/v1/threads/nope", "a").Code, 404)                              // unknown
	is.Equal(item(t, api.do("GET", "/v1/threads/t1", "b"))["subject"], "B's secret thread") // b's own t1

	m := listOf(t, api.do("GET", "/v1/threads/t1/messages", "a"))
	is.Equal(m.ids(), []string{"msg1", "msg2"}) // createdAt ascending; the internal note is absent
	msg2 := m.Data[1]
	is.Equal(msg2["author"], map[string]any{"name": "Cleo", "side": "client"}) // a name and a side, nothing else
	is.Equal(msg2["attachments"], []any{map[string]any{"id": "att1", "fileName": attachmentName, "contentType": "text/plain", "sizeBytes": float64(len(attachmentContent))}})
	is.Equal(m.Data[0]["attachments"], []any{})                                  // always an array
	is.Equal(m.Data[0]["body"], "Can we move the launch to March? ✈️ «bientôt»") // any Unicode, intact
	is.Equal(len(msg2), 8)

	all := listOf(t, api.do("GET", "/v1/messages", "a"))
	is.Equal(all.ids(), []string{"msg4", "msg1", "msg2"}) // across threads, createdAt ascending
	is.Equal(listOf(t, api.do("GET", "/v1/messages?threadId=t2", "a")).ids(), []string{"msg4"})
	is.Equal(listOf(t, api.do("GET", "/v1/messages?projectId=p1", "a")).ids(), []string{"msg1", "msg2"})
	is.Equal(listOf(t, api.do("GET", "/v1/messages?threadId=t3", "a")).Meta.Total, 0)   // an internal thread: nothing
	is.Equal(listOf(t, api.do("GET", "/v1/messages?threadId=nope", "a")).Meta.Total, 0) // an unknown one: nothing
	edited := listOf(t, api.do("GET", "/v1/messages?threadId=t2", "a")).Data[0]
	is.Equal(edited["editedAt"], at(t0.AddDate(0, 0, -4))) // an edited message says when

	for _, tc := range []struct{ target, param string }{
		{"/v1/threads?status=closed", "status"},
		{"/v1/threads?threadId=t1", "threadId"},
		{"/v1/threads?updatedSince=yesterday", "updatedSince"},
		{"/v1/threads/t1?page=1", "page"},
		{"/v1/threads/t1/messages?projectId=p1", "projectId"},
		{"/v1/threads/t1/messages?limit=101", "limit"},
		{"/v1/messages?status=open", "status"},
		{"/v1/messages?threadId=", "threadId"},
	} {
		res := api.do("GET", tc.target, "a")
		is.Equal(res.Code, 400)
		is.Equal(errorOf(t, res).Error.Param, tc.param)
	}
}

// TestLongMessage shows that a 100 KB body is served whole.
func TestLongMessage(t *testing.T) {
	is := is.New(t)
	api := newTestAPI(t)
	body := strings.Repeat("Ünïcödé ✓ ", 100<<10/16)
	is.NoErr(api.store.PutMessage(context.Background(), store.Message{ID: "long", OrgID: "org_a", ThreadID: "t4",
		Author: store.Author{Name: "Ana", Side: store.SideAgency}, Body: body, CreatedAt: t0}))
	m := listOf(t, api.do("GET", "/v1/threads/t4/messages", "a"))
	is.Equal(m.Data[0]["body"], body)
}

func TestAttachmentFile(t *testing.T) {
	api := newTestAPI(t)
	u, expiresAt := api.attachmentLink("att1")
	t.Run("link", func(t *testing.T) {
		is := is.New(t)
		is.Equal(u.Path, "/v1/attachments/att1/file")
		is.Equal(expiresAt, now.Add(15*time.Minute).Format(time.RFC3339)) // 15 minutes, as a deliverable's
	})
	t.Run("GET", func(t *testing.T) {
		is := is.New(t)
		res := api.fetch("GET", u)
		is.Equal(res.Code, 200)
		is.Equal(res.Body.String(), attachmentContent)
		is.Equal(res.Header().Get("Content-Type"), "text/plain")
		is.Equal(res.Header().Get("Content-Disposition"), `attachment; filename*=utf-8''plan%20%22v2%22%2F%C3%BCber.txt`) // quotes, slash and ü encoded, never raw
		is.Equal(api.fetch("HEAD", u).Code, 200)
	})
	t.Run("ranges and conditions", func(t *testing.T) {
		is := is.New(t)
		is.Equal(api.fetch("GET", u, "Range", "bytes=0-3").Code, 206)
		is.Equal(api.fetch("GET", u, "Range", "bytes=999-").Code, 416)
		is.Equal(api.fetch("GET", u, "If-Match", `"x"`).Code, 412)
	})
	t.Run("not modified", func(t *testing.T) {
		is := is.New(t)
		modified := time.Date(2026, 2, 1, 12, 0, 0, 0, time.UTC)
		src := files.FromFS(fstest.MapFS{"threads/att1": {Data: []byte(attachmentContent), ModTime: modified}})
		api := newTestAPI(t, statusapi.WithFiles(src))
		u, _ := api.attachmentLink("att1")
		is.Equal(api.fetch("GET", u, "If-Modified-Since", modified.Format(http1123)).Code, 304) // unchanged since
	})
	t.Run("a deliverable's link does not open an attachment", func(t *testing.T) {
		is := is.New(t)
		d, _ := api.link("d1")
		forged := "/v1/attachments/att1/file?" + d.RawQuery
		res := api.do("GET", forged, "")
		is.Equal(res.Code, 403)
		is.Equal(errorOf(t, res).Error.Code, "INVALID_SIGNATURE")
	})
	t.Run("internal or unknown", func(t *testing.T) {
		is := is.New(t)
		is.Equal(api.do("GET", "/v1/attachments/att2/download", "a").Code, 404) // of an internal thread
		is.Equal(api.do("GET", "/v1/attachments/att3/download", "a").Code, 404) // of an internal note
		is.Equal(api.do("GET", "/v1/attachments/nope/download", "a").Code, 404)
		is.Equal(api.do("GET", "/v1/attachments/att1/download", "b").Code, 404) // of another organization
		is.Equal(api.do("GET", "/v1/attachments/att1/download?x=1", "a").Code, 400)
	})
	t.Run("made internal after the link", func(t *testing.T) {
		is := is.New(t)
		ctx := context.Background()
		m := listOf(t, api.do("GET", "/v1/threads/t1/messages", "a")).Data[1]
		is.Equal(m["id"], "msg2")
		msgs, err := api.store.ListThreadMessages(ctx, "org_a", "t1", store.MessageQuery{PageRequest: store.PageRequest{Page: 1, Limit: 10}})
		is.NoErr(err)
		msg2 := msgs.Items[1]
		msg2.Internal = true
		is.NoErr(api.store.PutMessage(ctx, msg2))
		is.Equal(api.fetch("GET", u).Code, 404) // the link answers as for a deleted item
		msg2.Internal = false
		is.NoErr(api.store.PutMessage(ctx, msg2))
		is.Equal(api.fetch("GET", u).Code, 200)
	})
	t.Run("file missing from the source", func(t *testing.T) {
		is := is.New(t)
		ctx := context.Background()
		is.NoErr(api.store.PutMessage(ctx, store.Message{ID: "m-missing", OrgID: "org_a", ThreadID: "t4", Author: store.Author{Name: "Ana", Side: store.SideAgency},
			CreatedAt: t0, Attachments: []store.Attachment{{ID: "att-missing", FileName: "gone.txt", ContentType: "text/plain", SizeBytes: 1, FileKey: "threads/gone"}}}))
		lu, _ := api.attachmentLink("att-missing")
		res := api.fetch("GET", lu)
		is.Equal(res.Code, 409) // FILE_NOT_AVAILABLE, as a deliverable's
		is.True(api.logs.String() != "")
	})
}

// http1123 is the format of HTTP dates.
const http1123 = "Mon, 02 Jan 2006 15:04:05 GMT"

// TestInternalActivityIsInvisible makes an organization's internal activity
// heavy (internal messages, edits of them, internal attachments, an
// internal thread with messages) on one API, and shows that every answer a
// client gets, body and ETag, is byte for byte the one of the same data
// without it.
//
// It runs in a synctest bubble and lets a second of the bubble's time pass
// between the two handlers' answers, as a loaded machine may: nothing a
// handler answers may depend on the wall clock (the harness's request log
// is written only when a test flushes it).
func TestInternalActivityIsInvisible(t *testing.T) {
	synctest.Test(t, testInternalActivityIsInvisible)
}

func testInternalActivityIsInvisible(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	quiet := newTestAPIWith(t, unlimited)
	busy := newTestAPIWith(t, unlimited)
	agency := store.Author{Name: "Ana", Side: store.SideAgency}
	for i := range 40 {
		id := "internal" + strings.Repeat("x", i%3) + string(rune('a'+i%26)) + string(rune('a'+i/26))
		thread := []string{"t1", "t2", "t3", "t4"}[i%4]
		m := store.Message{ID: id, OrgID: "org_a", ThreadID: thread, Author: agency, Body: "note " + id, Internal: true, CreatedAt: t0.Add(-time.Duration(i) * time.Hour),
			Attachments: []store.Attachment{{ID: "att-" + id, FileName: id + ".txt", ContentType: "text/plain", SizeBytes: 1, FileKey: "threads/" + id}}}
		is.NoErr(busy.store.PutMessage(ctx, m))
		m.Body = "edited " + id // an edit of an internal note
		m.EditedAt = ptr(t0)
		is.NoErr(busy.store.PutMessage(ctx, m))
	}
	is.NoErr(busy.store.PutThread(ctx, store.Thread{ID: "t-secret", OrgID: "org_a", ProjectID: ptr("p1"), Subject: "secret", Status: store.ThreadOpen, Internal: true, CreatedAt: t0}))
	is.NoErr(busy.store.PutMessage(ctx, store.Message{ID: "m-secret", OrgID: "org_a", ThreadID: "t-secret", Author: agency, Body: "secret", CreatedAt: t0}))
	msg3 := store.Message{ID: "msg3", OrgID: "org_a", ThreadID: "t1", Author: agency, Body: "Internal, edited", Internal: true, CreatedAt: t0.AddDate(0, 0, -1), EditedAt: ptr(t0)}
	is.NoErr(busy.store.PutMessage(ctx, msg3))
	is.NoErr(busy.store.DeleteMessage(ctx, "org_a", "msg3")) // an internal note deleted: nothing to see either

	targets := append([]string{}, routes...)
	targets = append(targets,
		"/v1/threads?updatedSince="+at(t0), "/v1/messages?updatedSince="+at(t0), "/v1/threads/t2/messages",
		"/v1/threads?projectId=p1", "/v1/messages?threadId=t1", "/v1/deletions?since="+at(t0), "/v1/threads/t4",
		"/v1/threads/t-secret", "/v1/attachments/att-internalaa/download")
	for _, target := range targets {
		if strings.HasSuffix(target, "/download") && !strings.Contains(target, "internal") {
			continue // a link changes with each request: compared by status below
		}
		q := quiet.do("GET", target, "a", "X-Request-Id", "same")
		time.Sleep(time.Second) // fake time (synctest): the handlers' timers and tickers fire
		b := busy.do("GET", target, "a", "X-Request-Id", "same")
		if b.Code != q.Code || b.Header().Get("ETag") != q.Header().Get("ETag") || b.Body.String() != q.Body.String() {
			t.Errorf("GET %s: with internal activity %d %s %s, without %d %s %s", target,
				b.Code, b.Header().Get("ETag"), b.Body, q.Code, q.Header().Get("ETag"), q.Body) // status, ETag and body
		}
	}
}
