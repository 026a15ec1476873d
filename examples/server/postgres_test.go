package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/internal/test/testenv"
)

// walk is a client's tour of every route of the contract on
// testdata/contract.json: lists, filters, pages, items, errors, a download
// and its file. It returns what the client saw, with what differs from one
// server to the next (request ids, link signatures and expiry, the port,
// updatedAt: the time a store that tracks changes took the item) replaced
// by placeholders.
func walk(t *testing.T, s *testServer) []string {
	t.Helper()
	const acme, bloom, p3 = "key-acme-1", "key-bloom", "key-acme-p3-accounting"
	requests := []struct{ path, key string }{
		{"/v1/projects", acme},
		{"/v1/projects?status=on_hold", acme},
		{"/v1/projects?limit=2&page=2", acme},
		{"/v1/projects", bloom},
		{"/v1/projects/p1", acme},
		{"/v1/projects/p1", bloom},
		{"/v1/projects/pc1", acme},
		{"/v1/projects/p1/milestones", acme},
		{"/v1/projects/p1/milestones?status=completed", acme},
		{"/v1/projects/nope/milestones", acme},
		{"/v1/deliverables", acme},
		{"/v1/deliverables?status=approved&projectId=p3", acme},
		{"/v1/deliverables?projectId=nope", acme},
		{"/v1/deliverables", bloom},
		{"/v1/deliverables/d3/download", acme},
		{"/v1/deliverables/db1/download", acme},
		{"/v1/invoices", acme},
		{"/v1/invoices?page=2", acme},
		{"/v1/invoices?limit=100&status=paid", acme},
		{"/v1/invoices?projectId=p1&limit=3&page=2", acme},
		{"/v1/invoices?page=9", acme},
		{"/v1/invoices?limit=101", acme},
		{"/v1/invoices", bloom},
		{"/v1/projects", "key-acme-expired"},
		{"/v1/projects", "key-acme-revoked"},
		{"/v1/projects", "key-corvid-retainer-ended"},
		{"/v1/projects", "key-nobody"},
		// Restricted to invoices and deliverables of p3.
		{"/v1/invoices?limit=100", p3},
		{"/v1/invoices?projectId=p1", p3},
		{"/v1/deliverables", p3},
		{"/v1/deliverables/d1/download", p3},
		{"/v1/projects", p3},
		{"/v1/projects/p3", p3},
		// Single items, expand=project and invoice documents.
		{"/v1/milestones/m1", acme},
		{"/v1/milestones/m1?expand=project", acme},
		{"/v1/deliverables/d1?expand=project", acme},
		{"/v1/deliverables/d1", bloom},
		{"/v1/invoices/i02?expand=project", acme},
		{"/v1/invoices/i01?expand=project", acme},
		{"/v1/invoices?limit=3&expand=project", acme},
		{"/v1/invoices?expand=owner", acme},
		{"/v1/invoices/i02", p3},
		{"/v1/invoices/i01/document", acme},
		{"/v1/deliverables?projectId=p3&expand=project", p3},
	}
	var seen []string
	for _, r := range requests {
		res := call(t, "GET", s.url+r.path, r.key)
		seen = append(seen, fmt.Sprintf("%s %s -> %d %s", r.key, r.path, res.status, normalize(s, res.body)))
	}
	for _, id := range []string{"d1", "d2", "d4", "db1"} {
		key := acme
		if id == "db1" {
			key = bloom
		}
		res := call(t, "GET", s.url+"/v1/deliverables/"+id+"/download", key)
		seen = append(seen, fmt.Sprintf("download %s -> %d %s", id, res.status, normalize(s, res.body)))
		var link struct{ Data struct{ URL string } }
		if err := json.Unmarshal(res.body, &link); err != nil || link.Data.URL == "" {
			t.Fatalf("download %s: no link in %s", id, res.body)
		}
		file := call(t, "GET", link.Data.URL, "")
		seen = append(seen, fmt.Sprintf("file %s -> %d %s %q", id, file.status, file.header.Get("Content-Type"), file.body))
	}
	res := call(t, "GET", s.url+"/v1/invoices/i02/document", acme)
	var link struct{ Data struct{ URL string } }
	if err := json.Unmarshal(res.body, &link); err != nil || link.Data.URL == "" {
		t.Fatalf("invoice document: no link in %s", res.body)
	}
	file := call(t, "GET", link.Data.URL, "")
	seen = append(seen, fmt.Sprintf("document i02 -> %d %s %q", file.status, file.header.Get("Content-Type"), file.body))
	return seen
}

