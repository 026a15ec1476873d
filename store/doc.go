// Package store holds the domain types of the status API, the Store
// interface through which the handler reads them, the portal's write side
// (Writer, Deleter, ThreadWriter, Organizations) and the errors. The stores
// are packages beside it: memstore (in memory) and bunstore (PostgreSQL);
// storetest is the conformance suite.
//
// Every read is scoped by an explicit organization id: a Store never
// returns an item of another organization, and answers an id that exists
// only in another organization exactly as one that does not exist
// (ErrNotFound).
//
// Store declares the whole read side of API v1 (items, Changes, Versions,
// Threads, Events, Ping), so statusapi serves every route from any Store,
// a wrapper that embeds one included. A RequestLog and WebhookEndpoints
// are given to statusapi explicitly. memstore and bunstore implement
// it all; storetest is the conformance suite every implementation
// passes. Package store depends on the standard library only.
//
// What a Store promises, memstore's rules and how to add a kind of item:
// docs/store.md.
package store
