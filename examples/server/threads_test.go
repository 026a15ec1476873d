package main

import (
	"mime"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"
)

// keyT is the key of the threads tests' files.
const keyT = "key-threads-a"

// tricky is an attachment's file name with quotes, a slash and non-ASCII:
// its Content-Disposition must still be one safe header.
const tricky = `say "hi"/naïve résumé.txt`

// threadsFile is a data file with threads and messages as the contract
// has them: on a project and about the whole account, an internal thread
// and an internal message, attachments, an edited message and a resolved
// thread.
func threadsFile() dataFile {
	return dataFile{
		"organizations": {org("org_a")},
		"apiKeys":       {apiKeyItem("org_a", keyT)},
		"projects":      {project("org_a", "p1", "Site")},
		"milestones":    {milestone("m1", "p1")},
		"invoices":      {invoice("org_a", "i1", nil)},
		"threads": {
			{"id": "t1", "orgId": "org_a", "projectId": "p1", "subject": "Launch date", "status": "open",
				"about": map[string]any{"type": "milestone", "id": "m1"}, "internal": false,
				"createdAt": "2026-01-06T09:00:00Z", "resolvedAt": nil},
			{"id": "t2", "orgId": "org_a", "projectId": nil, "subject": "Billing", "status": "resolved",
				"about": map[string]any{"type": "invoice", "id": "i1"}, "internal": false,
				"createdAt": "2026-01-07T09:00:00Z", "resolvedAt": "2026-01-08T09:00:00Z",
				"updatedAt": "2020-01-01T00:00:00Z"}, // ignored
			{"id": "t3", "orgId": "org_a", "projectId": "p1", "subject": "Agency only", "status": "open",
				"about": nil, "internal": true, "createdAt": "2026-01-06T10:00:00Z", "resolvedAt": nil},
		},
		"messages": {
			{"id": "msg1", "threadId": "t1", "author": map[string]any{"name": "Ana", "side": "agency"},
				"body": "Can we move it to March?", "internal": false,
				"createdAt": "2026-01-06T09:00:00Z", "editedAt": nil,
				"attachments": []map[string]any{{"id": "att1", "fileName": tricky,
					"contentType": "text/plain; charset=utf-8", "content": "plan: ünïcode\nline 2\n"}}},
			{"id": "msg2", "threadId": "t1", "author": map[string]any{"name": "Ana", "side": "agency"},
				"body": "Note: they will say yes.", "internal": true,
				"createdAt": "2026-01-06T09:30:00Z", "editedAt": nil,
				"attachments": []map[string]any{{"id": "att2", "fileName": "secret.txt", "content": "internal"}}},
			{"id": "msg3", "orgId": "org_a", "threadId": "t1", "author": map[string]any{"name": "Sam", "side": "client"},
				"body": "Yes, March works.", "internal": false,
				"createdAt": "2026-01-06T11:00:00Z", "editedAt": "2026-01-06T11:05:00Z", "attachments": []any{}},
			{"id": "msg4", "threadId": "t3", "author": map[string]any{"name": "Ana", "side": "agency"},
				"body": "Staffing.", "internal": false, "createdAt": "2026-01-06T10:00:00Z", "editedAt": nil,
				"attachments": []map[string]any{{"id": "att4", "fileName": "plan.txt", "content": "hidden"}}},
		},
	}
}

