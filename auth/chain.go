package auth

import (
	"cmp"
	"context"
	"errors"
	"fmt"
)

// Chain returns a KeyResolver that tries each resolver in order, for
// example stored keys, then JWTs. The first to accept the credential wins;
// a refusal (ErrInvalidKey) moves on to the next; any other error (the key
// store is down) is returned at once, so that an outage is never answered
// as a bad credential. When all refuse, the last refusal is returned.
// It panics if a resolver is nil. The resolver it returns has a Ping
// method (see statusapi.Ready) that pings each resolver that has one, and
// is an Invalidations that relays those of its resolvers that are (Keys
// is), so that a Cache in front of the chain hears them.
//
// Put a Cache in front of the chain, not behind it:
// NewCache(Chain(keys, jwts)). Then a JWT, which the keys' store does not
// hold, costs one store lookup per ttl rather than one per request.
func Chain(resolvers ...KeyResolver) KeyResolver {
	for _, r := range resolvers {
		if r == nil {
			panic("auth: Chain given a nil KeyResolver")
		}
	}
	return chain(append([]KeyResolver(nil), resolvers...))
}

type chain []KeyResolver

func (c chain) Resolve(ctx context.Context, credential string) (Principal, error) {
	err := fmt.Errorf("%w: no resolver", ErrInvalidKey)
	var notYet error // a refusal that may change with time wins: see Cache
	for _, r := range c {
		var p Principal
		p, err = r.Resolve(ctx, credential)
		if err == nil || !errors.Is(err, ErrInvalidKey) {
			return p, err
		}
		if notYet == nil && errors.Is(err, ErrNotYetValid) {
			notYet = err
		}
	}
	return Principal{}, cmp.Or(notYet, err)
}

// Subscribe subscribes fn to each resolver of the chain, and returns one
// stop for all.
func (c chain) Subscribe(fn func(orgID string)) (stop func()) {
	if fn == nil {
		panic("auth: Chain's Subscribe needs a function")
	}
	rs := make([]Invalidations, len(c))
	for i, r := range c {
		rs[i] = r
	}
	return subscribeAll(fn, rs...)
}
