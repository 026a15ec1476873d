package auth_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/store"
)

// A portal mints a key for an organization, shows it to the client once,
// and the API resolves it on every request.
func ExampleKeys() {
	ctx := context.Background()
	st := store.NewMemory() // bunstore.New(db) in production: one store for both
	if err := st.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "Acme", Plan: store.PlanGrowth, RetainerActive: true, APIEnabled: true}); err != nil {
		fmt.Println(err)
		return
	}
	keys := auth.NewKeys(auth.NewMemoryKeyStore(st)) // the key store reads organizations from st
	defer keys.Close()                               // writes the last batch of last-use times

	plaintext, rec, err := keys.Mint(ctx, "org_a", "CI pipeline", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.HasPrefix(plaintext, "csk_"), len(plaintext), rec.Prefix == plaintext[:8])

	resolver := auth.NewCache(keys, 30*time.Second) // revocation takes effect within 30s
	p, err := resolver.Resolve(ctx, plaintext)
	fmt.Println(p.Org.ID, p.Org.Plan, p.Org.CanUseAPI(), p.KeyID == rec.ID, err)

	if err := keys.Revoke(ctx, "org_a", rec.ID); err != nil {
		fmt.Println(err)
		return
	}
	_, err = keys.Resolve(ctx, plaintext)
	fmt.Println(errors.Is(err, auth.ErrInvalidKey))
	// Output:
	// true 42 true
	// org_a growth true true <nil>
	// true
}

// A portal that signs its own tokens configures the one algorithm, the key,
// and the issuer and audience it uses; the organization comes from a claim.
func ExampleNewJWTResolver() {
	secret := []byte("a secret of at least thirty-two bytes!")
	st := store.NewMemory()
	if err := st.PutOrganization(context.Background(), store.Organization{ID: "org_a", Name: "Acme", Plan: store.PlanStarter, RetainerActive: true, APIEnabled: true}); err != nil {
		fmt.Println(err)
		return
	}
	ks := auth.NewMemoryKeyStore(st)
	jwts, err := auth.NewJWTResolver(auth.JWTConfig{
		Algorithm: "HS256",
		Key:       secret,
		Issuer:    "https://portal.example.com",
		Audience:  "clientstatus",
		OrgClaim:  "org",
	}, ks)
	if err != nil {
		fmt.Println(err)
		return
	}
	resolver := auth.NewCache(auth.Chain(auth.NewKeys(ks), jwts), 0) // API keys first, then JWTs

	token, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
		"iss": "https://portal.example.com",
		"aud": "clientstatus",
		"org": "org_a",
		"exp": time.Now().Add(5 * time.Minute).Unix(),
	}).SignedString(secret)
	p, err := resolver.Resolve(context.Background(), token)
	fmt.Println(p.Org.ID, p.Org.Plan, err)

	none, _ := jwt.NewWithClaims(jwt.SigningMethodNone, jwt.MapClaims{
		"iss": "https://portal.example.com", "aud": "clientstatus", "org": "org_a",
		"exp": time.Now().Add(5 * time.Minute).Unix(),
	}).SignedString(jwt.UnsafeAllowNoneSignatureType)
	_, err = resolver.Resolve(context.Background(), none)
	fmt.Println(errors.Is(err, auth.ErrInvalidKey))
	// Output:
	// org_a starter <nil>
	// true
}
