package statusapi

import (
	"log/slog"
	"net/http"
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

// logUnavailable counts one request answered 503 for err and logs it,
// with the count, when no line was logged within UnavailableLogInterval
// on the handler's clock.
func (h *handler) logUnavailable(w http.ResponseWriter, r *http.Request, err error) {
	if n := h.outage.Tick(h.cfg.now(), UnavailableLogInterval); n > 0 {
		h.log(r, w, slog.LevelError, "statusapi: backend unavailable, answering 503",
			"err", err.Error(), "failed_requests", n)
	}
}
