package jwtauth_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/auth/jwtauth"
	"github.com/clientstatus/clientstatus/internal/test/testenv"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/option"
	"github.com/clientstatus/clientstatus/store"
)

var (
	hmacSecret = []byte("0123456789abcdef0123456789abcdef")

	keysOnce  sync.Once
	rsaKey    *rsa.PrivateKey
	ecKey     *ecdsa.PrivateKey
	edPub     ed25519.PublicKey
	edPrivate ed25519.PrivateKey
)

func signingKeys(t *testing.T) {
	t.Helper()
	keysOnce.Do(func() {
		var err error
		if rsaKey, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
			panic(err)
		}
		if ecKey, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
			panic(err)
		}
		if edPub, edPrivate, err = ed25519.GenerateKey(rand.Reader); err != nil {
			panic(err)
		}
	})
}

var jwtNow = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// validClaims are claims a resolver configured by jwtConfig accepts.
func validClaims() jwt.MapClaims {
	return jwt.MapClaims{
		"iss": "https://portal.example.com",
		"aud": "clientstatus",
		"sub": "user_1",
		"org": "org_a",
		"iat": jwtNow.Unix(),
		"exp": jwtNow.Add(10 * time.Minute).Unix(),
	}
}

func jwtConfig(alg string, key any) jwtauth.Config {
	return jwtauth.Config{
		Algorithm: alg,
		Key:       key,
		Issuer:    "https://portal.example.com",
		Audience:  "clientstatus",
	}
}

// atNow is the clock of the tests: tokens are signed for jwtNow.
var atNow = jwtauth.WithClock(func() time.Time { return jwtNow })

var active = store.Organization{ID: "org_a", Plan: store.PlanStarter, RetainerActive: true, APIEnabled: true}

func sign(t *testing.T, m jwt.SigningMethod, key any, claims jwt.MapClaims) string {
	t.Helper()
	s, err := jwt.NewWithClaims(m, claims).SignedString(key)
	if err != nil {
		t.Fatalf("signing: %v", err)
	}
	return s
}

// accounts returns a store that knows org_a.
func accounts() *memstore.Store {
	st := memstore.New()
	if err := st.PutOrganization(context.Background(), active); err != nil {
		panic(err)
	}
	return st
}

func TestJWTAccepted(t *testing.T) {
	signingKeys(t)
	tests := []struct {
		alg     string
		method  jwt.SigningMethod
		signKey any
		verify  any
	}{
		{"HS256", jwt.SigningMethodHS256, hmacSecret, hmacSecret},
		{"RS256", jwt.SigningMethodRS256, rsaKey, &rsaKey.PublicKey},
		{"PS256", jwt.SigningMethodPS256, rsaKey, &rsaKey.PublicKey},
		{"ES256", jwt.SigningMethodES256, ecKey, &ecKey.PublicKey},
		{"EdDSA", jwt.SigningMethodEdDSA, edPrivate, edPub},
	}
	for _, tt := range tests {
		t.Run(tt.alg, func(t *testing.T) {
			is := is.New(t)
			r, err := jwtauth.New(jwtConfig(tt.alg, tt.verify), accounts(), atNow)
			is.NoErr(err)
			p, err := r.Resolve(context.Background(), sign(t, tt.method, tt.signKey, validClaims()))
			is.NoErr(err)
			want := auth.Principal{Org: active, Subject: "user_1", Expiry: jwtNow.Add(10 * time.Minute)}
			is.Equal(p, want) // the organization, the subject and the token's expiry, no key id
		})
	}
}

func TestJWTOrgClaimAndLeeway(t *testing.T) {
	is := is.New(t)
	r, err := jwtauth.New(jwtConfig("HS256", hmacSecret), accounts(), atNow, jwtauth.WithOrgClaim("https://portal.example.com/org"))
	is.NoErr(err)
	c := validClaims()
	delete(c, "org")
	c["https://portal.example.com/org"] = "org_a"
	c["exp"] = jwtNow.Add(-20 * time.Second).Unix()
	p, err := r.Resolve(context.Background(), sign(t, jwt.SigningMethodHS256, hmacSecret, c))
	is.NoErr(err)               // expired 20s ago: within the default 30s leeway
	is.Equal(p.Org.ID, "org_a") // from the configured claim
}

