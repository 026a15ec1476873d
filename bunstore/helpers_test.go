package bunstore_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"strings"
	"testing"

	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/internal/test/testenv"
)

var ctx = context.Background()

// withParams returns dsn with the run-time parameters added, whether it is
// a URL or a key=value string.
func withParams(dsn string, params map[string]string) string {
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		q := u.Query()
		for k, v := range params {
			q.Set(k, v)
		}
		u.RawQuery = q.Encode()
		return u.String()
	}
	for k, v := range params {
		dsn += " " + k + "=" + v
	}
	return dsn
}

// newSchema creates an empty schema with a name of its own and returns it
// and the database URL; the schema is dropped when the test ends.
func newSchema(t testing.TB) (string, string) {
	t.Helper()
	dsn := testenv.PostgresURL(t)
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	schema := "bunstore_test_" + hex.EncodeToString(b)
	admin, err := bunstore.Open(ctx, dsn)
	if err != nil {
		t.Fatalf("open %s: %v", strings.SplitN(dsn, "@", 2)[len(strings.SplitN(dsn, "@", 2))-1], err)
	}
	t.Cleanup(func() {
		if _, err := admin.ExecContext(context.Background(), "DROP SCHEMA IF EXISTS ? CASCADE", bun.Ident(schema)); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
		admin.Close()
	})
	if _, err := admin.ExecContext(ctx, "CREATE SCHEMA ?", bun.Ident(schema)); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	return schema, dsn
}

// newDatabase creates an empty database with a name of its own and returns
// its URL; the database is dropped when the test ends.
func newDatabase(t testing.TB) string {
	t.Helper()
	dsn := testenv.PostgresURL(t)
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "bunstore_test_" + hex.EncodeToString(b)
	// CREATE and DROP DATABASE copy and remove files: on a loaded machine
	// they can outlast the pool's default statement timeout.
	admin, err := bunstore.Open(ctx, withParams(dsn, map[string]string{"statement_timeout": "120s"}))
	if err != nil {
		t.Fatalf("open %s: %v", strings.SplitN(dsn, "@", 2)[len(strings.SplitN(dsn, "@", 2))-1], err)
	}
	t.Cleanup(func() {
		if _, err := admin.ExecContext(context.Background(), "DROP DATABASE IF EXISTS ? WITH (FORCE)", bun.Ident(name)); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
		admin.Close()
	})
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE ?", bun.Ident(name)); err != nil {
		t.Fatalf("create database: %v", err)
	}
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		u.Path = "/" + name
		return u.String()
	}
	return dsn + " dbname=" + name
}

// openSchema opens a *bun.DB on a fresh schema of its own, unmigrated,
// closed when the test ends.
func openSchema(t testing.TB, opts ...bunstore.OpenOption) *bun.DB {
	t.Helper()
	schema, dsn := newSchema(t)
	db, err := bunstore.Open(ctx, withParams(dsn, map[string]string{"search_path": schema}), opts...)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// migrated opens a *bun.DB on a fresh, migrated schema of its own.
func migrated(t testing.TB, opts ...bunstore.OpenOption) *bun.DB {
	t.Helper()
	db := openSchema(t, opts...)
	if err := bunstore.Migrate(ctx, db); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return db
}
