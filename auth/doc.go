// Package auth answers "who is calling?" for the status API: a KeyResolver
// turns the bearer credential of a request into a Principal (its
// store.Organization, the key or subject, the expiry), or refuses it with
// ErrInvalidKey.
//
// Keys mints, imports, lists and revokes an organization's API keys on a
// KeyStore (MemoryKeyStore here, bunstore on PostgreSQL) and
// resolves them; only a key's SHA-256 (HashKey) and first 8 characters are
// stored. MintRestricted makes a key that reads only some scopes or
// projects (a Restriction), which never changes. Package auth/jwtauth
// resolves JWTs a portal signs.
//
// Chain tries several resolvers in turn; Cache remembers their answers for
// a short ttl and forgets an organization's as soon as an Invalidations
// reports that its keys or account changed: at once in the process that
// made the change, within about a second on replicas sharing a channel
// (PostgreSQL NOTIFY, auth/redisinvalidate). The key format, restricted
// keys and JWTs: docs/keys.md; revocation across replicas:
// docs/operations.md.
//
//	keys := auth.NewKeys(store)
//	defer keys.Close()
//	resolver := auth.NewCache(auth.Chain(keys, jwts))
//	defer resolver.Close() // ends its subscriptions
//
// Options follow the module's one policy (package option). Errors to
// branch on: ErrInvalidKey (401), ErrUnavailable (the key store is down,
// 503), ErrInvalidInput (Mint or Import refused their input),
// ErrUnknownOrganization and ErrKeyNotFound.
package auth