// TestJWTRefused has one case per reason a token must be refused.
func TestJWTRefused(t *testing.T) {
	signingKeys(t)
	rsaPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: must(x509.MarshalPKIXPublicKey(&rsaKey.PublicKey))})
	with := func(change func(jwt.MapClaims)) jwt.MapClaims {
		c := validClaims()
		change(c)
		return c
	}
	hs := func(t *testing.T, c jwt.MapClaims) string { return sign(t, jwt.SigningMethodHS256, hmacSecret, c) }
	rs := func(t *testing.T, c jwt.MapClaims) string { return sign(t, jwt.SigningMethodRS256, rsaKey, c) }

	tests := []struct {
		name  string
		alg   string // the resolver's algorithm
		token func(t *testing.T) string
	}{
		{"alg none", "HS256", func(t *testing.T) string {
			return sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, validClaims())
		}},
		{"alg none on an RSA resolver", "RS256", func(t *testing.T) string {
			return sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, validClaims())
		}},
		{"another HMAC algorithm", "HS256", func(t *testing.T) string {
			return sign(t, jwt.SigningMethodHS384, append(hmacSecret, hmacSecret...), validClaims())
		}},
		{"HS256 signed with the RSA public key", "RS256", func(t *testing.T) string {
			return sign(t, jwt.SigningMethodHS256, rsaPEM, validClaims())
		}},
		{"RS256 token on an HMAC resolver", "HS256", func(t *testing.T) string { return rs(t, validClaims()) }},
		{"bad signature", "HS256", func(t *testing.T) string {
			return sign(t, jwt.SigningMethodHS256, []byte("another secret of thirty-two b!!"), validClaims())
		}},
		{"payload changed after signing", "HS256", func(t *testing.T) string {
			good := strings.Split(hs(t, validClaims()), ".")
			other := strings.Split(hs(t, with(func(c jwt.MapClaims) { c["org"] = "org_b" })), ".")
			return good[0] + "." + other[1] + "." + good[2]
		}},
		{"expired", "HS256", func(t *testing.T) string {
			return hs(t, with(func(c jwt.MapClaims) { c["exp"] = jwtNow.Add(-31 * time.Second).Unix() }))
		}},
		{"not yet valid", "HS256", func(t *testing.T) string {
			return hs(t, with(func(c jwt.MapClaims) { c["nbf"] = jwtNow.Add(time.Minute).Unix() }))
		}},
		{"issued in the future", "HS256", func(t *testing.T) string {
			return hs(t, with(func(c jwt.MapClaims) { c["iat"] = jwtNow.Add(time.Minute).Unix() }))
		}},
		{"no exp", "HS256", func(t *testing.T) string {
			return hs(t, with(func(c jwt.MapClaims) { delete(c, "exp") }))
		}},
		{"wrong issuer", "HS256", func(t *testing.T) string {
			return hs(t, with(func(c jwt.MapClaims) { c["iss"] = "https://evil.example.com" }))
		}},
		{"no issuer", "HS256", func(t *testing.T) string {
			return hs(t, with(func(c jwt.MapClaims) { delete(c, "iss") }))
		}},
		{"wrong audience", "HS256", func(t *testing.T) string {
			return hs(t, with(func(c jwt.MapClaims) { c["aud"] = []string{"billing"} }))
		}},
		{"no audience", "HS256", func(t *testing.T) string {
			return hs(t, with(func(c jwt.MapClaims) { delete(c, "aud") }))
		}},
		{"no organization", "HS256", func(t *testing.T) string {
			return hs(t, with(func(c jwt.MapClaims) { delete(c, "org") }))
		}},
		{"organization not a string", "HS256", func(t *testing.T) string {
			return hs(t, with(func(c jwt.MapClaims) { c["org"] = 42 }))
		}},
		{"empty organization", "HS256", func(t *testing.T) string {
			return hs(t, with(func(c jwt.MapClaims) { c["org"] = "" }))
		}},
		{"unknown organization", "HS256", func(t *testing.T) string {
			return hs(t, with(func(c jwt.MapClaims) { c["org"] = "org_unknown" }))
		}},
		{"not a JWT", "HS256", func(*testing.T) string { return "csk_notajwt" }},
		{"garbage segments", "HS256", func(*testing.T) string { return "a.b.c" }},
		{"empty", "HS256", func(*testing.T) string { return "" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			key := any(hmacSecret)
			if tt.alg == "RS256" {
				key = &rsaKey.PublicKey
			}
			r, err := jwtauth.New(jwtConfig(tt.alg, key), accounts(), atNow)
			is.NoErr(err)
			token := tt.token(t)
			_, err = r.Resolve(context.Background(), token)
			is.True(errors.Is(err, auth.ErrInvalidKey)) // refused: 401 UNAUTHORIZED
			if token != "" {
				is.True(!strings.Contains(err.Error(), token)) // the error never holds the token
			}
		})
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

