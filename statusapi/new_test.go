package statusapi_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/statusapi"
)

// quiet keeps the handlers of New's own tests, made without the harness,
// from logging.
var quiet = statusapi.WithLogger(slog.New(slog.DiscardHandler))

func TestNewRefusesBadSetup(t *testing.T) {
	st := memstore.New()
	keys := auth.ResolverFunc(func(context.Context, string) (auth.Principal, error) { return auth.Principal{}, auth.ErrInvalidKey })
	lim := ratelimit.NewMemory()
	for _, tc := range []struct {
		name, panic string
		new         func()
	}{
		{"nil store", "nil store.Store", func() { statusapi.New(nil, keys, lim) }},
		{"nil resolver", "nil auth.KeyResolver", func() { statusapi.New(st, nil, lim) }},
		{"nil limiter", "nil ratelimit.Limiter", func() { statusapi.New(st, keys, nil) }},
		{"short signing key", "WithSigningKey: the key is 15 bytes", func() {
			statusapi.New(st, keys, lim, statusapi.WithSigningKey([]byte("fifteen bytes!!")))
		}},
		{"signing key under 32 bytes", "WithSigningKey: the key is 31 bytes; use at least 32 random bytes", func() {
			statusapi.New(st, keys, lim, statusapi.WithSigningKey([]byte("0123456789abcdef0123456789abcde")))
		}},
		{"public URL without scheme", "WithPublicURL", func() {
			statusapi.New(st, keys, lim, quiet, statusapi.WithPublicURL("portal.example.com/api"))
		}},
		{"public URL with a query", "WithPublicURL", func() {
			statusapi.New(st, keys, lim, quiet, statusapi.WithPublicURL("https://x.example/api?x=1"))
		}},
		{"link TTL under a second", "WithLinkTTL", func() {
			statusapi.New(st, keys, lim, quiet, statusapi.WithLinkTTL(time.Millisecond))
		}},
		{"negative timeout", "WithTimeout: -1s is negative", func() { statusapi.New(st, keys, lim, quiet, statusapi.WithTimeout(-time.Second)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			defer func() {
				v := recover()
				is.True(v != nil)                                  // New panics
				is.True(strings.Contains(fmt.Sprint(v), tc.panic)) // with a message that says why
			}()
			tc.new()
		})
	}
}

// TestValidate shows that Validate returns the error New would panic
// with, so that a program can refuse a bad setting without a panic, and
// nil for a good setup in which zero values keep the defaults.
func TestValidate(t *testing.T) {
	is := is.New(t)
	st := memstore.New()
	keys := auth.ResolverFunc(func(context.Context, string) (auth.Principal, error) { return auth.Principal{}, auth.ErrInvalidKey })
	lim := ratelimit.NewMemory()
	err := statusapi.Validate(st, keys, lim, statusapi.WithSigningKey([]byte("fifteen bytes!!")))
	is.True(err != nil && strings.Contains(err.Error(), "WithSigningKey")) // names the option
	var panicked any
	func() {
		defer func() { panicked = recover() }()
		statusapi.New(st, keys, lim, statusapi.WithSigningKey([]byte("fifteen bytes!!")))
	}()
	is.Equal(fmt.Sprint(panicked), err.Error())        // New panics with exactly that error
	is.True(statusapi.Validate(nil, keys, lim) != nil) // a nil part too
	is.NoErr(statusapi.Validate(st, keys, lim,
		statusapi.WithTimeout(0), statusapi.WithLinkTTL(0), // zero: the default
		statusapi.WithSigningKey([]byte("0123456789abcdef0123456789abcdef")),
		statusapi.WithPublicURL("https://portal.example.com/api")))
}
