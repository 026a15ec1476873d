package auth

import (
	"context"
	"crypto/sha256"
	"errors"
	"sync"
	"time"
)

// DefaultCacheTTL is the ttl of a Cache given no WithCacheTTL: revoking a
// key, its expiry, or turning its account's retainer or API access off
// takes effect within this time.
const DefaultCacheTTL = 30 * time.Second

// DefaultCacheSize is how many credentials a Cache remembers at most.
const DefaultCacheSize = 10000

// Cache is a KeyResolver that remembers the answers of another for a short
// time, so that a busy client costs no key-store round trip per request.
//
// It remembers a principal, and a refusal (ErrInvalidKey), for its ttl
// (WithCacheTTL). So revoking a key, a key's expiry, or turning an
// account's retainer or API access off takes effect within the ttl of the
// change: that is the bound to document to clients and operators. A
// principal whose Expiry comes sooner (a key's or a JWT's) is dropped at
// its expiry, not a ttl later; a refusal that also wraps ErrNotYetValid (a
// JWT before its "nbf") is not remembered. Store failures (ErrUnavailable,
// ctx errors) are never remembered.
//
// Entries are keyed by the SHA-256 of the credential, never the credential.
// At most DefaultCacheSize (see WithMaxEntries) are kept: when full, expired
// entries are dropped, then arbitrary ones, so that random credentials
// cannot grow memory. Each process has its own Cache: replicas do not share
// it. Cache is safe for concurrent use.
type Cache struct {
	next KeyResolver
	ttl  time.Duration
	max  int
	now  func() time.Time

	mu      sync.Mutex
	entries map[[sha256.Size]byte]cacheEntry
}

type cacheEntry struct {
	p     Principal
	err   error // nil or one wrapping ErrInvalidKey
	until time.Time
}

var _ KeyResolver = (*Cache)(nil)

// NewCache returns a Cache in front of r. It reads the options
// WithCacheTTL (how long an answer is remembered, DefaultCacheTTL by
// default), WithMaxEntries and WithClock, and ignores the others. It panics
// if r is nil or an option's value is one no default stands for (see
// Option).
func NewCache(r KeyResolver, opts ...Option) *Cache {
	if r == nil {
		panic("auth: NewCache needs a KeyResolver")
	}
	c := newConfig(opts)
	return &Cache{next: r, ttl: c.cacheTTL, max: c.maxEntries, now: c.now, entries: make(map[[sha256.Size]byte]cacheEntry)}
}

// Resolve answers from the cache when it can, else asks the resolver
// behind. A principal is remembered until the earlier of ttl and its
// Expiry; a refusal (ErrInvalidKey) for ttl, unless it wraps
// ErrNotYetValid.
func (c *Cache) Resolve(ctx context.Context, credential string) (Principal, error) {
	id := sha256.Sum256([]byte(credential))
	now := c.now()
	c.mu.Lock()
	e, ok := c.entries[id]
	if ok && !now.Before(e.until) {
		delete(c.entries, id)
		ok = false
	}
	c.mu.Unlock()
	if ok {
		return e.p, e.err
	}

	p, err := c.next.Resolve(ctx, credential)
	if err != nil && (!errors.Is(err, ErrInvalidKey) || errors.Is(err, ErrNotYetValid)) {
		return p, err
	}
	until := now.Add(c.ttl)
	if err == nil && !p.Expiry.IsZero() && p.Expiry.Before(until) {
		until = p.Expiry
	}
	c.mu.Lock()
	c.makeRoom(now)
	c.entries[id] = cacheEntry{p: p, err: err, until: until}
	c.mu.Unlock()
	return p, err
}

// makeRoom drops entries until there is room for one more; c.mu is held.
func (c *Cache) makeRoom(now time.Time) {
	if len(c.entries) < c.max {
		return
	}
	for id, e := range c.entries {
		if !now.Before(e.until) {
			delete(c.entries, id)
		}
	}
	for id := range c.entries {
		if len(c.entries) < c.max {
			return
		}
		delete(c.entries, id)
	}
}