type downAccounts struct{}

func (downAccounts) Organization(context.Context, string) (store.Organization, error) {
	return store.Organization{}, errors.New("connection refused")
}

func TestJWTAccountsDown(t *testing.T) {
	is := is.New(t)
	r, err := jwtauth.New(jwtConfig("HS256", hmacSecret), downAccounts{}, atNow)
	is.NoErr(err)
	_, err = r.Resolve(context.Background(), sign(t, jwt.SigningMethodHS256, hmacSecret, validClaims()))
	is.True(errors.Is(err, auth.ErrUnavailable)) // an outage is not a bad token
	is.True(!errors.Is(err, auth.ErrInvalidKey)) // and never answered 401
}

func TestJWTConfigRefused(t *testing.T) {
	signingKeys(t)
	small, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		change func(*jwtauth.Config)
	}{
		{"no algorithm", func(c *jwtauth.Config) { c.Algorithm = "" }},
		{"alg none", func(c *jwtauth.Config) { c.Algorithm = "none" }},
		{"unknown algorithm", func(c *jwtauth.Config) { c.Algorithm = "HS1" }},
		{"short HMAC secret", func(c *jwtauth.Config) { c.Key = []byte("short") }},
		{"HMAC secret too short for HS512", func(c *jwtauth.Config) { c.Algorithm = "HS512" }},
		{"HMAC secret as a string", func(c *jwtauth.Config) { c.Key = string(hmacSecret) }},
		{"RSA private key", func(c *jwtauth.Config) { c.Algorithm, c.Key = "RS256", rsaKey }},
		{"RSA key too small", func(c *jwtauth.Config) { c.Algorithm, c.Key = "RS256", &small.PublicKey }},
		{"RSA with an HMAC secret", func(c *jwtauth.Config) { c.Algorithm = "RS256" }},
		{"ES256 with a P-384 key", func(c *jwtauth.Config) { c.Algorithm, c.Key = "ES256", &p384.PublicKey }},
		{"EdDSA with a private key", func(c *jwtauth.Config) { c.Algorithm, c.Key = "EdDSA", crypto.PrivateKey(edPrivate) }},
		{"no issuer", func(c *jwtauth.Config) { c.Issuer = "" }},
		{"no audience", func(c *jwtauth.Config) { c.Audience = "" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			cfg := jwtConfig("HS256", hmacSecret)
			tt.change(&cfg)
			_, err := jwtauth.New(cfg, accounts())
			is.True(err != nil)                                  // a misconfiguration is refused at start
			is.True(strings.HasPrefix(err.Error(), "jwtauth: ")) // saying where it comes from
		})
	}
}

