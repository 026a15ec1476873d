package jwtauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/golang-jwt/jwt/v5"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/store"
)

// maxTokenLen bounds the tokens a Resolver parses.
const maxTokenLen = 8 << 10

// maxOrgIDLen bounds the organization id a token may carry.
const maxOrgIDLen = 200

// Config holds what a Resolver cannot do without. Its values usually come
// from the deployment's configuration, so New reports a bad one as an
// error rather than a panic.
type Config struct {
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
	// Issuer must equal the token's "iss" claim.
	Issuer string
	// Audience must be, or be among, the token's "aud" claim.
	Audience string
}

// Resolver is an auth.KeyResolver of signed JWTs (see the package
// documentation for what a token must hold). Its Principal has the
// organization, the "sub" claim as Subject, the "exp" claim as Expiry, the
// "scope" and "project_ids" claims as its Restriction, and no KeyID. Any failure of the token is auth.ErrInvalidKey; a token before
// its "nbf" also wraps auth.ErrNotYetValid, so that a Cache does not
// remember the refusal. A failure to look the organization up is
// auth.ErrUnavailable (or ctx's error), never auth.ErrInvalidKey.
//
// Resolver is safe for concurrent use and never logs a token, nor puts any
// of it in an error.
type Resolver struct {
	parser   *jwt.Parser
	key      any
	orgClaim string
	orgs     store.Organizations
}

var _ auth.KeyResolver = (*Resolver)(nil)

// New returns a Resolver of the tokens cfg describes, for the organizations
// orgs knows (the store the handler reads, usually). It returns an error
// naming what is wrong with cfg: an algorithm not listed, a key that does
// not suit it, an empty Issuer or Audience; or an *option.Error for an
// option given a value no default stands for (see Option). It panics if
// orgs is nil.
func New(cfg Config, orgs store.Organizations, opts ...Option) (*Resolver, error) {
	if orgs == nil {
		panic("jwtauth: New needs store.Organizations")
	}
	c, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	if err := checkKey(cfg.Algorithm, cfg.Key); err != nil {
		return nil, err
	}
	if cfg.Issuer == "" || cfg.Audience == "" {
		return nil, errors.New("jwtauth: Config needs an Issuer and an Audience")
	}
	return &Resolver{
		parser: jwt.NewParser(
			jwt.WithValidMethods([]string{cfg.Algorithm}),
			jwt.WithExpirationRequired(),
			jwt.WithIssuedAt(),
			jwt.WithIssuer(cfg.Issuer),
			jwt.WithAudience(cfg.Audience),
			jwt.WithLeeway(c.leeway),
			jwt.WithTimeFunc(c.now),
		),
		key:      cfg.Key,
		orgClaim: c.orgClaim,
		orgs:     orgs,
	}, nil
}

// checkKey checks that key suits alg.
func checkKey(alg string, key any) error {
	bad := func(want string) error {
		return fmt.Errorf("jwtauth: Config.Key for %s must be %s", alg, want)
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
		return fmt.Errorf("jwtauth: Config.Algorithm %q is not supported", alg)
	}
	return nil
}

// Resolve returns the Principal of a signed token: its organization, its
// "sub" claim as Subject and its "exp" as Expiry.
func (r *Resolver) Resolve(ctx context.Context, token string) (auth.Principal, error) {
	if token == "" || len(token) > maxTokenLen || strings.Count(token, ".") != 2 {
		return auth.Principal{}, fmt.Errorf("%w: not a JWT", auth.ErrInvalidKey)
	}
	claims := jwt.MapClaims{}
	if _, err := r.parser.ParseWithClaims(token, claims, r.keyFunc); err != nil {
		if errors.Is(err, jwt.ErrTokenNotValidYet) {
			return auth.Principal{}, fmt.Errorf("%w: jwt: %w", auth.ErrInvalidKey, auth.ErrNotYetValid)
		}
		return auth.Principal{}, fmt.Errorf("%w: jwt: %s", auth.ErrInvalidKey, reason(err))
	}
	orgID, _ := claims[r.orgClaim].(string)
	if orgID == "" || len(orgID) > maxOrgIDLen {
		return auth.Principal{}, fmt.Errorf("%w: jwt: no organization in claim %q", auth.ErrInvalidKey, r.orgClaim)
	}
	restriction, err := restrictionOf(claims)
	if err != nil {
		return auth.Principal{}, err
	}
	org, err := r.orgs.Organization(ctx, orgID)
	if err != nil {
		return auth.Principal{}, auth.LookupError(ctx, err)
	}
	exp, _ := claims.GetExpirationTime() // required and checked by the parser
	sub, _ := claims.GetSubject()
	return auth.Principal{Org: org, Subject: sub, Expiry: exp.Time.UTC(), Restriction: restriction}, nil
}

// The claims of a restricted token (see the package documentation).
const (
	scopeClaim    = "scope"
	projectsClaim = "project_ids"
)

// restrictionOf reads a token's restriction from its claims.
func restrictionOf(claims jwt.MapClaims) (auth.Restriction, error) {
	var r auth.Restriction
	if v, ok := claims[scopeClaim]; ok {
		list, isString := v.(string)
		if !isString {
			return r, fmt.Errorf("%w: jwt: claim %q is not a string", auth.ErrInvalidKey, scopeClaim)
		}
		names := strings.Fields(list)
		r.Scopes = []auth.Scope{}
		for _, s := range auth.AllScopes {
			if slices.Contains(names, string(s)) {
				r.Scopes = append(r.Scopes, s)
			}
		}
	}
	if v, ok := claims[projectsClaim]; ok {
		ids, isArray := v.([]any)
		if !isArray {
			return r, fmt.Errorf("%w: jwt: claim %q is not an array", auth.ErrInvalidKey, projectsClaim)
		}
		r.ProjectIDs = make([]string, 0, len(ids))
		for _, id := range ids {
			s, isString := id.(string)
			if !isString || s == "" || !store.Storable(s) {
				return r, fmt.Errorf("%w: jwt: claim %q holds something other than a project id", auth.ErrInvalidKey, projectsClaim)
			}
			r.ProjectIDs = append(r.ProjectIDs, s)
		}
	}
	return r, nil
}

// Ping returns nil: a Resolver checks tokens against the key it was given
// and reads nothing that could be down.
func (r *Resolver) Ping(context.Context) error { return nil }

// Subscribe reports nothing: a token stays valid until its "exp", and a
// Resolver keeps nothing that a change could make stale.
func (r *Resolver) Subscribe(func(orgID string)) (stop func()) { return func() {} }

func (r *Resolver) keyFunc(*jwt.Token) (any, error) { return r.key, nil }

// reason names why a token was refused, without any of its content.
func reason(err error) string {
	for _, c := range []struct {
		err    error
		reason string
	}{
		{jwt.ErrTokenMalformed, "malformed"},
		{jwt.ErrTokenSignatureInvalid, "bad signature or algorithm"},
		{jwt.ErrTokenUnverifiable, "unverifiable"},
		{jwt.ErrTokenRequiredClaimMissing, "missing required claim"},
		{jwt.ErrTokenExpired, "expired"},
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
