package testenv

import (
	"os"
	"testing"
)

// RequireEnv is the variable that turns a skip for a missing service into a
// failure.
const RequireEnv = "CLIENTSTATUS_REQUIRE_SERVICES"

// PostgresURL returns TEST_DATABASE_URL, or skips (fails, under RequireEnv)
// the test when it is not set.
func PostgresURL(t testing.TB) string {
	t.Helper()
	return lookup(t, "TEST_DATABASE_URL", "PostgreSQL",
		"postgres://postgres@127.0.0.1:5432/test?sslmode=disable")
}

// RedisURL returns TEST_REDIS_URL, or skips (fails, under RequireEnv) the
// test when it is not set.
func RedisURL(t testing.TB) string {
	t.Helper()
	return lookup(t, "TEST_REDIS_URL", "Redis", "redis://127.0.0.1:6379/0")
}

func lookup(t testing.TB, name, service, example string) string {
	t.Helper()
	if v := os.Getenv(name); v != "" {
		return v
	}
	skip(t, "this test needs "+service+": run it with "+name+"="+example+" go test ./...", name, example)
	return ""
}
