package statusapi_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/store"
)

func TestNewRefusesBadSetup(t *testing.T) {
	st := store.NewMemory()
	keys := auth.ResolverFunc(func(context.Context, string) (auth.Principal, error) { return auth.Principal{}, auth.ErrInvalidKey })
	lim := ratelimit.NewMemory()
	for _, tc := range []struct {
		name, panic string
		new         func()
	}{
		{"nil store", "nil store.Store", func() { statusapi.New(nil, keys, lim) }},
		{"nil resolver", "nil auth.KeyResolver", func() { statusapi.New(st, nil, lim) }},
		{"nil limiter", "nil ratelimit.Limiter", func() { statusapi.New(st, keys, nil) }},
		{"short signing key", "signing key is 15 bytes", func() {
			statusapi.New(st, keys, lim, statusapi.WithSigningKey([]byte("fifteen bytes!!")))
		}},
		{"empty signing key", "empty key", func() {
			statusapi.New(st, keys, lim, statusapi.WithSigningKey([]byte(""))) // an unset environment variable
		}},
		{"public URL without scheme", "WithPublicURL", func() {
			statusapi.New(st, keys, lim, quiet, statusapi.WithPublicURL("portal.example.com/api"))
		}},
		{"public URL with a query", "WithPublicURL", func() {
			statusapi.New(st, keys, lim, quiet, statusapi.WithPublicURL("https://x.example/api?x=1"))
		}},
		{"link TTL under a second", "link TTL", func() {
			statusapi.New(st, keys, lim, quiet, statusapi.WithLinkTTL(time.Millisecond))
		}},
		{"zero timeout", "timeout", func() { statusapi.New(st, keys, lim, quiet, statusapi.WithTimeout(0)) }},
		{"nil files", "WithFiles(nil)", func() { statusapi.New(st, keys, lim, quiet, statusapi.WithFiles(nil)) }},
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
