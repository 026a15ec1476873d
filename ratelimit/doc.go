// Package ratelimit enforces each organization's plan budget (starter 60
// and growth 300 requests a minute, enterprise unlimited). A PlanLimiter
// applies the budgets and keeps its counts in a Counter: NewMemory counts
// in this process, for one replica; redislimit.New (package
// ratelimit/redislimit) counts in Redis, shared by replicas; New takes any
// other. This package imports neither a Redis client nor ulule/limiter, so
// that a portal on the memory limiter compiles none of them.
//
// Budgets are per organization: all its keys share one. Windows are fixed,
// starting at an organization's first request. Each window is one count,
// under the key "clientstatus:ratelimit:<plan>:<org id>" (see WithPrefix);
// in Redis it expires with the window.
//
// When the counter fails or does not answer within the timeout (100ms
// unless WithTimeout), the OutagePolicy applies: FailOpen (the default)
// serves the request without limit headers and logs a warning at most
// every WarnInterval; FailClosed makes Allow return ErrUnavailable (503).
// After such a failure the limiter leaves the counter alone for a backoff
// period (1s unless WithOutageBackoff), then lets one request at a time
// probe it: during an outage only one request per backoff period waits for
// the counter; the others get the policy at once, and Refund does nothing.
// The limiter recovers by itself when a probe finds the counter answering
// again. (The memory counter never fails.)
//
// Every Limiter declares Peek, which reads an organization's budget
// without spending it (GET /v1/rate_limit); PlanLimiter's reads its
// Counter's Peek.
//
// Options follow the module's one policy (package option).
package ratelimit
