package auth_test

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
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
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

func jwtConfig(alg string, key any) auth.JWTConfig {
	return auth.JWTConfig{
		Algorithm: alg,
		Key:       key,
		Issuer:    "https://portal.example.com",
		Audience:  "clientstatus",
		Now:       func() time.Time { return jwtNow },
	}
}

func sign(t *testing.T, m jwt.SigningMethod, key any, claims jwt.MapClaims) string {
	t.Helper()
	s, err := jwt.NewWithClaims(m, claims).SignedString(key)
	if err != nil {
		t.Fatalf("signing: %v", err)
	}
	return s
}

func accounts() *testKeyStore {
	ks := newKeyStore()
	ks.PutOrganization(active)
	return ks
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
			r, err := auth.NewJWTResolver(jwtConfig(tt.alg, tt.verify), accounts())
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
	cfg := jwtConfig("HS256", hmacSecret)
	cfg.OrgClaim = "https://portal.example.com/org"
	r, err := auth.NewJWTResolver(cfg, accounts())
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
			r, err := auth.NewJWTResolver(jwtConfig(tt.alg, key), accounts())
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
	r, err := auth.NewJWTResolver(jwtConfig("HS256", hmacSecret), downAccounts{})
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
		change func(*auth.JWTConfig)
	}{
		{"no algorithm", func(c *auth.JWTConfig) { c.Algorithm = "" }},
		{"alg none", func(c *auth.JWTConfig) { c.Algorithm = "none" }},
		{"unknown algorithm", func(c *auth.JWTConfig) { c.Algorithm = "HS1" }},
		{"short HMAC secret", func(c *auth.JWTConfig) { c.Key = []byte("short") }},
		{"HMAC secret too short for HS512", func(c *auth.JWTConfig) { c.Algorithm = "HS512" }},
		{"HMAC secret as a string", func(c *auth.JWTConfig) { c.Key = string(hmacSecret) }},
		{"RSA private key", func(c *auth.JWTConfig) { c.Algorithm, c.Key = "RS256", rsaKey }},
		{"RSA key too small", func(c *auth.JWTConfig) { c.Algorithm, c.Key = "RS256", &small.PublicKey }},
		{"RSA with an HMAC secret", func(c *auth.JWTConfig) { c.Algorithm = "RS256" }},
		{"ES256 with a P-384 key", func(c *auth.JWTConfig) { c.Algorithm, c.Key = "ES256", &p384.PublicKey }},
		{"EdDSA with a private key", func(c *auth.JWTConfig) { c.Algorithm, c.Key = "EdDSA", crypto.PrivateKey(edPrivate) }},
		{"no issuer", func(c *auth.JWTConfig) { c.Issuer = "" }},
		{"no audience", func(c *auth.JWTConfig) { c.Audience = "" }},
		{"negative leeway", func(c *auth.JWTConfig) { c.Leeway = -time.Second }},
		{"large leeway", func(c *auth.JWTConfig) { c.Leeway = time.Hour }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			cfg := jwtConfig("HS256", hmacSecret)
			tt.change(&cfg)
			_, err := auth.NewJWTResolver(cfg, accounts())
			is.True(err != nil) // a misconfiguration is refused at start
		})
	}
}