// TestLeeway checks the leeway's default, its bounds, and that a value no
// default stands for panics naming the option.
func TestLeeway(t *testing.T) {
	expiredAgo := func(d time.Duration) jwt.MapClaims {
		c := validClaims()
		c["exp"] = jwtNow.Add(-d).Unix()
		return c
	}
	tests := []struct {
		name   string
		opt    jwtauth.Option
		claims jwt.MapClaims
		ok     bool
	}{
		{"zero is the default, within", jwtauth.WithLeeway(0), expiredAgo(jwtauth.DefaultLeeway - time.Second), true},
		{"zero is the default, past", jwtauth.WithLeeway(0), expiredAgo(jwtauth.DefaultLeeway + time.Second), false},
		{"the largest, within", jwtauth.WithLeeway(jwtauth.MaxLeeway), expiredAgo(jwtauth.MaxLeeway - time.Second), true},
		{"the largest, past", jwtauth.WithLeeway(jwtauth.MaxLeeway), expiredAgo(jwtauth.MaxLeeway + time.Second), false},
		{"none", jwtauth.WithLeeway(time.Nanosecond), expiredAgo(time.Second), false},
		{"a nil option", nil, expiredAgo(jwtauth.DefaultLeeway - time.Second), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			r, err := jwtauth.New(jwtConfig("HS256", hmacSecret), accounts(), atNow, tt.opt)
			is.NoErr(err)
			_, err = r.Resolve(context.Background(), sign(t, jwt.SigningMethodHS256, hmacSecret, tt.claims))
			is.Equal(err == nil, tt.ok)                          // accepted within the leeway only
			is.Equal(errors.Is(err, auth.ErrInvalidKey), !tt.ok) // and refused as an invalid key past it
		})
	}

	for d, want := range map[time.Duration]string{
		-time.Second:                    "jwtauth: WithLeeway: -1s is negative",
		jwtauth.MaxLeeway + time.Second: "jwtauth: WithLeeway: 5m1s is more than MaxLeeway (5m0s)",
	} {
		t.Run(want, func(t *testing.T) {
			is := is.New(t)
			_, err := jwtauth.New(jwtConfig("HS256", hmacSecret), accounts(), jwtauth.WithLeeway(d))
			var oe *option.Error
			is.True(errors.As(err, &oe)) // New returns a configuration error
			is.Equal(oe.Error(), want)   // naming the option
		})
	}
}

// TestNotYetValid checks that a token before its "nbf" is refused as not
// valid yet, that a Cache does not remember that refusal, and that a Chain
// reports it rather than another resolver's refusal.
func TestNotYetValid(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	clk := testenv.NewClock(jwtNow)
	st := accounts()
	jwts, err := jwtauth.New(jwtConfig("HS256", hmacSecret), st, jwtauth.WithClock(clk.Now), jwtauth.WithLeeway(time.Second))
	is.NoErr(err)
	keys := auth.NewKeys(auth.NewMemoryKeyStore(st), auth.WithClock(clk.Now))
	c := validClaims()
	c["nbf"] = jwtNow.Add(time.Minute).Unix()
	c["exp"] = jwtNow.Add(10 * time.Minute).Unix()
	token := sign(t, jwt.SigningMethodHS256, hmacSecret, c)

	_, err = jwts.Resolve(ctx, token)
	is.True(errors.Is(err, auth.ErrInvalidKey))  // refused for now
	is.True(errors.Is(err, auth.ErrNotYetValid)) // as not valid yet

	cache := auth.NewCache(auth.Chain(keys, jwts), auth.WithCacheTTL(time.Hour), auth.WithClock(clk.Now))
	_, err = cache.Resolve(ctx, token)
	is.True(errors.Is(err, auth.ErrNotYetValid)) // the chain reports the refusal that may change
	clk.Advance(time.Minute)
	p, err := cache.Resolve(ctx, token)
	is.NoErr(err)                                  // accepted at its nbf, although the cache's ttl is an hour
	is.Equal(p.Subject, "user_1")                  // the token's subject
	is.Equal(p.Expiry, jwtNow.Add(10*time.Minute)) // and expiry
}

// TestCacheDropsExpiredJWTAtItsExpiry checks that a Cache forgets a
// token's principal at the token's "exp", well inside its ttl.
func TestCacheDropsExpiredJWTAtItsExpiry(t *testing.T) {
	is := is.New(t)
	clk := testenv.NewClock(jwtNow)
	r, err := jwtauth.New(jwtConfig("HS256", hmacSecret), accounts(), jwtauth.WithClock(clk.Now), jwtauth.WithLeeway(time.Second))
	is.NoErr(err)
	claims := validClaims()
	claims["exp"] = jwtNow.Add(10 * time.Second).Unix()
	token := sign(t, jwt.SigningMethodHS256, hmacSecret, claims)
	c := auth.NewCache(r, auth.WithCacheTTL(time.Minute), auth.WithClock(clk.Now))
	_, err = c.Resolve(context.Background(), token)
	is.NoErr(err)
	clk.Advance(11 * time.Second)
	_, err = c.Resolve(context.Background(), token)
	is.True(errors.Is(err, auth.ErrInvalidKey)) // refused after its exp, inside the ttl
}

