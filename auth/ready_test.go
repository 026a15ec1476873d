package auth_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/memstore"
)

// pingKeyStore is a KeyStore whose Ping answers err.
type pingKeyStore struct {
	*auth.MemoryKeyStore
	err error
}

func (s pingKeyStore) Ping(context.Context) error { return s.err }

// plainKeyStore is a KeyStore that pings as the one it wraps.
type plainKeyStore struct{ auth.KeyStore }

type pinger interface{ Ping(context.Context) error }

func TestPing(t *testing.T) {
	ctx := context.Background()
	down := errors.New("dial tcp: connection refused")
	noPing := auth.ResolverFunc(func(context.Context, string) (auth.Principal, error) { return auth.Principal{}, auth.ErrInvalidKey })
	for _, tc := range []struct {
		name string
		r    auth.KeyResolver
		down bool
	}{
		{"memory key store", auth.NewKeys(auth.NewMemoryKeyStore(memstore.New())), false},
		{"wrapped key store", auth.NewKeys(plainKeyStore{auth.NewMemoryKeyStore(memstore.New())}), false},
		{"key store up", auth.NewKeys(pingKeyStore{auth.NewMemoryKeyStore(memstore.New()), nil}), false},
		{"key store down", auth.NewKeys(pingKeyStore{auth.NewMemoryKeyStore(memstore.New()), down}), true},
		{"cache over a key store down", auth.NewCache(auth.NewKeys(pingKeyStore{auth.NewMemoryKeyStore(memstore.New()), down}), auth.WithCacheTTL(time.Minute)), true},
		{"cache over a resolver without Ping", auth.NewCache(noPing, auth.WithCacheTTL(time.Minute)), false},
		{"chain with a key store down", auth.Chain(noPing, auth.NewKeys(pingKeyStore{auth.NewMemoryKeyStore(memstore.New()), down})), true},
		{"chain all up", auth.Chain(noPing, auth.NewKeys(auth.NewMemoryKeyStore(memstore.New()))), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			p, ok := tc.r.(pinger)
			is.True(ok) // the resolver can be pinged
			err := p.Ping(ctx)
			if !tc.down {
				is.NoErr(err) // ready
				return
			}
			is.True(errors.Is(err, auth.ErrUnavailable)) // the key store is unavailable
			is.True(errors.Is(err, down))                // for the store's reason
		})
	}
	is := is.New(t)
	is.NoErr(auth.NewMemoryKeyStore(memstore.New()).Ping(ctx)) // memory is always ready
}
