package ratelimit

import (
	"context"

	"github.com/ulule/limiter/v3"
	"github.com/ulule/limiter/v3/drivers/store/memory"
)

// NewMemory returns a PlanLimiter counting in this process's memory, on
// ulule's memory store: right for one replica, tests and demos. Replicas
// behind a load balancer each count alone, so a client gets N times its plan
// across N of them: use NewRedis there. Expired windows are swept every 30
// seconds.
func NewMemory(opts ...Option) *PlanLimiter {
	l := newPlanLimiter(opts)
	l.counters = memoryCounters{memory.NewStoreWithOptions(limiter.StoreOptions{
		Prefix:          l.cfg.prefix,
		CleanUpInterval: limiter.DefaultCleanUpInterval,
	})}
	return l
}

type memoryCounters struct{ store limiter.Store }

func (m memoryCounters) take(ctx context.Context, key string, r limiter.Rate) (limiter.Context, error) {
	return m.store.Get(ctx, key, r)
}

// giveBack peeks first, because ulule's memory store answers Increment(-1)
// on an expired counter by opening a window at -1 (a free request). A window
// that ends between the peek and the increment can still do so: the race
// is nanoseconds wide and costs at most one request.
func (m memoryCounters) giveBack(ctx context.Context, key string, r limiter.Rate) error {
	c, err := m.store.Peek(ctx, key, r)
	if err != nil || (c.Remaining == c.Limit && !c.Reached) {
		return err // no request counted in this window
	}
	_, err = m.store.Increment(ctx, key, -1, r)
	return err
}