// TestKeysThenJWTs checks the wiring the README shows: stored keys first,
// then JWTs, behind one cache.
func TestKeysThenJWTs(t *testing.T) {
	ctx := context.Background()
	st := accounts()
	keys := auth.NewKeys(auth.NewMemoryKeyStore(st))
	plain, rec, err := keys.Mint(ctx, "org_a", "ci", nil)
	if err != nil {
		t.Fatal(err)
	}
	jwts, err := jwtauth.New(jwtConfig("HS256", hmacSecret), st, atNow)
	if err != nil {
		t.Fatal(err)
	}
	token := sign(t, jwt.SigningMethodHS256, hmacSecret, validClaims())
	resolver := auth.NewCache(auth.Chain(keys, jwts))
	tests := []struct {
		name, cred, keyID, subject string
		wantErr                    error
	}{
		{"a key", plain, rec.ID, "", nil},
		{"a JWT", token, "", "user_1", nil},
		{"neither", "csk_nothing", "", "", auth.ErrInvalidKey},
		{"a JWT signed with another secret", sign(t, jwt.SigningMethodHS256, []byte("another secret of thirty-two b!!"), validClaims()), "", "", auth.ErrInvalidKey},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			p, err := resolver.Resolve(ctx, tt.cred)
			if tt.wantErr != nil {
				is.True(errors.Is(err, tt.wantErr)) // refused
				return
			}
			is.NoErr(err)
			is.Equal(p.Org.ID, "org_a")
			is.Equal(p.KeyID, tt.keyID)     // which resolver answered
			is.Equal(p.Subject, tt.subject) // a JWT's subject, none for a key
		})
	}
}

// TestJWTRestriction checks the "scope" and "project_ids" claims: they
// become the Principal's Restriction; names that are no scope grant
// nothing; a malformed claim refuses the token.
func TestJWTRestriction(t *testing.T) {
	r, err := jwtauth.New(jwtConfig("HS256", hmacSecret), accounts(), atNow)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		claims map[string]any
		want   auth.Restriction
		bad    bool // the token is refused
	}{
		{"neither: unrestricted", nil, auth.Restriction{}, false},
		{"scopes, any order, repeated", map[string]any{"scope": "invoices:read projects:read  invoices:read"},
			auth.Restriction{Scopes: []auth.Scope{auth.ScopeProjects, auth.ScopeInvoices}}, false},
		{"unknown scope names grant nothing", map[string]any{"scope": "admin invoices:write threads:read"},
			auth.Restriction{Scopes: []auth.Scope{auth.ScopeThreads}}, false},
		{"an empty scope allows no scope", map[string]any{"scope": ""}, auth.Restriction{Scopes: []auth.Scope{}}, false},
		{"projects", map[string]any{"project_ids": []any{"p1", "p2"}}, auth.Restriction{ProjectIDs: []string{"p1", "p2"}}, false},
		{"no project", map[string]any{"project_ids": []any{}}, auth.Restriction{ProjectIDs: []string{}}, false},
		{"both", map[string]any{"scope": "deliverables:read", "project_ids": []any{"p1"}},
			auth.Restriction{Scopes: []auth.Scope{auth.ScopeDeliverables}, ProjectIDs: []string{"p1"}}, false},
		{"scope as an array", map[string]any{"scope": []any{"projects:read"}}, auth.Restriction{}, true},
		{"project_ids as a string", map[string]any{"project_ids": "p1"}, auth.Restriction{}, true},
		{"project_ids null", map[string]any{"project_ids": nil}, auth.Restriction{}, true},
		{"a project id that is a number", map[string]any{"project_ids": []any{"p1", 2}}, auth.Restriction{}, true},
		{"an empty project id", map[string]any{"project_ids": []any{""}}, auth.Restriction{}, true},
		{"a project id with a NUL", map[string]any{"project_ids": []any{"p1\x00"}}, auth.Restriction{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			claims := validClaims()
			for k, v := range tt.claims {
				claims[k] = v
			}
			p, err := r.Resolve(context.Background(), sign(t, jwt.SigningMethodHS256, hmacSecret, claims))
			if tt.bad {
				is.True(errors.Is(err, auth.ErrInvalidKey)) // a malformed restriction refuses the token
				return
			}
			is.NoErr(err)
			is.Equal(p.Scopes == nil, tt.want.Scopes == nil) // absent and empty differ
			is.Equal(p.ProjectIDs == nil, tt.want.ProjectIDs == nil)
			is.Equal(fmt.Sprint(p.Restriction), fmt.Sprint(tt.want))
		})
	}
}
