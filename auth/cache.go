package auth

import (
	"context"
	"crypto/sha256"
	"errors"
	"sync"
	"time"
)

// DefaultCacheTTL is the ttl of a Cache given no WithCacheTTL. It bounds
// how long a change that no Invalidations reported is still served:
// revoking a key, or turning its account's retainer or API access off,
// while the channel that reports it is down (or where there is none).
const DefaultCacheTTL = 30 * time.Second

// DefaultCacheSize is how many credentials a Cache remembers at most.
const DefaultCacheSize = 10000

// Cache is a KeyResolver that remembers the answers of another, a
// principal or a refusal, for its ttl (WithCacheTTL), keyed by the
// credential's SHA-256. It forgets an organization's principals as soon as
// an Invalidations reports it (the resolver it wraps, when that is one,
// and those of WithInvalidations), forgets everything when a channel
// reconnects, and drops a principal at its Expiry. Failures are never
// remembered. A principal asked for in the second half of its ttl is
// looked up again in the background. At most WithMaxEntries are kept.
// How soon a revocation takes effect, and why: docs/keys.md.
//
// Each process has its own Cache. It is safe for concurrent use; Close
// ends its subscriptions.
type Cache struct {
	next KeyResolver
	ttl  time.Duration
	max  int
	now  func() time.Time
	stop func() // ends the subscriptions
	// invs are what the cache forgets on: next and WithInvalidations'.
	invs []Invalidations
	// forgot reports each of their reports once the cache has forgotten
	// it (Subscribe).
	forgot *Broadcast

	mu      sync.Mutex
	entries map[[sha256.Size]byte]cacheEntry
	byOrg   map[string]map[[sha256.Size]byte]struct{} // principals' entries by organization
	// epoch counts invalidations: an answer looked up across one that
	// concerns it is not remembered. allAt is the epoch of the last
	// report of every organization; orgAt, the epoch of each
	// organization's last report while lookups (counted by lookups) were
	// under way, cleared when none is.
	epoch   uint64
	allAt   uint64
	orgAt   map[string]uint64
	lookups int
	// refreshing are the entries being looked up again (refreshAhead).
	refreshing map[[sha256.Size]byte]bool
}

type cacheEntry struct {
	p     Principal
	err   error // nil or one wrapping ErrInvalidKey
	until time.Time
}

var _ KeyResolver = (*Cache)(nil)

// NewCache returns a Cache in front of r. It reads the options
// WithCacheTTL (how long an answer is remembered, DefaultCacheTTL by
// default), WithMaxEntries, WithClock and WithInvalidations, and ignores
// the others, unchecked. When r is an Invalidations (Keys is, and so is a
// Chain), the cache subscribes to it as well, so that auth.NewCache(keys)
// forgets a key Keys revokes with no other wiring; Close ends the
// subscriptions. It panics if r is nil, and with an *option.Error if an
// option it reads is given a value no default stands for (see Option).
func NewCache(r KeyResolver, opts ...Option) *Cache {
	if r == nil {
		panic("auth: NewCache needs a KeyResolver")
	}
	c := newConfig(opts)
	if err := c.cacheCheck.Err(); err != nil {
		panic(err)
	}
	cache := &Cache{
		next:       r,
		ttl:        c.cacheTTL,
		max:        c.maxEntries,
		now:        c.now,
		entries:    make(map[[sha256.Size]byte]cacheEntry),
		byOrg:      make(map[string]map[[sha256.Size]byte]struct{}),
		refreshing: make(map[[sha256.Size]byte]bool),
		forgot:     NewBroadcast(),
	}
	cache.invs = append([]Invalidations{r}, c.invalidations...)
	cache.stop = subscribeAll(cache.report, cache.invs...)
	return cache
}

// credentialID is the SHA-256 of a credential, the key of the cache's
// entries, hashed without an allocation up to 128 bytes.
func credentialID(credential string) [sha256.Size]byte {
	var buf [128]byte
	if len(credential) <= len(buf) {
		return sha256.Sum256(append(buf[:0], credential...))
	}
	return sha256.Sum256([]byte(credential))
}

// Resolve answers from the cache when it can, else asks the resolver
// behind. A principal is remembered until the earlier of ttl and its
// Expiry, or until its organization is reported changed; a refusal
// (ErrInvalidKey) for ttl, unless it wraps ErrNotYetValid.
func (c *Cache) Resolve(ctx context.Context, credential string) (Principal, error) {
	id := credentialID(credential)
	now := c.now()
	c.mu.Lock()
	e, ok := c.entries[id]
	if ok && !now.Before(e.until) {
		c.drop(id)
		ok = false
	}
	epoch := c.epoch
	if !ok {
		c.lookups++
	}
	c.mu.Unlock()
	if ok {
		if e.err == nil && e.until.Sub(now) < c.ttl/2 && !e.until.Equal(e.p.Expiry) {
			c.refreshAhead(ctx, id, credential)
		}
		return e.p, e.err
	}
	p, err := c.next.Resolve(ctx, credential)
	return p, c.remember(id, p, err, now, epoch)
}

