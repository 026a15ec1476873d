package webhook

import (
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"time"
)

// DefaultSchedule is the delays between attempts: after the first attempt fails, about 5 s, then 5 min,
// 30 min, 2 h, 5 h, 10 h and 10 h; eight attempts in all, over about a
// day and a quarter.
var DefaultSchedule = []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute,
	2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour}

// DisableAfter is how long an endpoint may fail continuously (no attempt
// succeeding) before it is disabled.
const DisableAfter = 5 * 24 * time.Hour

// jitter returns d moved by a random 10 to 20 per cent, up or down, so
// that the retries of many failed deliveries do not arrive together.
func jitter(d time.Duration) time.Duration {
	f := 0.1 + rand.Float64()*0.1
	if rand.IntN(2) == 0 {
		f = -f
	}
	return d + time.Duration(float64(d)*f)
}

// retryAfter reads a Retry-After header (seconds or an HTTP date, at now):
// 0 when absent or unreadable.
func retryAfter(h http.Header, now time.Time) time.Duration {
	v := h.Get("Retry-After")
	if s, err := strconv.Atoi(v); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// nextDelay returns the delay before the attempt after attempt number n
// (from 1) failed, and false when n was the last. A Retry-After longer
// than the scheduled delay is honoured up to the schedule's longest step,
// so a receiver can slow its retries but never stall them.
func nextDelay(schedule []time.Duration, n int, after time.Duration) (time.Duration, bool) {
	if n > len(schedule) {
		return 0, false
	}
	d := jitter(schedule[n-1])
	if after > d {
		d = min(after, slices.Max(schedule))
	}
	return d, true
}