var (
	requestIDs = regexp.MustCompile(`"request_id":"[^"]*"`)
	expiries   = regexp.MustCompile(`"expiresAt":"[^"]*"`)
	updates    = regexp.MustCompile(`"updatedAt":"[^"]*"`)
	signatures = regexp.MustCompile(`\?[^"]*`)
)

func normalize(s *testServer, body []byte) string {
	b := strings.ReplaceAll(string(body), s.url, "{url}")
	b = requestIDs.ReplaceAllString(b, `"request_id":"…"`)
	b = expiries.ReplaceAllString(b, `"expiresAt":"…"`)
	b = updates.ReplaceAllString(b, `"updatedAt":"…"`)
	return signatures.ReplaceAllString(b, "?…")
}

// TestPostgresAnswersAsMemory serves testdata/contract.json from
// PostgreSQL and from memory and checks that a client sees the same
// answers, also after the file has been loaded a second time.
func TestPostgresAnswersAsMemory(t *testing.T) {
	is := is.New(t)
	dsn := testSchema(t, testenv.PostgresURL(t))

	want := walk(t, startServer(t, nil, "-data", contractFile))
	for load := 1; load <= 2; load++ {
		s := startServer(t, nil, "-data", contractFile, "-database-url", dsn)
		got := walk(t, s)
		for i := range want {
			is.Equal(got[i], want[i]) // PostgreSQL answers as memory does
		}
	}

	// Loading twice changed nothing: no key was stored twice.
	ctx := context.Background()
	db, err := bunstore.Open(ctx, dsn)
	is.NoErr(err)
	defer db.Close()
	keys, err := bunstore.New(db).Keys(ctx, "org_a")
	is.NoErr(err)
	is.Equal(len(keys), 5) // org_a's five keys, once each
	for _, k := range keys {
		if k.Name == "p3 accounting" {
			is.Equal(k.ProjectIDs, []string{"p3"}) // with the restriction the file gives
		}
	}
}

// TestPostgresFromEnvironment starts on DATABASE_URL, without -data: the
// database then holds the demo data.
func TestPostgresFromEnvironment(t *testing.T) {
	is := is.New(t)
	dsn := testSchema(t, testenv.PostgresURL(t))
	s := startServer(t, map[string]string{"DATABASE_URL": dsn})
	res := call(t, "GET", s.url+"/v1/invoices", demoOrgs[0].key)
	is.Equal(res.status, 200)
	_, _, total := res.meta(t)
	is.Equal(total, demoOrgs[0].invoices)
}

// testSchema creates a schema of its own for the test, dropped at its
// end, and returns dsn set to use it.
func testSchema(t *testing.T, dsn string) string {
	t.Helper()
	ctx := context.Background()
	db, err := bunstore.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// The test's name, and a random suffix so that runs from two checkouts
	// at once never drop each other's schema.
	schema := "server_" + strings.ToLower(regexp.MustCompile(`\W`).ReplaceAllString(t.Name(), "_"))
	schema = fmt.Sprintf("%.40s_%08x", schema, rand.Uint32())
	if _, err := db.ExecContext(ctx, "DROP SCHEMA IF EXISTS "+schema+" CASCADE; CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		db, err := bunstore.Open(ctx, dsn)
		if err != nil {
			t.Error(err)
			return
		}
		defer db.Close()
		if _, err := db.ExecContext(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Error(err)
		}
	})
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
