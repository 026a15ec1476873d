// Command webhookload measures webhook delivery on the real event spine:
// PostgreSQL (bunstore), events made by writes in their own
// transactions, dispatchers in separate processes (this binary, started
// again with -replica), and a loopback receiver that verifies every
// delivery as a client would (statusclient.VerifyWebhook). It measures and
// reports; it asserts nothing, but exits non-zero when a delivery is lost.
//
//	go run ./tools/webhookload -database-url "$TEST_DATABASE_URL"
//
// Each scenario works in a schema of its own, dropped at the end:
//
//   - throughput: one replica delivers -events events queued before it
//     starts, to one endpoint (deliveries a second); then 100 events
//     written one at a time, commit-to-delivery latency p50, p90 and max;
//   - replicas: two replica processes on one database, -events events to
//     3 endpoints: distinct deliveries, duplicates and losses;
//   - kill: the same, with one replica SIGKILLed half-way while it holds
//     claims (named by their tokens, found in the database after the
//     kill); the survivor delivers them once they expire (-claim);
//   - down: a receiver that answers 503, then one that refuses
//     connections, for -down, with the -retries schedule: every event
//     arrives once it is back.
//
// Deliveries use http to 127.0.0.1 (webhook.WithAllowLocal): for
// measuring only.
package main
