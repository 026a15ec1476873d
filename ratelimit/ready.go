package ratelimit

import (
	"context"
	"fmt"
)

// Ping reports whether the limiter's store answers, for a readiness check
// (see statusapi.Ready). On Redis it sends a PING through the limiter's
// client, within the limiter's timeout (WithTimeout) and ctx, whatever the
// outage backoff says: a readiness probe sees Redis come back at once. In
// memory it returns nil. It counts nothing and leaves the outage state
// alone. The error wraps ErrUnavailable, whatever the OutagePolicy: with
// FailOpen the handler still serves (unlimited) while Ping fails, so a
// readiness check that should keep such a replica in service leaves the
// limiter out.
func (l *PlanLimiter) Ping(ctx context.Context) error {
	sctx, cancel := l.bound(ctx)
	defer cancel()
	_, err := call(sctx, l, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, l.counters.ping(ctx)
	})
	if err != nil {
		return fmt.Errorf("%w: ping: %w", ErrUnavailable, err)
	}
	return nil
}

func (m memoryCounters) ping(context.Context) error { return nil }

func (rc *redisCounters) ping(ctx context.Context) error { return rc.rdb.Ping(ctx).Err() }
