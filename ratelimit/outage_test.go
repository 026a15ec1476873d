package ratelimit_test

import (
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/ratelimit"
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
