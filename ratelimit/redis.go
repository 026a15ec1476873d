package ratelimit

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/ulule/limiter/v3"
	redisstore "github.com/ulule/limiter/v3/drivers/store/redis"
)

// NewRedis returns a PlanLimiter counting in Redis, on ulule's Redis store,
// so that every replica using the same Redis (and prefix) shares each
// organization's budget. rdb may be a single node, a Sentinel or a Cluster
// client; NewRedis panics when it is nil.
//
// Each organization has one counter per window,
// "<prefix>:<plan>:<org id>" (see WithPrefix), created with a TTL of the
// plan's period, so Redis holds only the windows in progress. NewRedis does
// not contact Redis: a limiter made while Redis is down follows its
// OutagePolicy until Redis answers, then limits again by itself.
//
// A request waits at most the timeout (WithTimeout) for Redis. Set
// ContextTimeoutEnabled in the client's options so that a call abandoned at
// that timeout also gives its connection back at once; otherwise it
// finishes in the background within the client's ReadTimeout.
func NewRedis(rdb redis.UniversalClient, opts ...Option) *PlanLimiter {
	if rdb == nil {
		panic("ratelimit: NewRedis needs a Redis client")
	}
	cfg := newConfig(opts)
	return newLimiter(&redisCounters{rdb: rdb, prefix: cfg.prefix}, cfg)
}

type redisCounters struct {
	rdb    redis.UniversalClient
	prefix string

	store   atomic.Pointer[limiter.Store] // ulule's store, once its scripts are loaded
	mu      sync.Mutex
	loading chan struct{} // closed when the load in progress ends; nil if none
}

func (rc *redisCounters) Take(ctx context.Context, key string, r Rate) (Window, error) {
	s, err := rc.ulule(ctx)
	if err != nil {
		return Window{}, err
	}
	// ulule's store names a key "<prefix>:<key>" itself.
	c, err := s.Get(ctx, strings.TrimPrefix(key, rc.prefix+":"), limiter.Rate{Limit: r.Limit, Period: r.Period})
	if err != nil {
		return Window{}, err
	}
	count := c.Limit - c.Remaining
	if c.Reached {
		count = c.Limit + 1 // ulule tells only that the limit is passed
	}
	// ulule rounds the window's end down to the second: the true end lies
	// within the second after.
	return Window{Count: count, End: time.Unix(c.Reset+1, 0)}, nil
}

// ulule returns ulule's Redis store, making it on first success: making it
// loads its scripts into Redis, which fails while Redis is down. (The store
// reloads them itself when Redis loses them.) One call loads at a time; the
// others wait for it, or for ctx.
func (rc *redisCounters) ulule(ctx context.Context) (limiter.Store, error) {
	for {
		if s := rc.store.Load(); s != nil {
			return *s, nil
		}
		rc.mu.Lock()
		if wait := rc.loading; wait != nil {
			rc.mu.Unlock()
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		done := make(chan struct{})
		rc.loading = done
		rc.mu.Unlock()

		s, err := redisstore.NewStoreWithOptions(rc.rdb, limiter.StoreOptions{Prefix: rc.prefix})
		if err == nil {
			rc.store.Store(&s)
		}
		rc.mu.Lock()
		rc.loading = nil
		rc.mu.Unlock()
		close(done)
		return s, err
	}
}

// giveBackScript decrements a counter that exists and is above zero. DECR
// keeps the key's TTL. ulule's Increment(-1) would instead create a missing
// (expired) counter at -1: a free request in the next window.
var giveBackScript = redis.NewScript(`
local v = tonumber(redis.call("get", KEYS[1]))
if v and v > 0 then
	return redis.call("decr", KEYS[1])
end
return 0
`)

func (rc *redisCounters) GiveBack(ctx context.Context, key string, _ Rate) error {
	return giveBackScript.Run(ctx, rc.rdb, []string{key}).Err()
}
