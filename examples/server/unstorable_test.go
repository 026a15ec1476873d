package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/internal/testenv"
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
