package ratelimit_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/ratelimit"
)

func TestWriteHeaders(t *testing.T) {
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	reset := now.Add(30 * time.Second)
	tests := []struct {
		name string
		d    ratelimit.Decision
		want map[string]string // "" means absent
	}{
		{
			name: "allowed",
			d:    ratelimit.Decision{Limited: true, Allowed: true, Limit: 60, Remaining: 59, Reset: reset, Window: time.Minute},
			want: map[string]string{
				"X-RateLimit-Limit":     "60",
				"X-RateLimit-Remaining": "59",
				"X-RateLimit-Reset":     "1772355630", // Unix seconds
				"RateLimit-Policy":      `"plan";q=60;w=60`,
				"RateLimit":             `"plan";r=59;t=30`,
				"Retry-After":           "",
			},
		},
		{
			name: "refused",
			d:    ratelimit.Decision{Limited: true, Allowed: false, Limit: 300, Remaining: 0, Reset: reset, Window: time.Minute},
			want: map[string]string{
				"X-RateLimit-Limit":     "300",
				"X-RateLimit-Remaining": "0",
				"RateLimit-Policy":      `"plan";q=300;w=60`,
				"RateLimit":             `"plan";r=0;t=30`,
				"Retry-After":           "30",
			},
		},
		{
			name: "refused as the window ends",
			d:    ratelimit.Decision{Limited: true, Allowed: false, Limit: 60, Remaining: -3, Reset: now.Add(-time.Second), Window: time.Minute},
			want: map[string]string{
				"X-RateLimit-Remaining": "0",              // never negative
				"RateLimit":             `"plan";r=0;t=0`, // never negative
				"Retry-After":           "1",              // at least a second
			},
		},
		{
			name: "unlimited",
			d:    ratelimit.Decision{Allowed: true},
			want: map[string]string{
				"X-RateLimit-Limit": "", "X-RateLimit-Remaining": "", "X-RateLimit-Reset": "",
				"RateLimit-Policy": "", "RateLimit": "", "Retry-After": "",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			h := http.Header{}
			tt.d.WriteHeaders(h, now)
			for name, want := range tt.want {
				is.Equal(h.Get(name), want) // header value
			}
		})
	}
}

func TestWriteHeadersNeverWaitsLongerThanTheWindow(t *testing.T) {
	is := is.New(t)
	now := time.Unix(1_700_000_000, 400_000_000)
	d := ratelimit.Decision{Limited: true, Allowed: false, Limit: 60, Remaining: 0,
		Reset: time.Unix(1_700_000_061, 0), Window: time.Minute}
	h := http.Header{}
	d.WriteHeaders(h, now)
	is.Equal(h.Get("Retry-After"), "60")            // a reset rounded up must not ask for 61s in a 60s window
	is.Equal(h.Get("RateLimit"), `"plan";r=0;t=60`) // t is capped the same way
}
