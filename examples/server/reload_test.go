package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/matryer/is"
)

// dataFile is a data file being written by a test: sections of items.
type dataFile map[string][]map[string]any

func org(id string) map[string]any {
	return map[string]any{"id": id, "name": "Org " + id, "plan": "enterprise", "retainerActive": true, "apiEnabled": true}
}

func apiKeyItem(orgID, key string) map[string]any {
	return map[string]any{"orgId": orgID, "key": key}
}

func project(orgID, id, name string) map[string]any {
	return map[string]any{"id": id, "orgId": orgID, "name": name, "status": "in_progress",
		"startedAt": "2026-01-05T09:00:00Z", "dueAt": nil, "updatedAt": "2026-01-05T09:00:00Z"}
}

func milestone(id, projectID string) map[string]any {
	return map[string]any{"id": id, "projectId": projectID, "name": "Milestone " + id, "status": "pending",
		"dueAt": "2026-02-01T17:00:00Z", "completedAt": nil}
}

func deliverable(id, projectID, content string) map[string]any {
	return map[string]any{"id": id, "projectId": projectID, "name": "Deliverable " + id, "status": "approved",
		"fileName": id + ".txt", "contentType": "text/plain; charset=utf-8",
		"createdAt": "2026-01-15T10:00:00Z", "content": content}
}

func invoice(orgID, id string, projectID any) map[string]any {
	return map[string]any{"id": id, "orgId": orgID, "number": "N-" + id, "projectId": projectID,
		"status": "open", "currency": "EUR", "total": 1000, "amountDue": 1000,
		"issuedAt": "2026-02-01T09:00:00Z", "dueAt": "2026-03-03T09:00:00Z", "paidAt": nil}
}

// write writes the file atomically, as README.md advises an exporter to:
// to a temporary file, then renamed over the one the server reads.
func (f dataFile) write(t *testing.T, name string) {
	t.Helper()
	b, err := json.MarshalIndent(f, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, name, b)
}

func writeFile(t *testing.T, name string, b []byte) {
	t.Helper()
	tmp := name + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, name); err != nil {
		t.Fatal(err)
	}
}

// The keys of the reload tests' files.
const (
	keyA    = "key-reload-a"     // org_a's, kept
	keyAOld = "key-reload-a-old" // org_a's, removed by the second file
	keyANew = "key-reload-a-new" // org_a's, added by the second file
	keyB    = "key-reload-b"     // org_b's, which the second file removes
)

// beforeReload is the file a server starts on.
func beforeReload() dataFile {
	return dataFile{
		"organizations": {org("org_a"), org("org_b")},
		"apiKeys":       {apiKeyItem("org_a", keyA), apiKeyItem("org_a", keyAOld), apiKeyItem("org_b", keyB)},
		"projects": {
			project("org_a", "p1", "Unchanged"),
			project("org_a", "p2", "To be renamed"),
			project("org_a", "p3", "To be removed"),
			project("org_b", "pb1", "Of an organization to be removed"),
		},
		"milestones":   {milestone("m1", "p1"), milestone("m2", "p1"), milestone("m3", "p3")},
		"deliverables": {deliverable("d1", "p1", "first bytes"), deliverable("d2", "p1", "same bytes"), deliverable("d3", "p3", "gone")},
		"invoices":     {invoice("org_a", "i1", nil), invoice("org_a", "i2", nil), invoice("org_a", "i3", "p3")},
	}
}

// afterReload is beforeReload changed as an agency's export would change
// it: an item of each kind new, changed, unchanged and removed.
func afterReload() dataFile {
	f := beforeReload()
	f["organizations"] = f["organizations"][:1] // org_b goes, with its project and key
	f["apiKeys"] = []map[string]any{apiKeyItem("org_a", keyA), apiKeyItem("org_a", keyANew)}
	f["projects"] = []map[string]any{project("org_a", "p1", "Unchanged"), project("org_a", "p2", "Renamed"), project("org_a", "p4", "New")}
	f["projects"][0]["updatedAt"] = "2026-03-01T09:00:00Z" // the file's updatedAt is not a change
	f["milestones"] = []map[string]any{milestone("m1", "p1")}
	f["deliverables"] = []map[string]any{deliverable("d1", "p1", "second bytes"), deliverable("d2", "p1", "same bytes")}
	f["invoices"] = []map[string]any{invoice("org_a", "i1", nil), invoice("org_a", "i3", nil), invoice("org_a", "i4", "p4")}
	return f
}

