// Command server runs the client status API on its own: in memory on
// built-in demo data by default, on a data file with -data, on PostgreSQL
// with -database-url and with a Redis-shared rate limit with -redis-url.
//
//	go run ./examples/server
//	go run ./examples/server -data examples/server/testdata/contract.json
//	go run ./examples/server -database-url postgres://... -redis-url redis://...
//
// It prints the demo API keys and a curl line to try, serves GET /healthz
// (liveness) and GET /readyz (readiness: its store, key store and, when it
// fails closed, Redis) beside the API, logs each request with log/slog (never a key, nor a
// download link's signature) and shuts down gracefully on SIGINT or
// SIGTERM. With -data, SIGHUP makes it read the file again and serve what
// changed (see reloader). Run it with -h for every flag; README.md says
// more.
package main
