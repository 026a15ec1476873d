// Package testenv finds the real services that some tests need, PostgreSQL
// and Redis, through TEST_DATABASE_URL and TEST_REDIS_URL.
//
// Without them such tests skip, saying how to run them, and Main (the
// TestMain of their packages) says so on one line per package even
// without -v; with CLIENTSTATUS_REQUIRE_SERVICES=1 (set by .ci/run) a
// missing service fails the test instead, so CI cannot pass by skipping.
package testenv