// refreshAhead looks id's principal up again in the background, once at
// a time, while the entry still answers: a credential in use is looked up
// again in its ttl's second half, so that a client polling more often
// than the ttl never waits for the key store, and a change no
// Invalidations reported is still seen within the ttl. The lookup keeps
// ctx's values, not its cancellation: it outlives the request.
func (c *Cache) refreshAhead(ctx context.Context, id [sha256.Size]byte, credential string) {
	c.mu.Lock()
	if c.refreshing[id] {
		c.mu.Unlock()
		return
	}
	c.refreshing[id] = true
	epoch := c.epoch
	c.lookups++
	c.mu.Unlock()
	go func() {
		now := c.now()
		p, err := c.next.Resolve(context.WithoutCancel(ctx), credential)
		_ = c.remember(id, p, err, now, epoch)
		c.mu.Lock()
		delete(c.refreshing, id)
		c.mu.Unlock()
	}()
}

// remember keeps the answer p, err of id's lookup, started at now in
// epoch, as Cache says (not a failure, not across an invalidation that
// concerns it), and returns err. It ends the lookup.
func (c *Cache) remember(id [sha256.Size]byte, p Principal, err error, now time.Time, epoch uint64) error {
	keep := err == nil || (errors.Is(err, ErrInvalidKey) && !errors.Is(err, ErrNotYetValid))
	until := now.Add(c.ttl)
	if err == nil && !p.Expiry.IsZero() && p.Expiry.Before(until) {
		until = p.Expiry
	}
	c.mu.Lock()
	if err == nil {
		keep = keep && c.allAt <= epoch && c.orgAt[p.Org.ID] <= epoch
	} else {
		keep = keep && c.epoch == epoch // a refusal has no organization: any report may concern it
	}
	if c.lookups--; c.lookups <= 0 {
		c.lookups = 0
		clear(c.orgAt)
	}
	if keep {
		c.drop(id)
		c.makeRoom(now)
		c.entries[id] = cacheEntry{p: p, err: err, until: until}
		if err == nil {
			ids := c.byOrg[p.Org.ID]
			if ids == nil {
				ids = make(map[[sha256.Size]byte]struct{})
				c.byOrg[p.Org.ID] = ids
			}
			ids[id] = struct{}{}
		}
	}
	c.mu.Unlock()
	return err
}

// Forget drops the principals the cache remembers of the organization, so
// that its next request is looked up again; AllOrganizations drops every
// entry, refusals included. Refusals are kept otherwise (see Cache). A
// principal of the organization being looked up while Forget runs is not
// remembered, nor is a refusal. The cache
// calls it for each report of its Invalidations; a portal may call it too.
func (c *Cache) Forget(orgID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	if orgID == AllOrganizations {
		c.allAt = c.epoch
		clear(c.orgAt)
		clear(c.entries)
		clear(c.byOrg)
		return
	}
	if c.lookups > 0 {
		switch {
		case len(c.orgAt) >= c.max: // bounded: the lookups under way are not remembered
			c.allAt = c.epoch
			clear(c.orgAt)
		case c.orgAt == nil:
			c.orgAt = map[string]uint64{orgID: c.epoch}
		default:
			c.orgAt[orgID] = c.epoch
		}
	}
	for id := range c.byOrg[orgID] {
		delete(c.entries, id)
	}
	delete(c.byOrg, orgID)
}

// Close ends the cache's subscriptions to its Invalidations, so that a
// PostgreSQL or Redis channel that no other cache uses stops listening and
// gives its connection back. The cache keeps answering, with its ttl as
// its only bound. Close may be called more than once; it returns nil.
func (c *Cache) Close() error {
	c.stop()
	return nil
}

// drop removes the entry id, if any, and its place in the index; c.mu is
// held.
func (c *Cache) drop(id [sha256.Size]byte) {
	e, ok := c.entries[id]
	if !ok {
		return
	}
	delete(c.entries, id)
	if ids := c.byOrg[e.p.Org.ID]; e.err == nil {
		delete(ids, id) // none when ids is nil
		if len(ids) == 0 {
			delete(c.byOrg, e.p.Org.ID)
		}
	}
}

// makeRoom drops entries until there is room for one more; c.mu is held.
func (c *Cache) makeRoom(now time.Time) {
	if len(c.entries) < c.max {
		return
	}
	for id, e := range c.entries {
		if !now.Before(e.until) {
			c.drop(id)
		}
	}
	for id := range c.entries {
		if len(c.entries) < c.max {
			return
		}
		c.drop(id)
	}
}

// report forgets orgID and reports it to c's subscribers.
func (c *Cache) report(orgID string) {
	c.Forget(orgID)
	c.forgot.Publish(orgID)
}

// Subscribe reports what c forgets on: what its resolver reports and the
// Invalidations of WithInvalidations, so that a cache in front of c (or a
// portal's own) forgets with it. Each report comes once c has forgotten
// it, so that a Resolve it prompts sees the change; after Close, none
// comes.
func (c *Cache) Subscribe(fn func(orgID string)) (stop func()) {
	if fn == nil {
		panic("auth: Cache.Subscribe needs a function")
	}
	return c.forgot.Subscribe(fn)
}
