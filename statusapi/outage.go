package statusapi

import (
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"
)

// UnavailableLogInterval is the least time between two log lines about an
// unavailable backend (a store, key store or limiter that is unreachable
// or too slow, answered 503 UNAVAILABLE). An outage is logged at its first
// failed request, then at most once per interval, each line with the
// number of requests answered 503 since the line before
// (failed_requests), so that an outage under load costs a few lines, not
// one per request.
const UnavailableLogInterval = 10 * time.Second

// pacer paces log lines about repeated events: the first is logged at
// once, then at most one per interval, each with the number of events
// since the line before. Its zero value has logged nothing yet. The
// handler paces its unavailable lines with one, and its lines about each
// refused key (refusedkeys.go).
type pacer struct {
	last  atomic.Int64 // when the last line was logged, Unix ns; 0: never
	count atomic.Int64 // events since that line
}

// tick counts one event at now and returns the number of events to log
// with, or 0 when no line is due within every of the last.
func (p *pacer) tick(now time.Time, every time.Duration) int64 {
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

// logUnavailable counts one request answered 503 for err and logs it,
// with the count, when no line was logged within UnavailableLogInterval
// on the handler's clock.
func (h *handler) logUnavailable(w http.ResponseWriter, r *http.Request, err error) {
	if n := h.outage.tick(h.cfg.now(), UnavailableLogInterval); n > 0 {
		h.log(r, w, slog.LevelError, "statusapi: backend unavailable, answering 503",
			"err", err.Error(), "failed_requests", n)
	}
}
