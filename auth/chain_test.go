package auth_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/golang-jwt/jwt/v5"
	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
)

func TestChain(t *testing.T) {
	ctx := context.Background()
	keys, ks := newKeys(t)
	plain, rec, err := keys.Mint(ctx, "org_a", "ci", nil)
	if err != nil {
		t.Fatal(err)
	}
	jwts, err := auth.NewJWTResolver(jwtConfig("HS256", hmacSecret), ks)
	if err != nil {
		t.Fatal(err)
	}
	token := sign(t, jwt.SigningMethodHS256, hmacSecret, validClaims())
	down := auth.ResolverFunc(func(context.Context, string) (auth.Principal, error) {
		return auth.Principal{}, fmt.Errorf("%w: connection refused", auth.ErrUnavailable)
	})

	tests := []struct {
		name    string
		chain   auth.KeyResolver
		cred    string
		keyID   string
		wantErr error
	}{
		{"a key, by the first", auth.Chain(keys, jwts), plain, rec.ID, nil},
		{"a JWT, by the second", auth.Chain(keys, jwts), token, "", nil},
		{"refused by all", auth.Chain(keys, jwts), "csk_nothing", "", auth.ErrInvalidKey},
		{"an outage stops the chain", auth.Chain(down, jwts), token, "", auth.ErrUnavailable},
		{"an outage after a refusal", auth.Chain(jwts, down), plain, "", auth.ErrUnavailable},
		{"empty chain refuses", auth.Chain(), plain, "", auth.ErrInvalidKey},
		{"a cache in front", auth.NewCache(auth.Chain(keys, jwts)), token, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			p, err := tt.chain.Resolve(ctx, tt.cred)
			if tt.wantErr != nil {
				is.True(errors.Is(err, tt.wantErr)) // the expected error
				if errors.Is(tt.wantErr, auth.ErrUnavailable) {
					is.True(!errors.Is(err, auth.ErrInvalidKey)) // an outage is never a 401
				}
				return
			}
			is.NoErr(err)
			is.Equal(p.Org.ID, "org_a")
			is.Equal(p.KeyID, tt.keyID) // which resolver answered
		})
	}
}

func TestChainNilPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Chain accepted a nil resolver")
		}
	}()
	auth.Chain(nil)
}
