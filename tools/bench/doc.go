// Command bench measures the throughput of the status API against two
// yardsticks in one process, on data it seeds itself: static bytes (a bare
// handler writing the library's answer, the floor) and a hand-written
// net/http + pgx handler. Every measurement is GET /v1/invoices?limit=20
// over loopback, sent by wrk (or a built-in load generator with -load go),
// the library behind a request log as a server runs it. It prints the
// ratios as a Markdown table, the figures of docs/performance.md.
//
// The runs (-run selects them by name) are memory-vs-static,
// postgres-vs-pgx, postgres-medium-vs-pgx, flat-memory, flat-postgres,
// others-postgres, memory-vs-static-headers and production; those on
// PostgreSQL need -db (default $TEST_DATABASE_URL). What each measures,
// its target and how to read the table are in docs/tools.md.
//
//	go run ./tools/bench                                  # memory only
//	go run ./tools/bench -db "$TEST_DATABASE_URL" -others 10000000
//	go run ./tools/bench -run 'memory-vs-static$|production' -d 5s -rounds 3
package main
