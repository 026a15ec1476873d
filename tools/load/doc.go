// Command load sends GET requests to a running /v1 API from several
// concurrent clients for a fixed time, and reports the throughput, the
// latency percentiles and the responses by status. It measures; it asserts
// nothing.
//
//	go run ./examples/server &
//	go run ./tools/load -key demo_ember_enterprise_key -path '/v1/invoices?limit=20' -c 16 -d 10s
//
// Use an enterprise key (no rate limit) to measure the server rather than
// the limiter. -pid, given the server's process id on this machine, also
// reports its resident memory before and after.
package main
