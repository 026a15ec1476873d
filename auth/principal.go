package auth

import (
	"context"
	"errors"
	"time"

	"github.com/clientstatus/clientstatus/store"
)

// ErrInvalidKey is returned (wrapped) for a credential that is malformed,
// unknown, revoked or expired. The handler answers 401 UNAUTHORIZED.
var ErrInvalidKey = errors.New("auth: invalid key")

// ErrUnavailable is returned (wrapped) when the key store cannot be reached
// or does not answer in time. The handler answers 503 UNAVAILABLE.
//
// It is store.ErrUnavailable itself, not a second error: one store
// (bunstore) serves both the data and the keys, and a caller checks one
// error for an outage of either.
var ErrUnavailable = store.ErrUnavailable

// ErrInvalidInput is returned (wrapped) by Keys.Mint and Keys.Import, and
// by KeyStore.CreateKey, for input they refuse: a name too long, an expiry
// not in the future, a malformed imported key or one another organization
// holds, a key record without an id. A portal answers it as its caller's
// mistake. An organization without an account is ErrUnknownOrganization
// instead, which does not wrap ErrInvalidInput: it is put first, not
// retyped.
//
// It is store.ErrInvalid itself, the error of store's Validate methods, so
// one check covers a refused key and a refused item.
var ErrInvalidInput = store.ErrInvalid

// ErrNotYetValid is wrapped, beside ErrInvalidKey, by a refusal that may
// turn into an acceptance by itself, with time (a JWT before its "nbf"): a
// Cache does not remember such a refusal.
var ErrNotYetValid = errors.New("auth: credential not valid yet")

// Principal is an authenticated caller: the organization it acts for, and
// which credential it used. It carries its own expiry, so that a Cache in
// front of any resolver (a portal's own included) keeps it no longer.
type Principal struct {
	// Org is the caller's organization, as the key store holds it now:
	// its plan sets the rate limit; Org.CanUseAPI says whether it may use
	// the API.
	Org store.Organization
	// KeyID identifies the stored API key used, "" for other credentials
	// (a JWT). It is an id, never the key.
	KeyID string
	// Subject is who the credential speaks for within the organization:
	// a JWT's "sub" claim, "" for an API key. It is for logs.
	Subject string
	// Expiry is when the credential stops being valid (a key's or a
	// token's expiry); zero when it has none of its own.
	Expiry time.Time
	// Restriction is what the credential may read (its Scopes and
	// ProjectIDs: a key's as minted, a JWT's from its claims); the zero
	// value: all of the organization's data. The handler enforces it on
	// every route. Its lists are shared with a Cache: do not change them.
	Restriction
	// Sandbox says that the credential is a sandbox key: Org is still the
	// live organization (its account decides access and plan), and the
	// handler reads the organization SandboxOrgID(Org.ID) instead of it,
	// for every store, the rate limit and the cache.
	Sandbox bool
}

// KeyResolver resolves the credential of an "Authorization: Bearer <credential>"
// header to the calling Principal. Implementations are safe for concurrent
// use and never log the credential.
//
// Resolve returns an error wrapping ErrInvalidKey for a malformed, unknown,
// revoked or expired credential, and one wrapping ErrUnavailable (or ctx's
// error) when it cannot tell. It resolves a credential of an organization
// that may not use the API like any other: the caller decides. Ping
// reports whether it can serve, for a readiness check (nil when it has
// nothing to check). Subscribe reports the organizations whose keys or
// account changed, so that a Cache in front forgets them at once; a
// wrapper of a resolver keeps revocation fast only by passing it on.
type KeyResolver interface {
	Resolve(ctx context.Context, credential string) (Principal, error)
	Ping(ctx context.Context) error
	Invalidations
}

// ResolverFunc adapts a function to KeyResolver.
type ResolverFunc func(ctx context.Context, credential string) (Principal, error)

// Resolve calls f.
func (f ResolverFunc) Resolve(ctx context.Context, credential string) (Principal, error) {
	return f(ctx, credential)
}

// Ping returns nil: a function has nothing to check.
func (f ResolverFunc) Ping(context.Context) error { return nil }

// Subscribe reports nothing: a function has nothing to report. A
// portal whose function reads keys that can be revoked wraps it in a type
// whose Subscribe reports them (a Broadcast it publishes to, say).
func (f ResolverFunc) Subscribe(func(orgID string)) (stop func()) { return func() {} }