// syncedThrough matches the meta.syncedThrough of a page of changes, as
// the handler writes it, and timestampFormat the contract's timestamps.
var (
	syncedThrough   = regexp.MustCompile(`,"syncedThrough":"[^"]*"`)
	timestampFormat = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$`)
)

// read sends a GET with the key and a fixed request id, so that two
// answers of the same data are the same bytes, errors included.
func read(t *testing.T, s *testServer, path, key string) response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("X-Request-Id", "reload-test")
	return do(t, req)
}

// field returns a field of a single item's answer.
func (r response) field(t *testing.T, name string) any {
	t.Helper()
	data, ok := r.json(t)["data"].(map[string]any)
	if !ok {
		t.Fatalf("not an item: %s", r.body)
	}
	return data[name]
}

// deletions returns the "type id" of each record of a /v1/deletions answer.
func (r response) deletions(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, d := range r.json(t)["data"].([]any) {
		m := d.(map[string]any)
		out = append(out, fmt.Sprint(m["type"], " ", m["id"]))
	}
	slices.Sort(out)
	return out
}

// download fetches a deliverable's file through its link.
func download(t *testing.T, s *testServer, id, key string) string {
	t.Helper()
	res := read(t, s, "/v1/deliverables/"+id+"/download", key)
	if res.status != http.StatusOK {
		t.Fatalf("download %s: %d %s", id, res.status, res.body)
	}
	return string(call(t, "GET", res.field(t, "url").(string), "").body)
}

func TestReloadMemory(t *testing.T) {
	testReload(t)
}

// testReload starts a server on a file, changes the file, reloads, and
// checks what a client sees: new and changed items with a new updatedAt,
// unchanged ones with their own, removed ones 404 and in /v1/deletions, a
// removed key 401; then that files that do not load change nothing.
func testReload(t *testing.T, args ...string) {
	is := is.New(t)
	name := filepath.Join(t.TempDir(), "data.json")
	beforeReload().write(t, name)
	s := startServer(t, nil, append([]string{"-data", name}, args...)...)

	p1 := read(t, s, "/v1/projects/p1", keyA)
	p2 := read(t, s, "/v1/projects/p2", keyA)
	is.Equal(p2.status, 200)
	is.Equal(download(t, s, "d1", keyA), "first bytes")
	is.Equal(read(t, s, "/v1/projects", keyB).status, 200)
	is.Equal(read(t, s, "/v1/projects", keyAOld).status, 200)

	since := s.nextSecond()
	afterReload().write(t, name)
	is.NoErr(s.reload(t))
	is.True(strings.Contains(s.stderr.String(), "reloaded the data file"))
	at := "updatedSince=" + since.UTC().Format(time.RFC3339)

	// New and changed items, and only they, are newer than the reload.
	is.Equal(read(t, s, "/v1/projects?"+at, keyA).ids(t), []string{"p2", "p4"})
	is.Equal(read(t, s, "/v1/projects/p1/milestones?"+at, keyA).ids(t), []string{})
	is.Equal(read(t, s, "/v1/deliverables?"+at, keyA).ids(t), []string{"d1"}) // new content
	is.Equal(read(t, s, "/v1/invoices?"+at, keyA).ids(t), []string{"i3", "i4"})
	is.Equal(read(t, s, "/v1/projects/p1", keyA).body, p1.body) // unchanged, though the file's updatedAt changed
	renamed := read(t, s, "/v1/projects/p2", keyA)
	is.Equal(renamed.field(t, "name"), "Renamed")
	is.True(renamed.field(t, "updatedAt") != p2.field(t, "updatedAt")) // a change has a new updatedAt
	is.Equal(download(t, s, "d1", keyA), "second bytes")
	is.Equal(download(t, s, "d2", keyA), "same bytes")
	is.Equal(read(t, s, "/v1/invoices?projectId=p4", keyA).ids(t), []string{"i4"})

	// Pages of changes say from when to ask next; other lists do not.
	// (Checked on the memory store; bunstore's are checked in its tests.)
	for _, path := range []string{"/v1/projects?" + at, "/v1/invoices?" + at, "/v1/deletions?since=" + since.UTC().Format(time.RFC3339)} {
		meta := read(t, s, path, keyA).json(t)["meta"].(map[string]any)
		through, _ := meta["syncedThrough"].(string)
		if len(args) == 0 { // the memory store
			is.True(timestampFormat.MatchString(through)) // meta.syncedThrough, in the contract's format: path
		}
	}
	_, there := read(t, s, "/v1/projects", keyA).json(t)["meta"].(map[string]any)["syncedThrough"]
	is.True(!there) // not on a list without updatedSince

	// Removed items answer 404 and are in the deletions feed.
	for _, path := range []string{"/v1/projects/p3", "/v1/projects/p3/milestones", "/v1/deliverables/d3/download"} {
		res := read(t, s, path, keyA)
		is.Equal(res.status, 404) // removed
		is.Equal(res.errorCode(t), "NOT_FOUND")
	}
	is.Equal(read(t, s, "/v1/projects/p1/milestones", keyA).ids(t), []string{"m1"})
	is.Equal(read(t, s, "/v1/deletions?since="+since.UTC().Format(time.RFC3339), keyA).deletions(t),
		[]string{"deliverable d3", "invoice i2", "milestone m2", "milestone m3", "project p3"})

	// Removed keys, and the removed organization's, answer 401.
	is.Equal(read(t, s, "/v1/projects", keyAOld).status, 401) // removed key
	is.Equal(read(t, s, "/v1/projects", keyB).status, 401)    // removed organization
	is.Equal(read(t, s, "/v1/projects", keyANew).status, 200) // new key
	is.Equal(read(t, s, "/v1/projects", keyA).status, 200)    // kept key

	t.Run("a file that does not load changes nothing", func(t *testing.T) {
		testBrokenReload(t, s, name, since)
	})
}

// testBrokenReload writes files that do not load, one at a time, and
// checks that each reload fails, logs why naming the item, and leaves
// every answer byte for byte as it was.
func testBrokenReload(t *testing.T, s *testServer, name string, since time.Time) {
	at := since.UTC().Format(time.RFC3339)
	paths := []struct{ path, key string }{
		{"/v1/projects", keyA},
		{"/v1/projects/p2", keyA},
		{"/v1/projects/p3", keyA},
		{"/v1/projects/p1/milestones", keyA},
		{"/v1/deliverables", keyA},
		{"/v1/invoices", keyA},
		{"/v1/projects?updatedSince=" + at, keyA},
		{"/v1/deletions?since=" + at, keyA},
		{"/v1/projects", keyAOld},
		{"/v1/projects", keyB},
	}
	answers := func() []string {
		var out []string
		for _, p := range paths {
			res := read(t, s, p.path, p.key)
			// meta.syncedThrough of a page of changes follows the clock
			// (the store's current second); the ETag leaves it out too.
			body := syncedThrough.ReplaceAllString(string(res.body), "")
			out = append(out, fmt.Sprintf("%s %s -> %d %s %s", p.key, p.path, res.status, res.header.Get("ETag"), body))
		}
		return append(out, "d1: "+download(t, s, "d1", keyA))
	}
	want := answers()

	edit := func(f func(d dataFile)) []byte {
		d := afterReload()
		f(d)
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tests := []struct {
		name string
		file []byte // nil: no file at all
		want string // in the error and the log
	}{
		{"not JSON", []byte(`{"organizations": [`), "not valid JSON"},
		{"unknown id", edit(func(d dataFile) { d["milestones"][0]["projectId"] = "p9" }), `milestones[0] (id \"m1\"): unknown project \"p9\"`},
		{"invalid item", edit(func(d dataFile) { d["invoices"][1]["total"] = -1 }), `invoices[1] (id \"i3\"): store: invoice \"i3\": negative total -1`},
		{"a key the key store refuses", edit(func(d dataFile) { d["apiKeys"][1]["name"] = strings.Repeat("n", 201) }), "apiKeys[1]: auth:"},
		{"a key moved to another organization", edit(func(d dataFile) {
			d["organizations"] = append(d["organizations"], org("org_c"))
			d["apiKeys"][0]["orgId"] = "org_c"
		}), `apiKeys[0]: organization \"org_a\" holds this key`},
		{"no file", nil, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			if tt.file == nil {
				is.NoErr(os.Remove(name))
			} else {
				writeFile(t, name, tt.file)
			}
			logged := len(s.stderr.String())
			err := s.reload(t)
			is.True(err != nil) // the reload fails
			t.Log(err)
			log := s.stderr.String()[logged:]
			is.True(strings.Contains(log, "the data file does not load")) // the log says so
			is.True(strings.Contains(log, tt.want))                       // and why, naming the item
			is.True(strings.Contains(log, name))                          // and the file
			is.True(!strings.Contains(log, "key-reload"))                 // never a key
			is.Equal(answers(), want)                                     // nothing changed
		})
	}

	t.Run("the good file again", func(t *testing.T) {
		is := is.New(t)
		afterReload().write(t, name)
		is.NoErr(s.reload(t))
		is.Equal(answers(), want) // reloading the same file changes nothing
	})
}

// TestReloadWithoutDataFile checks that SIGHUP on the built-in demo data
// is logged and changes nothing.
func TestReloadWithoutDataFile(t *testing.T) {
	is := is.New(t)
	s := startServer(t, nil)
	key := demoOrgs[0].key
	before := read(t, s, "/v1/projects", key)
	is.NoErr(s.reload(t))
	is.True(strings.Contains(s.stderr.String(), "nothing to reload"))
	is.Equal(read(t, s, "/v1/projects", key).body, before.body)
}

// versioned is a file whose every project name ends in its version; odd
// versions have 100 projects, even ones 80, so that a list that mixed two
// versions would show in its names or its total.
func versioned(v int) dataFile {
	f := dataFile{"organizations": {org("org_a")}, "apiKeys": {apiKeyItem("org_a", keyA)}}
	n := 80
	if v%2 == 1 {
		n = 100
	}
	for i := range n {
		f["projects"] = append(f["projects"], project("org_a", fmt.Sprintf("p%02d", i), fmt.Sprintf("Project %d v%d", i, v)))
	}
	return f
}

func TestReloadIsAtomicMemory(t *testing.T) {
	testReloadIsAtomic(t, 10)
}

// testReloadIsAtomic reloads again and again, two signals at a time
// (rounds times), while clients read, and checks that every answer is
// wholly one version of the file, and that the last reload read the last
// file.
func testReloadIsAtomic(t *testing.T, rounds int, args ...string) {
	is := is.New(t)
	name := filepath.Join(t.TempDir(), "data.json")
	versioned(1).write(t, name)
	s := startServer(t, nil, append([]string{"-data", name}, args...)...)

	var stop atomic.Bool
	var reads atomic.Int64
	var wg sync.WaitGroup
	defer func() {
		stop.Store(true)
		wg.Wait()
	}()
	for range 4 {
		wg.Go(func() {
			for !stop.Load() {
				if err := readVersion(s); err != nil {
					t.Error(err)
					return
				}
				reads.Add(1)
			}
		})
	}
	last := 2*rounds + 1
	for v := 2; v <= last; v += 2 {
		// Two signals in quick succession: the second waits for the
		// first reload, and the last reload reads the last file.
		versioned(v).write(t, name)
		s.hup <- syscall.SIGHUP
		versioned(v+1).write(t, name)
		s.hup <- syscall.SIGHUP
		for range 2 {
			select {
			case err := <-s.reloaded:
				is.NoErr(err)
			case <-time.After(time.Minute):
				t.Fatal("no reload within a minute")
			}
		}
		res := read(t, s, "/v1/projects?limit=1", keyA)
		_, _, total := res.meta(t)
		is.Equal(total, 100) // the last file, v+1, odd
		is.True(strings.HasSuffix(res.json(t)["data"].([]any)[0].(map[string]any)["name"].(string), fmt.Sprintf(" v%d", v+1)))
	}
	stop.Store(true)
	wg.Wait()
	t.Logf("%d reads during the reloads", reads.Load())
	is.True(reads.Load() > 0)
	is.Equal(strings.Count(s.stderr.String(), "reloaded the data file"), last-1) // one reload after the other
}

// readVersion reads the projects of a versioned file, and returns an
// error when they are not wholly one version.
func readVersion(s *testServer) error {
	req, err := http.NewRequest(http.MethodGet, s.url+"/v1/projects?limit=100", nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+keyA)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	var body struct {
		Data []struct{ Name string }
		Meta struct{ Total int }
	}
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil || res.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d, %v", res.StatusCode, err)
	}
	versions := map[int]bool{}
	for _, p := range body.Data {
		var n, v int
		if _, err := fmt.Sscanf(p.Name, "Project %d v%d", &n, &v); err != nil {
			return err
		}
		versions[v] = true
	}
	for v := range versions {
		if len(versions) > 1 || (body.Meta.Total == 100) != (v%2 == 1) || len(body.Data) != body.Meta.Total {
			return fmt.Errorf("an answer mixes versions: total %d, %d items, versions %v", body.Meta.Total, len(body.Data), versions)
		}
	}
	return nil
}

