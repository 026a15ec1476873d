// Command streams measures the cost of open live event streams (GET
// /v1/events with Accept: text/event-stream) on one handler: it serves
// statusapi on in-memory parts on a loopback port, opens -n streams to it
// (-n/5 organizations, five streams each, the most one may hold), and
// reports the memory they hold and the CPU the process uses while they
// idle (polls every second, heartbeats every 15 seconds, nothing to send),
// then makes one write in each organization and reports how long each
// stream took to carry its event. It measures; it asserts nothing.
//
//	go run ./tools/streams -n 1000 -idle 20s
//
// With -pg URL it measures instead the latency from a commit to its event
// on a stream of another replica, on PostgreSQL (see runPostgres):
//
//	go run ./tools/streams -pg 'postgres://postgres@127.0.0.1:5432/test?sslmode=disable' -writes 100
//
// The clients are raw TCP connections in the same process that read
// nothing once the headers came (the kernel keeps the heartbeats): the
// memory and CPU reported are the server's. The key resolver is an
// auth.Cache, as in production, so the key check every second is a
// cache hit.
package main
