package auth_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

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
	// jwts stands for a resolver of another kind of credential.
	const token = "header.payload.signature"
	jwts := auth.ResolverFunc(func(ctx context.Context, cred string) (auth.Principal, error) {
		if cred != token {
			return auth.Principal{}, fmt.Errorf("%w: not a token", auth.ErrInvalidKey)
		}
		org, err := ks.Organization(ctx, "org_a")
		return auth.Principal{Org: org, Subject: "user_1"}, err
	})
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

// TestChainPrefersNotYetValid checks that when every resolver refuses, a
// refusal that time may lift (ErrNotYetValid) is returned over the others,
// so that a Cache in front does not remember the credential as refused.
func TestChainPrefersNotYetValid(t *testing.T) {
	is := is.New(t)
	refuse := auth.ResolverFunc(func(context.Context, string) (auth.Principal, error) {
		return auth.Principal{}, fmt.Errorf("%w: unknown", auth.ErrInvalidKey)
	})
	notYet := auth.ResolverFunc(func(context.Context, string) (auth.Principal, error) {
		return auth.Principal{}, fmt.Errorf("%w: %w", auth.ErrInvalidKey, auth.ErrNotYetValid)
	})
	for _, c := range []auth.KeyResolver{auth.Chain(refuse, notYet), auth.Chain(notYet, refuse)} {
		_, err := c.Resolve(context.Background(), "token")
		is.True(errors.Is(err, auth.ErrNotYetValid)) // whichever resolver said so
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
