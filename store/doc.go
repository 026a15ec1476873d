// Package store holds the domain types of the status API, the Store
// interface through which the handler reads them, the portal's write side
// (Writer, Deleter, ThreadWriter, Organizations) and Memory, a Store in
// memory.
//
// Every read is scoped by an explicit organization id: a Store never
// returns an item of another organization, and answers an id that exists
// only in another organization exactly as one that does not exist
// (ErrNotFound).
//
// Store declares the whole read side of API v1 (items, Changes, Versions,
// Threads, Events, Ping), so statusapi serves every route from any Store,
// a wrapper that embeds one included. A RequestLog and WebhookEndpoints
// are given to statusapi explicitly. Memory and bunstore implement
// it all; storetest is the conformance suite every implementation
// passes. Package store depends on the standard library only.
//
// What a Store promises, Memory's rules and how to add a kind of item:
// docs/store.md.
package store
