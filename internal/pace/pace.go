package pace

import (
	"sync/atomic"
	"time"
)

// Pacer lets the first of repeated events be logged at once, then at most
// one per interval, each line with the number of events since the line
// before. Its zero value has logged nothing yet; it is safe for concurrent
// use.
type Pacer struct {
	last  atomic.Int64 // when the last line was logged, Unix ns; 0: never
	count atomic.Int64 // events since that line
}

// Tick counts one event at now and returns the number of events to log
// with, or 0 when a line was logged within every of now.
func (p *Pacer) Tick(now time.Time, every time.Duration) int64 {
	p.count.Add(1)
	t := now.UnixNano()
	last := p.last.Load()
	if last != 0 && t-last < int64(every) {
		return 0
	}
	if !p.last.CompareAndSwap(last, t) {
		return 0 // another event is being logged
	}
	return p.count.Swap(0)
}