// keysOf returns the sorted names of an object's fields.
func keysOf(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestThreadsFromDataFile serves a data file with threads and messages
// and reads them as a client does.
func TestThreadsFromDataFile(t *testing.T) {
	is := is.New(t)
	name := filepath.Join(t.TempDir(), "data.json")
	threadsFile().write(t, name)
	s := startServer(t, nil, "-data", name)

	// Threads: the internal one is absent, ordered by lastMessageAt with
	// the one without messages last.
	list := read(t, s, "/v1/threads", keyT)
	is.Equal(list.status, 200)
	is.Equal(list.ids(t), []string{"t1", "t2"})
	_, _, total := list.meta(t)
	is.Equal(total, 2)
	t1 := read(t, s, "/v1/threads/t1", keyT).json(t)["data"].(map[string]any)
	is.Equal(keysOf(t1), []string{"about", "createdAt", "id", "lastMessageAt", "messageCount", "projectId", "resolvedAt", "status", "subject", "updatedAt"})
	is.Equal(t1["about"], map[string]any{"type": "milestone", "id": "m1"})
	is.Equal(t1["messageCount"], 2.0)                     // msg2 is internal
	is.Equal(t1["lastMessageAt"], "2026-01-06T11:00:00Z") // msg3's
	t2 := read(t, s, "/v1/threads/t2", keyT).json(t)["data"].(map[string]any)
	is.Equal(t2["projectId"], nil)
	is.Equal(t2["status"], "resolved")
	is.Equal(t2["resolvedAt"], "2026-01-08T09:00:00Z")
	is.True(t2["updatedAt"] != "2020-01-01T00:00:00Z") // the file's is ignored
	is.Equal(read(t, s, "/v1/threads/t3", keyT).status, 404)
	is.Equal(read(t, s, "/v1/threads/t3/messages", keyT).status, 404)

	// Messages: the internal ones are absent, everywhere.
	msgs := read(t, s, "/v1/threads/t1/messages", keyT)
	is.Equal(msgs.ids(t), []string{"msg1", "msg3"})
	is.Equal(read(t, s, "/v1/messages", keyT).ids(t), []string{"msg1", "msg3"})
	m1 := msgs.json(t)["data"].([]any)[0].(map[string]any)
	is.Equal(keysOf(m1), []string{"attachments", "author", "body", "createdAt", "editedAt", "id", "threadId", "updatedAt"})
	is.Equal(m1["author"], map[string]any{"name": "Ana", "side": "agency"})
	is.Equal(m1["attachments"], []any{map[string]any{"id": "att1", "fileName": tricky,
		"contentType": "text/plain; charset=utf-8", "sizeBytes": float64(len("plan: ünïcode\nline 2\n"))}})
	m3 := msgs.json(t)["data"].([]any)[1].(map[string]any)
	is.Equal(m3["editedAt"], "2026-01-06T11:05:00Z")
	is.Equal(m3["attachments"], []any{})

	// An attachment downloads intact, under a safe name.
	link := read(t, s, "/v1/attachments/att1/download", keyT)
	is.Equal(link.status, 200)
	file := call(t, "GET", link.field(t, "url").(string), "")
	is.Equal(file.status, 200)
	is.Equal(string(file.body), "plan: ünïcode\nline 2\n")
	cd := file.header.Get("Content-Disposition")
	for _, r := range cd {
		is.True(r >= 0x20 && r < 0x7f) // one ASCII header, whatever the name
	}
	kind, params, err := mime.ParseMediaType(cd)
	is.NoErr(err)
	is.Equal(kind, "attachment")
	is.Equal(params["filename"], tricky)          // the name comes through whole
	for _, id := range []string{"att2", "att4"} { // an internal message's, an internal thread's
		is.Equal(read(t, s, "/v1/attachments/"+id+"/download", keyT).status, 404)
	}

	t.Run("reload", func(t *testing.T) {
		is := is.New(t)
		since := s.nextSecond()
		f := threadsFile()
		f["messages"] = slices.Delete(f["messages"], 2, 3) // msg3 goes
		f.write(t, name)
		is.NoErr(s.reload(t))
		is.Equal(read(t, s, "/v1/threads/t1/messages", keyT).ids(t), []string{"msg1"})
		is.Equal(read(t, s, "/v1/deletions?since="+since.UTC().Format(time.RFC3339), keyT).deletions(t), []string{"message msg3"})
		is.Equal(read(t, s, "/v1/threads?updatedSince="+since.UTC().Format(time.RFC3339), keyT).ids(t), []string{"t1"}) // its thread changed

		// An attachment moving to another message is refused, changing
		// nothing, rather than failing halfway through the write.
		f["messages"][0]["attachments"] = []any{}
		f["messages"][2]["attachments"] = []map[string]any{{"id": "att1", "fileName": "moved.txt", "content": "x"}}
		f.write(t, name)
		err := s.reload(t)
		is.True(err != nil && strings.Contains(err.Error(), `messages[2] (id "msg4"): attachments[0]: id "att1" was message "msg1"'s`))
		is.Equal(read(t, s, "/v1/attachments/att1/download", keyT).status, 200) // unchanged
	})
}

// TestBadThreadsItem checks that a bad thread or message stops the
// server with a message naming it.
func TestBadThreadsItem(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(dataFile)
		want   string
	}{
		{"about an unknown item", func(f dataFile) { f["threads"][1]["about"] = map[string]any{"type": "invoice", "id": "i9"} },
			`threads[1] (id "t2"): about: unknown invoice "i9" in organization "org_a"`},
		{"unknown project", func(f dataFile) { f["threads"][0]["projectId"] = "p9" }, `threads[0] (id "t1"): unknown project "p9"`},
		{"internal left out", func(f dataFile) { delete(f["threads"][2], "internal") }, `threads[2] (id "t3"): internal is required`},
		{"bad status", func(f dataFile) { f["threads"][0]["status"] = "closed" }, `threads[0] (id "t1"): `},
		{"unknown thread", func(f dataFile) { f["messages"][1]["threadId"] = "t9" }, `messages[1] (id "msg2"): unknown thread "t9"`},
		{"bad side", func(f dataFile) { f["messages"][0]["author"] = map[string]any{"name": "Ana", "side": "vendor"} }, `messages[0] (id "msg1"): `},
		{"duplicate attachment", func(f dataFile) {
			f["messages"][3]["attachments"] = []map[string]any{{"id": "att1", "fileName": "x", "content": "x"}}
		}, `messages[3] (id "msg4"): attachments[0]: id "att1" is message "msg1"'s already`},
		{"duplicate message", func(f dataFile) { f["messages"][2]["id"] = "msg1" }, `messages[2] (id "msg1"): duplicate id in organization "org_a"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := filepath.Join(t.TempDir(), "data.json")
			f := threadsFile()
			tc.change(f)
			f.write(t, name)
			err := startErr(t, "-data", name)
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not hold %q", err, tc.want)
			}
		})
	}
}
