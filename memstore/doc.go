// Package memstore is the store kept in memory: Store implements every
// interface of package store (the read side, the portal's writers, the
// request log, webhook endpoints and jobs) for tests, demos and one-box
// installs. It passes the conformance suite (storetest), as bunstore does
// on PostgreSQL. Its rules: docs/store.md.
package memstore
