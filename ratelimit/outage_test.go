package ratelimit_test

import (
	"errors"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/store"
)

func TestOutagePolicyText(t *testing.T) {
	is := is.New(t)
	for _, want := range []ratelimit.OutagePolicy{ratelimit.FailOpen, ratelimit.FailClosed} {
		text, err := want.MarshalText()
		is.NoErr(err)
		var got ratelimit.OutagePolicy
		is.NoErr(got.UnmarshalText(text))
		is.Equal(got, want) // round trip
	}
	var p ratelimit.OutagePolicy
	is.True(p.UnmarshalText([]byte("ajar")) != nil) // anything else is refused
	is.Equal(p, ratelimit.FailOpen)                 // and leaves the default
}

// isOutage asserts that Allow answered with policy's outage answer.
func isOutage(is *is.I, policy ratelimit.OutagePolicy, d ratelimit.Decision, err error) {
	is.Helper()
	if policy == ratelimit.FailClosed {
		is.True(errors.Is(err, ratelimit.ErrUnavailable)) // fail closed: 503
		is.True(errors.Is(err, store.ErrUnavailable))     // the module's one unavailability error
		return
	}
	is.NoErr(err)                    // fail open: served...
	is.True(d.Allowed && !d.Limited) // ...without a limit
}
