package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/matryer/is"
	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/internal/test/testenv"
	"github.com/clientstatus/clientstatus/store"
)

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"no command", []string{"-database-url", "postgres://x"}},
		{"unknown command", []string{"-database-url", "postgres://x", "rotate"}},
		{"create without org", []string{"-database-url", "postgres://x", "create", "-name", "ci"}},
		{"bad expiry", []string{"-database-url", "postgres://x", "create", "-org", "a", "-expires", "soon"}},
		{"expiry in the past", []string{"-database-url", "postgres://x", "create", "-org", "a", "-expires", "-1h"}},
		{"revoke without id", []string{"-database-url", "postgres://x", "revoke", "-org", "a"}},
		{"list without org", []string{"-database-url", "postgres://x", "list"}},
		{"stray argument", []string{"-database-url", "postgres://x", "list", "-org", "a", "extra"}},
		{"no database", []string{"-database-url", "", "list", "-org", "a"}},
		{"unknown scope", []string{"-database-url", "postgres://x", "create", "-org", "a", "-scopes", "invoices:write"}},
		{"empty scopes", []string{"-database-url", "postgres://x", "create", "-org", "a", "-scopes", ","}},
		{"empty projects", []string{"-database-url", "postgres://x", "create", "-org", "a", "-projects", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			var out, errOut bytes.Buffer
			err := run(context.Background(), tt.args, &out, &errOut)
			is.True(err != nil)    // refused before touching any database
			is.Equal(out.Len(), 0) // nothing on standard output
		})
	}
}

// acme returns the URL of a migrated schema of the test's own, and a store
// on it holding org_a.
func acme(t *testing.T) (string, *bunstore.Store) {
	t.Helper()
	is := is.New(t)
	ctx := context.Background()
	dsn := schemaURL(t)
	db, err := bunstore.Open(ctx, dsn)
	is.NoErr(err)
	t.Cleanup(func() { db.Close() })
	is.NoErr(bunstore.Migrate(ctx, db))
	st := bunstore.New(db)
	is.NoErr(st.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "Acme", Plan: "starter", RetainerActive: true, APIEnabled: true}))
	return dsn, st
}

func TestCreateListRevoke(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	dsn, st := acme(t)

	var out, errOut bytes.Buffer
	is.NoErr(run(ctx, []string{"-database-url", dsn, "create", "-org", "org_a", "-name", "ci", "-expires", "720h"}, &out, &errOut))
	key := strings.TrimSpace(out.String())
	is.True(strings.HasPrefix(key, "csk_"))          // the key, alone on standard output
	is.True(!strings.Contains(errOut.String(), key)) // and nowhere else
	is.True(strings.Contains(errOut.String(), "only this once"))

	keys := auth.NewKeys(st)
	p, err := keys.Resolve(ctx, key)
	is.NoErr(err) // the printed key works
	is.Equal(p.Org.ID, "org_a")

	out.Reset()
	is.NoErr(run(ctx, []string{"-database-url", dsn, "list", "-org", "org_a"}, &out, &errOut))
	is.True(strings.Contains(out.String(), p.KeyID))  // listed by id
	is.True(strings.Contains(out.String(), key[:8]))  // with its display prefix
	is.True(!strings.Contains(out.String(), key[8:])) // never the key

	out.Reset()
	is.NoErr(run(ctx, []string{"-database-url", dsn, "revoke", "-org", "org_a", "-id", p.KeyID}, &out, &errOut))
	_, err = keys.Resolve(ctx, key)
	is.True(errors.Is(err, auth.ErrInvalidKey)) // revoked

	err = run(ctx, []string{"-database-url", dsn, "revoke", "-org", "org_b", "-id", p.KeyID}, &out, &errOut)
	is.True(errors.Is(err, auth.ErrKeyNotFound)) // not another organization's key
}

// schemaURL returns the test database's URL on a fresh schema of its own,
// dropped when the test ends.
func schemaURL(t *testing.T) string {
	t.Helper()
	dsn := testenv.PostgresURL(t)
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	schema := "keys_test_" + hex.EncodeToString(b)
	admin, err := bunstore.Open(context.Background(), dsn)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() {
		if _, err := admin.ExecContext(context.Background(), "DROP SCHEMA IF EXISTS ? CASCADE", bun.Ident(schema)); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
		admin.Close()
	})
	if _, err := admin.ExecContext(context.Background(), "CREATE SCHEMA ?", bun.Ident(schema)); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("TEST_DATABASE_URL must be a postgres:// URL: %v", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

func TestCreateRestricted(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	dsn, st := acme(t)
	for _, id := range []string{"p1", "p2"} {
		is.NoErr(st.PutProject(ctx, store.Project{ID: id, OrgID: "org_a", Name: id, Status: store.ProjectPlanned}))
	}

	var out, errOut bytes.Buffer
	is.NoErr(run(ctx, []string{"-database-url", dsn, "create", "-org", "org_a", "-name", "accounting",
		"-scopes", "invoices:read, deliverables:read", "-projects", "p2,p1"}, &out, &errOut))
	key := strings.TrimSpace(out.String())
	p, err := auth.NewKeys(st).Resolve(ctx, key)
	is.NoErr(err)
	is.Equal(p.Scopes, []auth.Scope{auth.ScopeDeliverables, auth.ScopeInvoices}) // the scopes given
	is.Equal(p.ProjectIDs, []string{"p1", "p2"})                                 // and the projects

	out.Reset()
	is.NoErr(run(ctx, []string{"-database-url", dsn, "list", "-org", "org_a"}, &out, &errOut))
	is.True(strings.Contains(out.String(), "scopes=deliverables:read,invoices:read projects=p1,p2")) // list shows the restriction

	out.Reset()
	err = run(ctx, []string{"-database-url", dsn, "create", "-org", "org_a", "-projects", "p9"}, &out, &errOut)
	is.True(errors.Is(err, auth.ErrInvalidInput)) // a project the organization does not have
	is.Equal(out.Len(), 0)                        // and no key printed
}
