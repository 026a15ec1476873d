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

// outageLog paces the handler's unavailable lines (see
// UnavailableLogInterval). Its zero value has logged nothing yet.
type outageLog struct {
	last   atomic.Int64 // when the last line was logged, Unix ns; 0: never
	failed atomic.Int64 // requests answered 503 since that line
}

// logUnavailable counts one request answered 503 for err and logs it,
// with the count, when no line was logged within UnavailableLogInterval
// on the handler's clock.
func (h *handler) logUnavailable(w http.ResponseWriter, r *http.Request, err error) {
	o := &h.outage
	o.failed.Add(1)
	now := h.cfg.now().UnixNano()
	last := o.last.Load()
	if last != 0 && now-last < int64(UnavailableLogInterval) {
		return
	}
	if !o.last.CompareAndSwap(last, now) {
		return // another request is logging this one
	}
	h.log(r, w, slog.LevelError, "statusapi: backend unavailable, answering 503",
		"err", err.Error(), "failed_requests", o.failed.Swap(0))
}
