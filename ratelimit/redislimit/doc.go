// Package redislimit counts rate limits in Redis, on ulule/limiter's Redis
// store, so that every replica of the status API using the same Redis (and
// prefix) shares each organization's budget: New returns a
// ratelimit.PlanLimiter on such a ratelimit.Counter.
//
// It is a package of its own so that a portal on the in-memory limiter
// (ratelimit.NewMemory) compiles neither go-redis nor ulule/limiter.
package redislimit
