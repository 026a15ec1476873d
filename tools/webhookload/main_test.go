package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/internal/test/testenv"
)

// TestMain lets the test binary be a replica, as the command is: the
// parent starts os.Executable() with -replica.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "-replica" {
		main()
		return
	}
	os.Exit(m.Run())
}

func TestFlags(t *testing.T) {
	is := is.New(t)
	t.Setenv("TEST_DATABASE_URL", "")
	t.Setenv("DATABASE_URL", "")
	var out bytes.Buffer
	is.True(run(context.Background(), nil, &out) != nil)                                                         // no database
	is.True(run(context.Background(), []string{"-database-url", "postgres://x/y", "-events", "0"}, &out) != nil) // no events
	is.True(run(context.Background(), []string{"-retries", "1s,soon"}, &out) != nil)                             // a bad schedule
}

// TestKill runs the kill and down scenarios small, on PostgreSQL: the
// tool still measures what it says.
func TestKill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts replica processes: not with -short")
	}
	is := is.New(t)
	dsn := testenv.PostgresURL(t)
	var out bytes.Buffer
	err := run(context.Background(), []string{"-database-url", dsn, "-scenario", "kill,down", "-events", "100", "-endpoints", "2",
		"-claim", "2s", "-down", "1s", "-retries", "500ms,1s,2s"}, &out)
	t.Log(out.String())
	is.NoErr(err)
	is.True(strings.Contains(out.String(), "200 of 200 delivered (0 lost)")) // the kill scenario lost nothing
	is.True(strings.Contains(out.String(), "jobs under its"))                // and proved the dead replica's claims
	is.Equal(strings.Count(out.String(), "100 of 100 arrived"), 2)           // the receiver down, both ways: every event arrived
}
