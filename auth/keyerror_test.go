package auth_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
)

func TestKeyErrorNamesTheKey(t *testing.T) {
	ctx := context.Background()
	clk := newClock()
	keys, _ := newKeys(t, auth.WithClock(clk.Now))
	cache := auth.NewCache(keys, auth.WithClock(clk.Now))
	t.Cleanup(func() { _ = cache.Close() })

	revoked, rec, err := keys.Mint(ctx, "org_a", "old", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := keys.Revoke(ctx, "org_a", rec.ID); err != nil {
		t.Fatal(err)
	}
	exp := clk.Now().Add(time.Minute)
	expired, rec2, err := keys.Mint(ctx, "org_a", "short", &exp)
	if err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Minute)

	for _, tc := range []struct {
		key, id string
		want    error
	}{{revoked, rec.ID, auth.ErrRevoked}, {expired, rec2.ID, auth.ErrExpired}} {
		for _, r := range []auth.KeyResolver{keys, cache, cache} { // the cache's second answer is its own
			is := is.New(t)
			_, err := r.Resolve(ctx, tc.key)
			is.True(errors.Is(err, auth.ErrInvalidKey)) // still a 401
			is.True(errors.Is(err, tc.want))
			var ke *auth.KeyError
			is.True(errors.As(err, &ke))
			is.Equal(ke.KeyID, tc.id) // the public id
			is.Equal(ke.OrgID, "org_a")
			is.True(strings.Contains(err.Error(), tc.id))
			is.True(!strings.Contains(err.Error(), tc.key)) // never the key
		}
	}
	_, err = keys.Resolve(ctx, "unknown-key")
	var ke *auth.KeyError
	is.New(t).True(!errors.As(err, &ke)) // an unknown key names none
}
