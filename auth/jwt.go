package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/clientstatus/clientstatus/store"
)

// DefaultJWTLeeway is the clock skew a JWTResolver tolerates on exp, nbf
// and iat when JWTConfig.Leeway is zero.
const DefaultJWTLeeway = 30 * time.Second

// maxJWTLeeway is the largest leeway NewJWTResolver accepts: leeway is for
// clock skew, not a way to extend a token's life.
const maxJWTLeeway = 5 * time.Minute

// maxJWTLen bounds the tokens a JWTResolver parses.
const maxJWTLen = 8 << 10

// JWTConfig configures a JWTResolver. Algorithm, Key, Issuer and Audience
// are required.
type JWTConfig struct {
	// Algorithm is the one signing algorithm accepted ("alg" header):
	// HS256, HS384, HS512, RS256, RS384, RS512, PS256, PS384, PS512, ES256,
	// ES384, ES512 or EdDSA. Tokens signed otherwise, "none" included, are
	// refused.
	Algorithm string
	// Key verifies signatures: a []byte secret of at least the hash size
	// (32, 48, 64 bytes) for HS*, an *rsa.PublicKey of at least 2048 bits
	// for RS* and PS*, an *ecdsa.PublicKey on the matching curve for ES*,
	// an ed25519.PublicKey for EdDSA.
	Key any
	// Issuer and Audience must match the token's "iss" and "aud".
	Issuer, Audience string
	// OrgClaim names the claim holding the organization id; "org" when
	// empty.
	OrgClaim string
	// Leeway is the clock skew tolerated on exp, nbf and iat;
	// DefaultJWTLeeway when zero, at most 5 minutes.
	Leeway time.Duration
	// Now replaces time.Now, for tests.
	Now func() time.Time
}

// JWTResolver is a KeyResolver of signed JWTs, for portals that prefer
// them to stored keys. A token is accepted only when it is signed with the
// configured algorithm and key, carries "exp" and is within it (and within
// "nbf" and "iat", when present; all give or take the leeway), names the configured issuer and audience, and holds the id
// of an organization that orgs knows. Its KeyID is "". Any failure is
// ErrInvalidKey, except a failure of orgs, which is ErrUnavailable.
//
// JWTResolver is safe for concurrent use and never logs a token.
type JWTResolver struct {
	parser   *jwt.Parser
	key      any
	orgClaim string
	orgs     store.Organizations
	now      func() time.Time
}

var _ KeyResolver = (*JWTResolver)(nil)

// NewJWTResolver returns a JWTResolver, or an error naming what is wrong
// with cfg. It panics if orgs is nil.
func NewJWTResolver(cfg JWTConfig, orgs store.Organizations) (*JWTResolver, error) {
	if orgs == nil {
		panic("auth: NewJWTResolver needs store.Organizations")
	}
	if err := checkJWTKey(cfg.Algorithm, cfg.Key); err != nil {
		return nil, err
	}
	if cfg.Issuer == "" || cfg.Audience == "" {
		return nil, errors.New("auth: JWTConfig needs an Issuer and an Audience")
	}
	leeway := cfg.Leeway
	switch {
	case leeway == 0:
		leeway = DefaultJWTLeeway
	case leeway < 0 || leeway > maxJWTLeeway:
		return nil, fmt.Errorf("auth: JWTConfig.Leeway %s is outside 0..%s", leeway, maxJWTLeeway)
	}
	r := &JWTResolver{key: cfg.Key, orgClaim: cfg.OrgClaim, orgs: orgs, now: cfg.Now}
	if r.orgClaim == "" {
		r.orgClaim = "org"
	}
	if r.now == nil {
		r.now = time.Now
	}
	r.parser = jwt.NewParser(
		jwt.WithValidMethods([]string{cfg.Algorithm}),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithIssuer(cfg.Issuer),
		jwt.WithAudience(cfg.Audience),
		jwt.WithLeeway(leeway),
		jwt.WithTimeFunc(r.now),
	)
	return r, nil
}

