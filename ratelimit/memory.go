package ratelimit

import (
	"context"
	"maps"
	"sync"
	"time"
)

// NewMemory returns a PlanLimiter counting in this process's memory: right
// for one replica, tests and demos. Replicas behind a load balancer each
// count alone, so a client gets N times its plan across N of them: use
// redislimit there. Windows run on the limiter's clock (WithClock). Ended
// windows are swept every 30 seconds, by the request that finds the sweep
// due, so memory holds little more than the windows in progress.
func NewMemory(opts ...Option) *PlanLimiter {
	cfg := mustConfig(opts)
	cfg.direct = true // its counter answers at once (WithNonBlockingCounter)
	return newLimiter(newMemoryCounter(cfg.now), cfg)
}

// sweepInterval is how often a memoryCounter forgets the windows that have
// ended.
const sweepInterval = 30 * time.Second

// memoryCounter is NewMemory's Counter: one window per key in a map, under
// a mutex. It is ours rather than ulule's memory store, whose
// Increment(-1) on an ended window opens a new one at -1 (a free request),
// which GiveBack must never do.
type memoryCounter struct {
	now func() time.Time

	mu        sync.Mutex
	windows   map[string]window
	nextSweep time.Time // when Take next forgets ended windows
}

// window is a key's window: count requests since it began, until end.
type window struct {
	count int64
	end   time.Time
}

func newMemoryCounter(now func() time.Time) *memoryCounter {
	return &memoryCounter{now: now, windows: map[string]window{}}
}

// Take counts one request under key, opening a window of r.Period when the
// last one has ended (or there is none), and every sweepInterval forgets
// the windows that have ended.
func (m *memoryCounter) Take(_ context.Context, key string, r Rate) (Window, error) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if !now.Before(m.nextSweep) {
		m.sweep(now)
	}
	w, ok := m.windows[key]
	if !ok || !now.Before(w.end) {
		w = window{end: now.Add(r.Period)}
	}
	w.count++
	m.windows[key] = w
	return Window{Count: w.count, End: w.end}, nil
}

// GiveBack uncounts one request of key's window, if it has not ended and
// counted any.
func (m *memoryCounter) GiveBack(_ context.Context, key string, _ Rate) error {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	w, ok := m.windows[key]
	if !ok || !now.Before(w.end) || w.count <= 0 {
		return nil
	}
	w.count--
	m.windows[key] = w
	return nil
}

// Peek reports key's window in progress without counting: its count and
// end, or the zero Window when none is in progress.
func (m *memoryCounter) Peek(_ context.Context, key string, _ Rate) (Window, error) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	w, ok := m.windows[key]
	if !ok || !now.Before(w.end) {
		return Window{}, nil
	}
	return Window{Count: w.count, End: w.end}, nil
}

// Ping returns nil: memory is always there.
func (m *memoryCounter) Ping(context.Context) error { return nil }

// sweep forgets the windows that have ended by now. m.mu is held.
func (m *memoryCounter) sweep(now time.Time) {
	maps.DeleteFunc(m.windows, func(_ string, w window) bool { return !now.Before(w.end) })
	m.nextSweep = now.Add(sweepInterval)
}
