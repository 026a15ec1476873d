package main

import (
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/internal/test/testenv"
)

func TestReloadCascadeEventsMemory(t *testing.T) {
	testReloadCascadeEvents(t)
}

func TestReloadCascadeEventsPostgres(t *testing.T) {
	testReloadCascadeEvents(t, "-database-url", testSchema(t, testenv.PostgresURL(t)))
}

// testReloadCascadeEvents reloads a file that removes a project with its
// milestone, threads and messages, and an organization-wide thread with
// its message: the events of the reload are the deletions only, never an
// update of an item the same reload deletes.
func testReloadCascadeEvents(t *testing.T, args ...string) {
	is := is.New(t)
	name := filepath.Join(t.TempDir(), "data.json")
	f := threadsFile()
	f["messages"] = append(f["messages"], map[string]any{"id": "msg5", "threadId": "t2",
		"author": map[string]any{"name": "Sam", "side": "client"}, "body": "Paid.", "internal": false,
		"createdAt": "2026-01-08T08:00:00Z", "editedAt": nil, "attachments": []any{}})
	f.write(t, name)
	s := startServer(t, nil, append([]string{"-data", name}, args...)...)
	f["projects"], f["milestones"], f["threads"], f["messages"] = nil, nil, nil, nil
	f.write(t, name)
	is.NoErr(s.reload(t))

	want := []string{"message.deleted msg1", "message.deleted msg3", "message.deleted msg5",
		"milestone.deleted m1", "project.deleted p1", "thread.deleted t1", "thread.deleted t2"}
	var got []string
	testenv.Until(30*time.Second, func() bool { // the events of a reload that another process applies
		got = got[:0]
		all := events(t, s, "")
		// The reload's events: from its first deletion on (the file
		// loaded at start deleted nothing).
		first := slices.IndexFunc(all, func(e [3]string) bool { return strings.HasSuffix(e[1], ".deleted") })
		if first < 0 {
			first = len(all)
		}
		for _, e := range all[first:] {
			got = append(got, e[1]+" "+e[2])
		}
		slices.Sort(got)
		return len(got) >= len(want)
	})
	is.Equal(got, want) // a reload that deletes an item makes no other event for it
	is.Equal(read(t, s, "/v1/threads/t1", keyT).status, 404)
}

// events returns every event after after, as [id, type, item id].
func events(t *testing.T, s *testServer, after string) [][3]string {
	t.Helper()
	var out [][3]string
	for range 100 {
		q := url.Values{"limit": {"100"}}
		if after != "" {
			q.Set("after", after)
		}
		res := read(t, s, "/v1/events?"+q.Encode(), keyT)
		if res.status != 200 {
			t.Fatalf("events: %d %s", res.status, res.body)
		}
		page := res.json(t)["data"].([]any)
		if len(page) == 0 {
			return out
		}
		for _, e := range page {
			m := e.(map[string]any)
			data := m["data"].(map[string]any)
			out = append(out, [3]string{m["id"].(string), m["type"].(string), fmt.Sprint(data["id"])})
		}
		after = out[len(out)-1][0]
	}
	t.Fatal("more than 100 pages of events")
	return nil
}
