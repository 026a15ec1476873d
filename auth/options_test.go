package auth_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/option"
)

// panicMessage returns what f panics with, "" when it does not.
func panicMessage(f func()) (msg string) {
	defer func() {
		if v := recover(); v != nil {
			msg = fmt.Sprint(v)
		}
	}()
	f()
	return ""
}

// TestOptionsRefuseValuesWithoutDefault checks that a value no default
// stands for makes the constructor that reads the option panic, naming
// the option, that Validate returns the same error, and that the
// constructor that does not read it ignores it.
func TestOptionsRefuseValuesWithoutDefault(t *testing.T) {
	ks := newKeyStore()
	tests := []struct {
		opt           auth.Option
		want          string
		keys, caching bool // which constructor reads it
	}{
		{auth.WithFlushInterval(-time.Second), "auth: WithFlushInterval: -1s is negative", true, false},
		{auth.WithCacheTTL(-time.Nanosecond), "auth: WithCacheTTL: -1ns is negative", false, true},
		{auth.WithMaxEntries(-1), "auth: WithMaxEntries: -1 is negative", false, true},
	}
	pick := func(reads bool, want string) string {
		if reads {
			return want
		}
		return ""
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			is := is.New(t)
			is.Equal(panicMessage(func() { auth.NewKeys(ks, tt.opt) }), pick(tt.keys, tt.want))                   // NewKeys names the option it reads, and ignores the others
			is.Equal(panicMessage(func() { auth.NewCache(auth.NewKeys(ks), tt.opt) }), pick(tt.caching, tt.want)) // and so does NewCache
			var oe *option.Error
			is.True(errors.As(auth.Validate(tt.opt), &oe)) // Validate returns it, typed
			is.Equal(oe.Error(), tt.want)
		})
	}
}

// TestOptionsZeroMeansDefault checks that a zero value, a nil Option and an
// option a constructor does not read are no mistake.
func TestOptionsZeroMeansDefault(t *testing.T) {
	is := is.New(t)
	ks := newKeyStore()
	zeros := []auth.Option{
		auth.WithClock(nil), auth.WithLogger(nil), auth.WithFlushInterval(0),
		auth.WithCacheTTL(0), auth.WithMaxEntries(0), nil,
	}
	is.Equal(panicMessage(func() { auth.NewCache(auth.NewKeys(ks, zeros...), zeros...) }), "") // zero values are defaults
	unread := []auth.Option{auth.WithCacheTTL(time.Hour), auth.WithFlushInterval(time.Hour)}
	is.Equal(panicMessage(func() { auth.NewCache(auth.NewKeys(ks, unread...), unread...) }), "") // an option not read is ignored
}

// TestCacheTTLZeroIsDefault checks that WithCacheTTL(0) remembers answers
// for DefaultCacheTTL, and that a later option wins over an earlier one.
func TestCacheTTLZeroIsDefault(t *testing.T) {
	// The requests' context can end, so that the lookups they wait for
	// are told from the refreshes ahead that a request in the ttl's
	// second half starts in the background (countingResolver.Waited).
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for name, opts := range map[string][]auth.Option{
		"no option":        nil,
		"zero":             {auth.WithCacheTTL(0)},
		"zero after a ttl": {auth.WithCacheTTL(time.Hour), auth.WithCacheTTL(0)},
		"default given":    {auth.WithCacheTTL(auth.DefaultCacheTTL)},
	} {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			clk := newClock()
			keys, _ := newKeys(t, auth.WithClock(clk.Now))
			plain, _, err := keys.Mint(ctx, "org_a", "ci", nil)
			is.NoErr(err)
			newCache := func() (*auth.Cache, *countingResolver) {
				behind := &countingResolver{next: keys}
				c := auth.NewCache(behind, append([]auth.Option{auth.WithClock(clk.Now)}, opts...)...)
				t.Cleanup(func() { _ = c.Close() })
				return c, behind
			}

			c, behind := newCache()
			_, err = c.Resolve(ctx, plain)
			is.NoErr(err)
			clk.Advance(auth.DefaultCacheTTL - time.Nanosecond)
			_, err = c.Resolve(ctx, plain)
			is.NoErr(err)
			is.Equal(behind.Waited(), 1) // remembered until DefaultCacheTTL...

			c, behind = newCache() // nothing asked in between: no refresh ahead
			_, err = c.Resolve(ctx, plain)
			is.NoErr(err)
			clk.Advance(auth.DefaultCacheTTL)
			_, err = c.Resolve(ctx, plain)
			is.NoErr(err)
			is.Equal(behind.Waited(), 2) // ...and no longer
		})
	}
}
