package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/internal/test/testenv"
)

// TestUnstorableIDsMatchNothing sends, as a client would, ids that hold a
// NUL or invalid UTF-8, which PostgreSQL's driver would turn into p1, d1
// or p\ufffd: from memory and from PostgreSQL, each answers as an unknown
// id does.
func TestUnstorableIDsMatchNothing(t *testing.T) {
	good, err := os.ReadFile(contractFile)
	if err != nil {
		t.Fatal(err)
	}
	var d map[string][]any
	if err := json.Unmarshal(good, &d); err != nil {
		t.Fatal(err)
	}
	d["projects"] = append(d["projects"], map[string]any{
		"id": "p\ufffd", "orgId": "org_a", "name": "Replacement", "status": "planned", "updatedAt": "2026-01-05T09:00:00Z"})
	d["deliverables"] = append(d["deliverables"], map[string]any{
		"id": "d\ufffd", "orgId": "org_a", "projectId": "p\ufffd", "name": "D", "status": "approved",
		"createdAt": "2026-01-05T09:00:00Z", "updatedAt": "2026-01-05T09:00:00Z", "content": "replacement"})
	b, _ := json.Marshal(d)
	name := filepath.Join(t.TempDir(), "replacement.json")
	if err := os.WriteFile(name, b, 0o600); err != nil {
		t.Fatal(err)
	}

	requests := []struct {
		path   string
		status int
	}{
		{"/v1/projects/p1%00", 404},
		{"/v1/projects/p%FF", 404},
		{"/v1/projects/%00p1", 404},
		{"/v1/projects/p1%00/milestones", 404},
		{"/v1/projects/p%FF/milestones", 404},
		{"/v1/deliverables/d1%00/download", 404},
		{"/v1/deliverables/d%FF/download", 404},
		{"/v1/deliverables?projectId=p1%00", 200},
		{"/v1/deliverables?projectId=p%FF", 200},
		{"/v1/invoices?projectId=p1%00", 200},
		{"/v1/invoices?projectId=p%FF&status=open", 200},
	}
	check := func(t *testing.T, s *testServer) {
		is := is.New(t)
		is.Equal(call(t, "GET", s.url+"/v1/projects/p%EF%BF%BD", "key-acme-1").status, 200) // p\ufffd itself is served
		for _, r := range requests {
			res := call(t, "GET", s.url+r.path, "key-acme-1")
			is.Equal(res.status, r.status) // see the next line
			t.Log(r.path, string(res.body))
			if r.status == 404 {
				is.Equal(res.errorCode(t), "NOT_FOUND") // an unstorable id is not found
				continue
			}
			is.Equal(res.ids(t), []string{}) // a filter by an unstorable id matches nothing
			_, _, total := res.meta(t)
			is.Equal(total, 0) // and counts nothing
		}
	}
	t.Run("memory", func(t *testing.T) {
		check(t, startServer(t, nil, "-data", name))
	})
	t.Run("PostgreSQL", func(t *testing.T) {
		dsn := testSchema(t, testenv.PostgresURL(t))
		check(t, startServer(t, nil, "-data", name, "-database-url", dsn))
	})
}

// TestUnstorableIDsAreRefused checks that a data file with an id that
// holds a NUL stops the server with a message naming the item, rather
// than loading it as another id.
func TestUnstorableIDsAreRefused(t *testing.T) {
	good, err := os.ReadFile(contractFile)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, from, to, want string }{
		{"project id", `"id": "p3"`, `"id": "p3\u0000"`, `projects[2] (id "p3\x00")`},
		{"organization id", `"id": "org_b"`, `"id": "org_b\u0000"`, `organizations[1] (id "org_b\x00")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			is.True(strings.Contains(string(good), tt.from)) // the contract file has the item
			name := filepath.Join(t.TempDir(), "nul.json")
			is.NoErr(os.WriteFile(name, []byte(strings.Replace(string(good), tt.from, tt.to, 1)), 0o600))
			err := startErr(t, "-data", name)
			t.Log(err)
			is.True(strings.Contains(err.Error(), tt.want))               // the message names the item
			is.True(strings.Contains(err.Error(), "NUL or is not valid")) // and says what is wrong
		})
	}
}