// TestReloadKeepsKeysRevoked checks that a key removed from the file,
// then put back, stays revoked, and that a stored key keeps its name and
// expiry; both are logged as warnings, without the key.
func TestReloadKeepsKeysRevoked(t *testing.T) {
	is := is.New(t)
	name := filepath.Join(t.TempDir(), "data.json")
	f := beforeReload()
	f.write(t, name)
	s := startServer(t, nil, "-data", name)

	f["apiKeys"] = f["apiKeys"][:1] // keyAOld and keyB go
	f.write(t, name)
	is.NoErr(s.reload(t))
	is.Equal(read(t, s, "/v1/projects", keyAOld).status, 401)

	f["apiKeys"] = append(f["apiKeys"], apiKeyItem("org_a", keyAOld))
	f["apiKeys"][0]["name"] = "renamed"
	f.write(t, name)
	logged := len(s.stderr.String())
	is.NoErr(s.reload(t))
	is.Equal(read(t, s, "/v1/projects", keyAOld).status, 401) // put back, it stays revoked
	is.Equal(read(t, s, "/v1/projects", keyA).status, 200)
	log := s.stderr.String()[logged:]
	is.True(strings.Contains(log, `stays revoked: give the organization a new key" item=apiKeys[1]`)) // the warning names the item
	is.True(strings.Contains(log, `keeps the name and expiresAt it was first loaded with`))           // and the key that keeps its name
	is.True(!strings.Contains(log, "key-reload"))                                                     // never the key
}
