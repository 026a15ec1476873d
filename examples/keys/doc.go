// Command keys creates, lists and revokes the API keys of an organization
// in the PostgreSQL database of the status API: the operator's side of what
// a client portal does through auth.Keys.
//
//	go run ./examples/keys -database-url URL create -org ORG -name NAME [-expires 720h] [-scopes invoices:read] [-projects p1,p2]
//	go run ./examples/keys -database-url URL list -org ORG
//	go run ./examples/keys -database-url URL revoke -org ORG -id KEY_ID
//
// create prints the new key once, alone on standard output; only its hash
// is stored, so it cannot be shown again. The organization must exist (the
// portal or the server's data load puts it). -scopes and -projects, each a
// comma-separated list, restrict the key (auth.Restriction): to those
// scopes (projects:read, deliverables:read, invoices:read, threads:read,
// webhooks:read, logs:read)
// and to those projects of the organization; without them it reads all
// of the organization's data. list shows each key's restriction. -database-url defaults to
// $DATABASE_URL; -migrate first brings the schema up to date.
//
// A revoked key is refused within about a second by every server on that
// database: the revocation's trigger NOTIFYs their caches (see
// bunstore.Store.Subscribe). A server whose listening connection is down
// refuses it within its cache's ttl (auth.DefaultCacheTTL, 30s).
package main
