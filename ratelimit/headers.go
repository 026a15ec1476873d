package ratelimit

import (
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// WriteHeaders sets the rate-limit fields of a response from d, as of now:
// X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset (Unix seconds),
// the IETF RateLimit-Policy and RateLimit fields
// (draft-ietf-httpapi-ratelimit-headers), and Retry-After (seconds) when the
// request was refused. It sets nothing when no limit applied (!d.Limited).
func (d Decision) WriteHeaders(h http.Header, now time.Time) {
	if !d.Limited {
		return
	}
	untilReset := int64(d.Reset.Sub(now).Round(time.Second) / time.Second)
	window := int64(d.Window / time.Second)
	// Reset is rounded up to a whole second, so it may lie up to a second
	// past the window's true end; no wait is ever longer than the window.
	if window > 0 && untilReset > window {
		untilReset = window
	}
	if untilReset < 0 {
		untilReset = 0
	}
	remaining := d.Remaining
	if remaining < 0 {
		remaining = 0
	}
	h.Set("X-RateLimit-Limit", strconv.FormatInt(d.Limit, 10))
	h.Set("X-RateLimit-Remaining", strconv.FormatInt(remaining, 10))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(d.Reset.Unix(), 10))
	h.Set("RateLimit-Policy", fmt.Sprintf(`"plan";q=%d;w=%d`, d.Limit, window))
	h.Set("RateLimit", fmt.Sprintf(`"plan";r=%d;t=%d`, remaining, untilReset))
	if !d.Allowed {
		retry := untilReset
		if retry < 1 {
			retry = 1
		}
		h.Set("Retry-After", strconv.FormatInt(retry, 10))
	}
}
