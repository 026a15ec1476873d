// Package authtest is the conformance suite of auth.KeyStore: the key
// lifecycle (mint, resolve, list, revoke, expire, last use) that every key
// store must give the same way, through auth.Keys.
//
// The in-memory store runs it in package auth; bunstore runs it
// against PostgreSQL:
//
//	authtest.RunKeyStore(t, func(t *testing.T) (auth.KeyStore, func(store.Organization)) {
//		st := newStore(t)
//		return st, func(o store.Organization) { putOrganization(t, st, o) }
//	}, authtest.WithDump(dumpDatabase))
package authtest
