// Package auth answers "who is calling?" for the status API: a KeyResolver
// turns the bearer credential of a request into a Principal (its
// store.Organization, the key or subject, the expiry), or refuses it with
// ErrInvalidKey.
//
// API keys: Keys mints, imports, lists and revokes an organization's keys
// on a KeyStore (MemoryKeyStore here, store/bunstore on PostgreSQL) and
// resolves them. A minted key is "csk_", 32 base62 characters from
// crypto/rand (about 190 bits) and 6 base62 characters of their CRC-32:
// secret scanners find it by its prefix, and a mistyped key is refused
// before any lookup. Only its SHA-256 (HashKey) and its first 8 characters
// are stored. An organization may hold several keys at once, so a client
// rotates without downtime. "Last used" is kept in memory and written in
// batches.
//
// Restricted keys: MintRestricted and ImportRestricted make a key that
// reads only part of its organization's data (a Restriction: some Scopes,
// some ProjectIDs, or both); the Principal carries it and the handler
// enforces it on every route. A key's restriction never changes.
//
// JWTs: package auth/jwtauth resolves tokens a portal signs, with one
// configured algorithm, a required exp, a checked issuer and audience, and
// the organization in a claim. It is apart so that package auth depends on
// the standard library and this module only.
//
// Chain tries several resolvers (keys, then JWTs); Cache remembers answers
// for a short ttl (30s by default), and forgets an organization's as soon
// as an Invalidations reports that its keys or account changed: Keys
// reports its revocations, and relays its KeyStore's reports
// (MemoryKeyStore: store.Memory's changes; store/bunstore: PostgreSQL
// NOTIFY from triggers) and its Publisher's (auth/redisinvalidate: Redis
// pub/sub). So a revocation or an account switched off is seen at once in
// the process that made it, within about a second on replicas sharing such
// a channel, and within the ttl while the channel is down.
//
//	keys := auth.NewKeys(store)
//	defer keys.Close()
//	resolver := auth.NewCache(auth.Chain(keys, jwts), auth.WithCacheTTL(30*time.Second))
//	defer resolver.Close() // ends its subscriptions
//
// NewKeys and NewCache take Option values (WithClock, WithLogger,
// WithFlushInterval, WithCacheTTL, WithMaxEntries, WithInvalidations,
// WithPublisher) under the module's one policy (package
// [github.com/clientstatus/clientstatus/option]): nil or a zero value
// means the default, and a negative one makes the constructor that reads
// it panic with an *option.Error naming the option, which Validate
// returns without a panic.
//
// Errors to branch on: ErrInvalidKey (a credential refused: 401),
// ErrUnavailable (store.ErrUnavailable: the key store is down, 503),
// ErrInvalidInput (store.ErrInvalid: Mint or Import refused their input),
// ErrUnknownOrganization (no account to mint for) and ErrKeyNotFound.
package auth
