package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// owner is an organization and one of its deliverables, by id.
type owner struct{ org, deliverable string }

// collidingOwners are pairs of (organization, deliverable) ids that share
// a file key under a naive encoding: plain joining with "/" (the first
// two), escaping only "/" (the third) or escaping non-ASCII but not "%"
// (the fourth).
var collidingOwners = [][2]owner{
	{{"org_a", "s/t"}, {"org_a/s", "t"}},
	{{"x/..", "y/z"}, {"x/../y", "z"}},
	{{"a%2Fb", "c"}, {"a/b", "c"}},
	{{"caf%C3%A9", "d"}, {"café", "d"}},
}

// TestFileKeysDoNotCollide loads a data file whose organizations and
// deliverables have ids that a naive file key would confuse, and checks,
// as a client would, that each organization downloads its own bytes.
func TestFileKeysDoNotCollide(t *testing.T) {
	is := is.New(t)
	data := map[string][]any{}
	for i, pair := range collidingOwners {
		for j, o := range pair {
			data["organizations"] = append(data["organizations"], map[string]any{
				"id": o.org, "name": o.org, "plan": "enterprise", "retainerActive": true, "apiEnabled": true})
			data["apiKeys"] = append(data["apiKeys"], map[string]any{"orgId": o.org, "key": fmt.Sprintf("key-%d-%d", i, j)})
			data["projects"] = append(data["projects"], map[string]any{
				"id": "p", "orgId": o.org, "name": "P", "status": "in_progress", "updatedAt": "2026-01-05T09:00:00Z"})
			data["deliverables"] = append(data["deliverables"], map[string]any{
				"id": o.deliverable, "orgId": o.org, "projectId": "p", "name": "D", "status": "approved",
				"createdAt": "2026-01-05T09:00:00Z", "updatedAt": "2026-01-05T09:00:00Z",
				"content": "bytes of " + o.org + " " + o.deliverable})
		}
	}
	b, err := json.Marshal(data)
	is.NoErr(err)
	name := filepath.Join(t.TempDir(), "colliding.json")
	is.NoErr(os.WriteFile(name, b, 0o600))
	s := startServer(t, nil, "-data", name)

	for i, pair := range collidingOwners {
		for j, o := range pair {
			t.Run(fmt.Sprintf("%q %q", o.org, o.deliverable), func(t *testing.T) {
				is := is.New(t)
				res := call(t, "GET", s.url+"/v1/deliverables/"+url.PathEscape(o.deliverable)+"/download", fmt.Sprintf("key-%d-%d", i, j))
				is.Equal(res.status, 200) // the organization's own deliverable has a link
				link := res.json(t)["data"].(map[string]any)["url"].(string)
				file := call(t, "GET", link, "")
				is.Equal(file.status, 200)
				is.Equal(string(file.body), "bytes of "+o.org+" "+o.deliverable) // each organization downloads its own file
			})
		}
	}
}

// TestFileKey checks that fileKey gives different keys to different
// (organization, deliverable) pairs, however their ids are spelt, and
// that every key is a valid fs path, so a files.FromFS source could serve it.
func TestFileKey(t *testing.T) {
	is := is.New(t)
	parts := []string{"a", "b", "a/b", "b/a", "/", "//", ".", "..", "../a", "a/..", "%", "%2F", "%2f", "a%2Fb",
		"\x00", "a\x00", "\x00a", "é", "%C3%A9", "e\u0301", "\xff", "\xc3", "\ufffd", " ", "+", "~", "-", "_", "a-b", "a_b"}
	owners := map[string]owner{}
	for _, org := range parts {
		for _, d := range parts {
			key := fileKey("deliverables", org, d)
			is.True(fs.ValidPath(key)) // a file key is a valid fs path
			if prev, ok := owners[key]; ok {
				t.Fatalf("fileKey(%q, %q) = fileKey(%q, %q) = %q", org, d, prev.org, prev.deliverable, key)
			}
			owners[key] = owner{org, d}
		}
	}
}

// TestContentKey checks that new bytes get a new file key (so that the
// store sees the deliverable change), the same bytes the same one, and
// that every key is a valid fs path under the deliverable's fileKey.
func TestContentKey(t *testing.T) {
	is := is.New(t)
	a := contentKey("deliverables", "org_a", "d1", []byte("first"))
	is.Equal(a, contentKey("deliverables", "org_a", "d1", []byte("first")))   // the same bytes, the same key
	is.True(a != contentKey("deliverables", "org_a", "d1", []byte("second"))) // new bytes, a new key
	is.True(fs.ValidPath(a))
	is.True(strings.HasPrefix(a, fileKey("deliverables", "org_a", "d1")+"/"))
}
