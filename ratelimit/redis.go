package ratelimit

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

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
// Each call waits at most the timeout (WithTimeout). Set the client's
// ContextTimeoutEnabled, as examples/server does, so that a call abandoned
// at that timeout also stops using its connection; otherwise it finishes in
// the background within the client's ReadTimeout.
func NewRedis(rdb redis.UniversalClient, opts ...Option) *PlanLimiter {
	if rdb == nil {
		panic("ratelimit: NewRedis needs a Redis client")
	}
	l := newPlanLimiter(opts)
	l.counters = &redisCounters{rdb: rdb, prefix: l.prefix}
	l.blocking = true
	return l
}

type redisCounters struct {
	rdb    redis.UniversalClient
	prefix string

	loading sync.Mutex
	store   atomic.Pointer[limiter.Store] // ulule's store, once its scripts are loaded
}

// errLoading fails the calls made while another one loads ulule's scripts.
var errLoading = errors.New("ratelimit: connecting to Redis")

func (rc *redisCounters) take(ctx context.Context, key string, r limiter.Rate) (limiter.Context, error) {
	s, err := rc.ulule()
	if err != nil {
		return limiter.Context{}, err
	}
	return s.Get(ctx, key, r)
}

// ulule returns ulule's Redis store, making it on first success: making it
// loads its scripts into Redis, which fails while Redis is down. (The store
// reloads them itself when Redis loses them.) One call tries at a time;
// the others fail at once rather than queue behind it while Redis is down.
func (rc *redisCounters) ulule() (limiter.Store, error) {
	if s := rc.store.Load(); s != nil {
		return *s, nil
	}
	if !rc.loading.TryLock() {
		return nil, errLoading
	}
	defer rc.loading.Unlock()
	if s := rc.store.Load(); s != nil {
		return *s, nil
	}
	s, err := redisstore.NewStoreWithOptions(rc.rdb, limiter.StoreOptions{Prefix: rc.prefix})
	if err != nil {
		return nil, err
	}
	rc.store.Store(&s)
	return s, nil
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

func (rc *redisCounters) giveBack(ctx context.Context, key string, _ limiter.Rate) error {
	// ulule's store names a key "<prefix>:<key>".
	return giveBackScript.Run(ctx, rc.rdb, []string{rc.prefix + ":" + key}).Err()
}
