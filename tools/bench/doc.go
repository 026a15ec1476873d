// Command bench measures the throughput of the status API against two
// yardsticks, side by side in one process, on data it seeds itself, and
// prints the ratios as a Markdown table to paste into docs/performance.md (issue
// 12).
//
// Every measurement is GET /v1/invoices?limit=20 with an enterprise key
// (no rate limit) over loopback, sent by wrk -t2 -c32 --latency (with
// --timeout 10s, so that a slow case is measured rather than failed), or,
// when wrk is not on the PATH (or with -load go), by a load generator
// built in, as tools/load's; the output says which. A response other
// than 200 (wrk: any "Non-2xx or 3xx" or socket error) fails the run. Each handler has its own
// http.Server on 127.0.0.1:0 in this process; one server is measured at a
// time, after a warm-up. The library runs as a server runs it: behind a
// request log that writes one slog JSON line per request, formatted by
// accesslog.JSONHandler (as slog.NewJSONHandler formats it, byte for
// byte, as examples/server does) and written to a temporary file through
// accesslog.Buffer, in blocks, as a server should write it (-log file: a
// write per line; -log discard: to io.Discard, formatting only; see
// logging.go). The yardsticks log nothing:
//
//   - static bytes: a bare net/http handler that checks the bearer key by
//     SHA-256 (a constant-time compare with the stored hash) and writes the
//     body the library answered to the same request, captured once at
//     start. It is the floor: what no server can do with less work.
//   - pgx by hand: a net/http handler on pgxpool that checks the key the
//     same way, runs the page query (ORDER BY issued_at DESC, id LIMIT
//     OFFSET) and a count(*) on bunstore's own tables, and encodes the same
//     envelope with encoding/json. Its answer must be the library's JSON
//     value, which is checked before measuring.
//
// The runs (-run selects them by name):
//
//  1. memory-vs-static: the memory store, an organization with 137
//     invoices, against static bytes; target >= 0.9x.
//
//  2. postgres-vs-pgx: bunstore, 137 invoices, against pgx by hand;
//     target >= 1.0x.
//
//  3. postgres-medium-vs-pgx: the same with 10,000 invoices (-medium).
//
//  4. flat-memory: page 1 of an organization with 100,000 invoices
//     (-large) against one with 100; target <= 1.5x.
//
//  5. flat-postgres: the same on bunstore.
//
//  6. others-postgres: bunstore, 137 invoices of the organization among
//     -others rows of other organizations in the same tables, against run
//     2's library side (measured again, in alternation); target <= 1.5x.
//     It runs only with -others > 0.
//
//  7. memory-vs-static-headers: run 1 against static bytes sent with the
//     library's own response headers (ETag, Cache-Control, Vary, Link,
//     X-Request-Id, X-Content-Type-Options), which the API documents in
//     its OpenAPI document: the part of run 1's gap that is the headers'
//     cost, to the server and to the load generator on the same cores.
//
//  8. production (only when -run names it, e.g. -run production): the
//     production-like polling of issue 25, on a schema of its own
//     (<schema>_prod, 300,000 invoices of 1,000 organizations seeded the
//     first time), printed as a table of its own: the library with and
//     without its response cache against a hand-written handler
//     (net/http + pgx, prepared statements, ETag and 304), under a
//     Zipf-skewed loader with per-URL ETags and a writer committing plain
//     SQL 20 times a second, each commit followed by a freshness probe
//     that must see it (a stale answer fails the run). See production.go.
//
// Runs 2, 3, 5, 6 and 8 need PostgreSQL (-db, default $TEST_DATABASE_URL);
// without it only runs 1, 4 and 7 run, and the output says why.
//
//	go run ./tools/bench                                  # memory only
//	go run ./tools/bench -db "$TEST_DATABASE_URL" -others 10000000
//	go run ./tools/bench -run flat -d 10s -rounds 5
//	go run ./tools/bench -run 'memory-vs-static$|production' -d 5s -rounds 3   # issue 25's table, a few minutes
//
// Reading the table: each run measures two sides, the "clientstatus"
// column (the subject) and the "yardstick" column (what it is held
// against), in -rounds rounds that alternate which goes first. A figure is
// the median of its side's rounds; the ratio is the median of the
// rounds' own ratios, so one noisy round moves it little. Against a
// yardstick (runs 1 to 3, and 7) the ratio is clientstatus/yardstick: 0.9x means
// the library serves 90% of the yardstick's requests a second. For
// flatness (runs 4 to 6) it is small/large: how many times slower the
// large case is, 1.0x being perfectly flat. "met" compares the ratio with
// the target. The last column is the process's CPU time per request served
// while each side was measured (clientstatus / yardstick, medians): the
// servers' own cost, which the load generator's share of the cores does
// not blur. The load generator shares the machine with the servers, so
// the figures are of this machine, under this load: compare ratios, not
// requests a second, between machines.
//
// The library runs with its response cache (statusapi.WithResponseCache,
// on by default), as a portal runs it: wrk asks for the same page again
// and again, so every request after the first is a cache hit, which is
// what a polling dashboard gets while the data does not change.
// -cache=false measures every request as a miss: a query and an encoding.
//
// PostgreSQL data goes in schemas of its own (-schema, default
// clientstatus_bench, and clientstatus_bench_others for run 6), made by
// bunstore.Migrate, through the store's writers (PutOrganization,
// PutInvoices), the others of run 6 by INSERT ... SELECT generate_series
// in chunks, then VACUUM ANALYZE. A second run reuses what is there when
// the counts match; -reseed drops both schemas first. Keys are minted
// through the library's key stores, valid for a day.
package main
