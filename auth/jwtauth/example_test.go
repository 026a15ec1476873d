package jwtauth_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/auth/jwtauth"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/store"
)

// A portal that signs its own tokens configures the one algorithm, the key,
// and the issuer and audience it uses; the organization comes from a claim.
// API keys are tried first, then JWTs, behind one cache.
func ExampleNew() {
	ctx := context.Background()
	secret := []byte("a secret of at least thirty-two bytes!")
	st := memstore.New()
	if err := st.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "Acme", Plan: store.PlanStarter, RetainerActive: true, APIEnabled: true}); err != nil {
		fmt.Println(err)
		return
	}
	jwts, err := jwtauth.New(jwtauth.Config{
		Algorithm: "HS256", // pinned: any other, "none" included, is refused
		Key:       secret,
		Issuer:    "https://portal.example.com",
		Audience:  "clientstatus",
	}, st, // the organization (plan, retainer, API access) comes from the store
		jwtauth.WithOrgClaim("https://portal.example.com/org"), // "org" by default
		jwtauth.WithLeeway(10*time.Second))                     // 30s by default
	if err != nil {
		fmt.Println(err)
		return
	}
	keys := auth.NewKeys(auth.NewMemoryKeyStore(st))
	defer keys.Close()
	resolver := auth.NewCache(auth.Chain(keys, jwts))

	exp := time.Now().Add(5 * time.Minute)
	token, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
		"iss":                            "https://portal.example.com",
		"aud":                            "clientstatus",
		"sub":                            "user_1",
		"https://portal.example.com/org": "org_a",
		"exp":                            exp.Unix(),
	}).SignedString(secret)
	p, err := resolver.Resolve(ctx, token)
	fmt.Println(p.Org.ID, p.Org.Plan, p.Subject, p.Expiry.Equal(exp.Truncate(time.Second)), err)

	none, _ := jwt.NewWithClaims(jwt.SigningMethodNone, jwt.MapClaims{
		"iss": "https://portal.example.com", "aud": "clientstatus", "https://portal.example.com/org": "org_a",
		"exp": exp.Unix(),
	}).SignedString(jwt.UnsafeAllowNoneSignatureType)
	_, err = resolver.Resolve(ctx, none)
	fmt.Println(errors.Is(err, auth.ErrInvalidKey))

	_, err = jwtauth.New(jwtauth.Config{Algorithm: "HS256", Key: []byte("short"), Issuer: "https://portal.example.com", Audience: "clientstatus"}, st)
	fmt.Println(err)
	// Output:
	// org_a starter user_1 true <nil>
	// true
	// jwtauth: Config.Key for HS256 must be a []byte secret of at least 32 bytes
}
