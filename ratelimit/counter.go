package ratelimit

import (
	"context"
	"time"
)

// Counter counts requests in fixed windows, one count per key: where a
// PlanLimiter keeps its budgets. NewMemory's counts in this process;
// redislimit's counts in Redis, shared by replicas. Write one to count
// elsewhere, and pass it to New.
//
// The keys come from the PlanLimiter, "<prefix>:<plan>:<org id>" (see
// WithPrefix), and are used as they are.
//
// A Counter may block (wait on a network): PlanLimiter calls it on a
// goroutine of its own and waits at most the timeout (WithTimeout), even
// if it ignores ctx, unless New is given WithNonBlockingCounter. Any error means that
// the counter could not tell, and the OutagePolicy applies; no error value
// is special.
//
// Implementations are safe for concurrent use.
type Counter interface {
	// Take counts one request under key and reports the window it fell
	// in. When key has no window in progress, Take opens one of r.Period,
	// starting now. It counts past r.Limit too: the PlanLimiter gives a
	// refused request back with GiveBack.
	Take(ctx context.Context, key string, r Rate) (Window, error)
	// GiveBack uncounts one request of key's window in progress. It never
	// opens a window nor takes a count below zero: with no window in
	// progress, or nothing counted in it, it does nothing and returns nil.
	GiveBack(ctx context.Context, key string, r Rate) error
	// Peek reports key's window in progress, as Take would after counting
	// one request less: Count is what it holds (0 with no window in
	// progress) and End when it ends (zero with none). It never opens a
	// window nor changes a count. PlanLimiter.Peek reads through it.
	Peek(ctx context.Context, key string, r Rate) (Window, error)
	// Ping returns nil when the counter's store answers (at once for one
	// in memory), an error otherwise. PlanLimiter.Ping calls it.
	Ping(ctx context.Context) error
}

// Window is the state of a key's window after Counter.Take.
type Window struct {
	// Count is the number of requests counted in the window, the one just
	// taken included. Past the Rate's Limit only that it is past matters:
	// a counter may report any value above the Limit.
	Count int64
	// End is when the window ends and the count starts again from zero,
	// or a moment later: a counter that knows the end only to the second
	// reports the second after, never a time before the true end.
	End time.Time
}
