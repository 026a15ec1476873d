package auth

import (
	"context"
	"errors"
	"fmt"
)

// pinger is the optional readiness capability of a KeyStore or a
// KeyResolver: Ping returns nil when it can serve. It is not part of
// either interface, so implementations written before it keep compiling.
type pinger interface {
	Ping(ctx context.Context) error
}

// Ping reports whether the KeyStore answers, for a readiness check (see
// statusapi.Ready): it calls the store's own Ping when it has one
// (store/bunstore's runs a SELECT 1), and returns nil when it has none.
// The error wraps ErrUnavailable.
func (k *Keys) Ping(ctx context.Context) error {
	p, ok := k.store.(pinger)
	if !ok {
		return nil
	}
	err := p.Ping(ctx)
	if err == nil || errors.Is(err, ErrUnavailable) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrUnavailable, err)
}

// Ping returns nil: a MemoryKeyStore is always there.
func (m *MemoryKeyStore) Ping(ctx context.Context) error { return nil }

// Ping reports whether the resolver behind the cache can serve, by
// calling its Ping when it has one (nil otherwise). It never answers from
// the cache: a cached answer says nothing about the key store now.
func (c *Cache) Ping(ctx context.Context) error {
	if p, ok := c.next.(pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

// Ping pings, in order, each resolver of the chain that has Ping, and
// returns their errors joined; nil when all answer.
func (c chain) Ping(ctx context.Context) error {
	var errs []error
	for _, r := range c {
		if p, ok := r.(pinger); ok {
			if err := p.Ping(ctx); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}
