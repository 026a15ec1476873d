package auth

import (
	"context"
	"maps"
	"slices"
	"sync"
)

// AllOrganizations is the organization id that stands for every
// organization: an Invalidations that may have missed changes (its
// connection dropped) reports it, and a Cache told of it forgets
// everything it remembers. No organization has it: an id is never empty.
const AllOrganizations = ""

// Invalidations reports organizations whose keys or account changed (a key
// revoked or deleted, the organization deleted, its plan, retainer or API
// access changed), so that caches forget what they remember of them.
//
// Subscribe registers fn, to be called with the id of each such
// organization, or with AllOrganizations when changes may have been missed,
// until stop is called; stop may be called more than once. fn may be called
// on any goroutine, also while stop runs, but not after stop has returned
// unless a report was already under way; it must return quickly and must
// not call Subscribe or stop. Implementations are safe for concurrent use.
//
// Keys is one (it reports its revocations, and relays its KeyStore's and
// its Publisher's reports when they are Invalidations), as are
// MemoryKeyStore, Broadcast, bunstore's Store (PostgreSQL LISTEN) and
// auth/redisinvalidate's Channel (Redis pub/sub). A Cache subscribes to the
// resolver it is given when that is one, and to those of
// WithInvalidations.
type Invalidations interface {
	Subscribe(fn func(orgID string)) (stop func())
}

// Publisher tells the caches of other processes that an organization's
// keys or account changed, for deployments whose replicas share a channel
// (auth/redisinvalidate) but whose KeyStore does not report changes
// itself. Keys publishes each revocation to the Publisher of
// WithPublisher; a portal publishes the changes it makes to organizations
// itself.
//
// Publish returns an error when the message could not be sent (it wraps
// ErrUnavailable); the change is then seen elsewhere within the caches'
// ttl. Implementations are safe for concurrent use.
//
// Subscribe (Invalidations) reports what the other processes publish, so
// that Keys relays their revocations to this process's caches.
type Publisher interface {
	Publish(ctx context.Context, orgID string) error
	Invalidations
}

// Broadcast is an in-process Invalidations: Publish reports an
// organization to every subscriber at once, on the publishing goroutine.
// Keys and MemoryKeyStore report their changes through one each; a portal
// with a KeyResolver of its own can use one to tell its caches. It is safe
// for concurrent use; the zero value is not usable, call NewBroadcast.
type Broadcast struct {
	mu   sync.Mutex
	subs map[uint64]func(orgID string)
	next uint64
}

var _ Invalidations = (*Broadcast)(nil)

// NewBroadcast returns a Broadcast without subscribers.
func NewBroadcast() *Broadcast {
	return &Broadcast{subs: make(map[uint64]func(string))}
}

// Publish calls every subscriber with orgID (AllOrganizations: every
// organization), one after the other, and returns when they have all
// returned.
func (b *Broadcast) Publish(orgID string) {
	b.mu.Lock()
	fns := slices.Collect(maps.Values(b.subs))
	b.mu.Unlock()
	for _, fn := range fns {
		fn(orgID)
	}
}

// Subscribe registers fn until stop is called (see Invalidations). It
// panics if fn is nil.
func (b *Broadcast) Subscribe(fn func(orgID string)) (stop func()) {
	if fn == nil {
		panic("auth: Broadcast.Subscribe needs a function")
	}
	b.mu.Lock()
	id := b.next
	b.next++
	b.subs[id] = fn
	b.mu.Unlock()
	return sync.OnceFunc(func() {
		b.mu.Lock()
		delete(b.subs, id)
		b.mu.Unlock()
	})
}

// subscribeAll subscribes fn to each of invs that is not nil, and returns
// one stop for all.
func subscribeAll(fn func(orgID string), invs ...Invalidations) (stop func()) {
	var stops []func()
	for _, inv := range invs {
		if inv != nil {
			stops = append(stops, inv.Subscribe(fn))
		}
	}
	return sync.OnceFunc(func() {
		for _, s := range stops {
			s()
		}
	})
}
