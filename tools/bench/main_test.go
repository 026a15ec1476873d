package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/internal/test/testenv"
)

// TestMain says, even without -v, when tests skipped for want of a service.
func TestMain(m *testing.M) {
	testenv.Main(m)
}

// brief are the flags of a short run: the built-in load generator, one
// round of 200ms, small data. The figures mean nothing; the tests check
// that every run runs.
var brief = []string{"-load", "go", "-d", "200ms", "-warmup", "50ms", "-rounds", "1", "-c", "4", "-medium", "300", "-large", "2000"}

// runBench runs the command with args and returns its output and
// progress.
func runBench(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, progress bytes.Buffer
	err := run(context.Background(), args, &out, &progress)
	if err != nil || testing.Verbose() {
		t.Logf("output:\n%s\nprogress:\n%s", out.String(), progress.String())
	}
	return out.String(), progress.String(), err
}

func TestMemoryRuns(t *testing.T) {
	is := is.New(t)
	profile := filepath.Join(t.TempDir(), "cpu.pprof")
	out, progress, err := runBench(t, slices.Concat(brief, []string{"-run", "memory", "-db", "", "-cpuprofile", profile})...)
	is.NoErr(err) // no run failed
	is.True(strings.Contains(out, "GOMAXPROCS"))
	is.True(strings.Contains(out, "Load: built-in Go load generator"))
	is.True(strings.Contains(out, "| Run | clientstatus req/s | yardstick req/s | ratio | target | met | server CPU µs/request |"))
	is.True(strings.Contains(out, "| 1. `memory-vs-static`: memory store, 137 invoices, vs static bytes | "))
	is.True(strings.Contains(out, "| 4. `flat-memory`: page 1 flat, memory: 100 vs 2,000 invoices | "))
	is.True(strings.Contains(out, "| 7. `memory-vs-static-headers`: memory store, 137 invoices, vs static bytes with the library's headers | "))
	is.True(!strings.Contains(out, "FAILED"))
	is.True(!strings.Contains(out, "postgres")) // -run memory selects no PostgreSQL run
	is.True(!strings.Contains(progress, "FAILED"))
	info, err := os.Stat(profile)
	is.NoErr(err)            // -cpuprofile writes the profile
	is.True(info.Size() > 0) // not empty
}

func TestPostgresSkippedWithoutDatabase(t *testing.T) {
	is := is.New(t)
	out, _, err := runBench(t, slices.Concat(brief, []string{"-run", "postgres-vs-pgx", "-db", ""})...)
	is.NoErr(err)
	is.True(strings.Contains(out, "Run 2 (`postgres-vs-pgx`) skipped: it needs PostgreSQL"))
}

func TestPostgresRuns(t *testing.T) {
	is := is.New(t)
	dsn := testenv.PostgresURL(t)
	schema := fmt.Sprintf("bench_test_%08x", rand.Uint32())
	t.Cleanup(func() {
		db, err := bunstore.Open(context.Background(), dsn)
		if err == nil {
			for _, s := range []string{schema, schema + "_others"} {
				_, _ = db.ExecContext(context.Background(), "DROP SCHEMA IF EXISTS "+s+" CASCADE")
			}
			db.Close()
		}
	})
	args := slices.Concat(brief, []string{"-db", dsn, "-schema", schema, "-others", "3000"})
	out, progress, err := runBench(t, args...)
	is.NoErr(err) // no run failed
	for _, row := range []string{
		"| 1. `memory-vs-static`: ",
		"| 2. `postgres-vs-pgx`: PostgreSQL, 137 invoices, vs pgx by hand | ",
		"| 3. `postgres-medium-vs-pgx`: PostgreSQL, 300 invoices, vs pgx by hand | ",
		"| 4. `flat-memory`: ",
		"| 5. `flat-postgres`: page 1 flat, PostgreSQL: 100 vs 2,000 invoices | ",
		"| 6. `others-postgres`: PostgreSQL, 137 own invoices among 3,000 of others, vs run 2 (flat) | ",
	} {
		if !strings.Contains(out, row) {
			t.Errorf("no row %q in:\n%s", row, out)
		}
	}
	is.True(!strings.Contains(out, "FAILED"))
	is.True(strings.Contains(progress, "seeding 3,000 invoices of 3 other organizations"))
	is.True(strings.Contains(out, "\n- PostgreSQL: ")) // the header names the database

	// A second run finds the data seeded and reuses it.
	out, progress, err = runBench(t, slices.Concat(args, []string{"-run", "postgres-vs-pgx|others"})...)
	is.NoErr(err)
	is.True(strings.Contains(progress, schema+".bench_137: reusing its 137 invoices"))
	is.True(strings.Contains(progress, "reusing bench_137's 137 invoices among 3,000 of others"))
	is.True(!strings.Contains(progress, "seeding"))
	is.True(!strings.Contains(out, "FAILED"))
}

func TestParseWrk(t *testing.T) {
	const ok = `Running 5s test @ http://127.0.0.1:40000/v1/invoices?limit=20
  2 threads and 32 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     2.31ms    1.02ms  20.11ms   80.00%
    Req/Sec     7.01k   500.00     8.00k    70.00%
  Latency Distribution
     50%    2.10ms
     75%    2.80ms
     90%    3.50ms
     99%    6.00ms
  69800 requests in 5.00s, 400.00MB read
Requests/sec:  13960.12
Transfer/sec:     80.00MB
`
	is := is.New(t)
	rps, err := parseWrk(ok)
	is.NoErr(err)
	is.Equal(rps, 13960.12)

	non2xx := strings.Replace(ok, "Requests/sec:", "  Non-2xx or 3xx responses: 12\nRequests/sec:", 1)
	_, err = parseWrk(non2xx)
	is.True(err != nil) // a non-2xx response fails the measurement
	is.True(strings.Contains(err.Error(), "12 responses were not 2xx"))

	socket := strings.Replace(ok, "Requests/sec:", "  Socket errors: connect 0, read 3, write 0, timeout 0\nRequests/sec:", 1)
	_, err = parseWrk(socket)
	is.True(err != nil) // so does a socket error

	_, err = parseWrk("unable to connect to 127.0.0.1:1 Connection refused\n")
	is.True(err != nil) // and an output without a figure
}

func TestMedianAndThousands(t *testing.T) {
	is := is.New(t)
	is.Equal(median([]float64{3, 1, 2}), 2.0)
	is.Equal(median([]float64{4, 1, 3, 2}), 2.5)
	is.Equal(median(nil), 0.0)
	is.Equal(thousands(999.6), "1,000")
	is.Equal(thousands(10_000_000), "10,000,000")
	is.Equal(thousands(12), "12")
}

func TestCommandLineHidesPassword(t *testing.T) {
	is := is.New(t)
	got := commandLine([]string{"-db", "postgres://u:secret@h/db?sslmode=disable", "-d", "5s"})
	is.True(!strings.Contains(got, "secret"))
	is.Equal(got, "go run ./tools/bench -db 'postgres://u:xxxxx@h/db?sslmode=disable' -d 5s")
}