// checkJWTKey checks that key suits alg.
func checkJWTKey(alg string, key any) error {
	bad := func(want string) error {
		return fmt.Errorf("auth: JWTConfig.Key for %s must be %s", alg, want)
	}
	switch alg {
	case "HS256", "HS384", "HS512":
		size := map[string]int{"HS256": 32, "HS384": 48, "HS512": 64}[alg]
		if k, ok := key.([]byte); !ok || len(k) < size {
			return bad(fmt.Sprintf("a []byte secret of at least %d bytes", size))
		}
	case "RS256", "RS384", "RS512", "PS256", "PS384", "PS512":
		if k, ok := key.(*rsa.PublicKey); !ok || k == nil || k.N == nil || k.N.BitLen() < 2048 {
			return bad("an *rsa.PublicKey of at least 2048 bits")
		}
	case "ES256", "ES384", "ES512":
		curve := map[string]elliptic.Curve{"ES256": elliptic.P256(), "ES384": elliptic.P384(), "ES512": elliptic.P521()}[alg]
		if k, ok := key.(*ecdsa.PublicKey); !ok || k == nil || k.Curve != curve {
			return bad("an *ecdsa.PublicKey on " + curve.Params().Name)
		}
	case "EdDSA":
		if k, ok := key.(ed25519.PublicKey); !ok || len(k) != ed25519.PublicKeySize {
			return bad("an ed25519.PublicKey")
		}
	default:
		return fmt.Errorf("auth: JWTConfig.Algorithm %q is not supported", alg)
	}
	return nil
}

// Resolve returns the Principal of a signed token: its organization, its
// "sub" claim as Subject and its "exp" as Expiry. A token before its "nbf"
// is refused with an error that also wraps ErrNotYetValid.
func (r *JWTResolver) Resolve(ctx context.Context, token string) (Principal, error) {
	if token == "" || len(token) > maxJWTLen || strings.Count(token, ".") != 2 {
		return Principal{}, fmt.Errorf("%w: not a JWT", ErrInvalidKey)
	}
	claims := jwt.MapClaims{}
	if _, err := r.parser.ParseWithClaims(token, claims, r.keyFunc); err != nil {
		if errors.Is(err, jwt.ErrTokenNotValidYet) {
			return Principal{}, fmt.Errorf("%w: jwt: %w", ErrInvalidKey, ErrNotYetValid)
		}
		return Principal{}, fmt.Errorf("%w: jwt: %s", ErrInvalidKey, jwtReason(err))
	}
	orgID, _ := claims[r.orgClaim].(string)
	if orgID == "" || len(orgID) > 200 {
		return Principal{}, fmt.Errorf("%w: jwt: no organization in claim %q", ErrInvalidKey, r.orgClaim)
	}
	org, err := r.orgs.Organization(ctx, orgID)
	if err != nil {
		return Principal{}, LookupError(ctx, err)
	}
	exp, _ := claims.GetExpirationTime() // required and checked by the parser
	sub, _ := claims.GetSubject()
	return Principal{Org: org, Subject: sub, Expiry: exp.Time.UTC()}, nil
}

func (r *JWTResolver) keyFunc(*jwt.Token) (any, error) { return r.key, nil }

// jwtReason names why a token was refused, without any of its content.
func jwtReason(err error) string {
	for _, c := range []struct {
		err    error
		reason string
	}{
		{jwt.ErrTokenMalformed, "malformed"},
		{jwt.ErrTokenSignatureInvalid, "bad signature or algorithm"},
		{jwt.ErrTokenUnverifiable, "unverifiable"},
		{jwt.ErrTokenRequiredClaimMissing, "missing required claim"},
		{jwt.ErrTokenExpired, "expired"},
		{jwt.ErrTokenNotValidYet, "not valid yet"},
		{jwt.ErrTokenUsedBeforeIssued, "used before issued"},
		{jwt.ErrTokenInvalidIssuer, "wrong issuer"},
		{jwt.ErrTokenInvalidAudience, "wrong audience"},
	} {
		if errors.Is(err, c.err) {
			return c.reason
		}
	}
	return "invalid"
}
