package redislimit

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/ulule/limiter/v3"
	redisstore "github.com/ulule/limiter/v3/drivers/store/redis"

	"github.com/clientstatus/clientstatus/ratelimit"
)

// New returns a PlanLimiter counting in Redis through rdb, configured by
// opts (see ratelimit.Option). rdb may be a single node, a Sentinel or a
// Cluster client; New panics when it is nil.
//
// Each organization has one counter per window, "<prefix>:<plan>:<org id>"
// (see ratelimit.WithPrefix), created with a TTL of the plan's period, so
// Redis holds only the windows in progress. New does not contact Redis: a
// limiter made while Redis is down follows its OutagePolicy until Redis
// answers, then limits again by itself. Its Ping sends a Redis PING.
//
// A request waits at most the timeout (ratelimit.WithTimeout) for Redis.
// Set ContextTimeoutEnabled in the client's options so that a call
// abandoned at that timeout also gives its connection back at once;
// otherwise it finishes in the background within the client's ReadTimeout.
func New(rdb redis.UniversalClient, opts ...ratelimit.Option) *ratelimit.PlanLimiter {
	if rdb == nil {
		panic("redislimit: New needs a Redis client")
	}
	c := &counter{rdb: rdb}
	l := ratelimit.New(c, opts...)
	// Before any call: no one else holds l yet.
	c.prefix = l.Prefix()
	return l
}

// counter is New's ratelimit.Counter: ulule's Redis store, loaded lazily,
// and a script to give a request back, which ulule lacks.
type counter struct {
	rdb    redis.UniversalClient
	prefix string // the limiter's, which ulule's store writes itself

	store   atomic.Pointer[limiter.Store] // ulule's store, once its scripts are loaded
	mu      sync.Mutex
	loading chan struct{} // closed when the load in progress ends; nil if none
}

var (
	_ ratelimit.Counter = (*counter)(nil)
)

// Take counts one request in Redis. key is "<prefix>:<plan>:<org id>".
func (c *counter) Take(ctx context.Context, key string, r ratelimit.Rate) (ratelimit.Window, error) {
	s, err := c.ulule(ctx)
	if err != nil {
		return ratelimit.Window{}, err
	}
	// ulule's store names a key "<its prefix>:<key>": give it the rest.
	lc, err := s.Get(ctx, strings.TrimPrefix(key, c.prefix+":"), limiter.Rate{Limit: r.Limit, Period: r.Period})
	if err != nil {
		return ratelimit.Window{}, err
	}
	count := lc.Limit - lc.Remaining
	if lc.Reached {
		count = lc.Limit + 1 // ulule tells only that the limit is passed
	}
	// ulule rounds the window's end down to the second: the true end lies
	// within the second after.
	return ratelimit.Window{Count: count, End: time.Unix(lc.Reset+1, 0)}, nil
}

// ulule returns ulule's Redis store, making it on first success: making it
// loads its scripts into Redis, which fails while Redis is down. (The store
// reloads them itself when Redis loses them.) One call loads at a time; the
// others wait for it, or for ctx.
func (c *counter) ulule(ctx context.Context) (limiter.Store, error) {
	for {
		if s := c.store.Load(); s != nil {
			return *s, nil
		}
		c.mu.Lock()
		if wait := c.loading; wait != nil {
			c.mu.Unlock()
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		done := make(chan struct{})
		c.loading = done
		c.mu.Unlock()

		s, err := redisstore.NewStoreWithOptions(c.rdb, limiter.StoreOptions{Prefix: c.prefix})
		if err == nil {
			c.store.Store(&s)
		}
		c.mu.Lock()
		c.loading = nil
		c.mu.Unlock()
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

// GiveBack uncounts one request of key's window, if it has one.
func (c *counter) GiveBack(ctx context.Context, key string, _ ratelimit.Rate) error {
	return giveBackScript.Run(ctx, c.rdb, []string{key}).Err()
}

// peekScript reads a counter and the milliseconds left in its window, in
// one round trip: {0, -1} when there is no window in progress (no key, or
// one without an expiry, which ulule never leaves).
var peekScript = redis.NewScript(`
local v = tonumber(redis.call("get", KEYS[1]))
local ttl = redis.call("pttl", KEYS[1])
if not v or ttl < 0 then
	return {0, -1}
end
return {v, ttl}
`)

// Peek reads key's window in progress without counting in it.
func (c *counter) Peek(ctx context.Context, key string, _ ratelimit.Rate) (ratelimit.Window, error) {
	res, err := peekScript.Run(ctx, c.rdb, []string{key}).Int64Slice()
	if err != nil {
		return ratelimit.Window{}, err
	}
	if len(res) != 2 || res[1] < 0 {
		return ratelimit.Window{}, nil
	}
	// Read after the answer, now is at or past the time Redis measured
	// the TTL from: the end is the true one or a moment later.
	return ratelimit.Window{Count: res[0], End: time.Now().Add(time.Duration(res[1]) * time.Millisecond)}, nil
}

// Ping sends Redis a PING.
func (c *counter) Ping(ctx context.Context) error {
	return c.rdb.Ping(ctx).Err()
}
