// Package pgtest gives a test a migrated PostgreSQL schema of its own, on
// TEST_DATABASE_URL (the test skips without it, see testenv), dropped
// when the test ends.
package pgtest
