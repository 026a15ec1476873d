package auth

import (
	"context"
	"errors"
	"fmt"
)

// Ping reports whether the KeyStore answers, for a readiness check (see
// statusapi.Ready): it calls the store's Ping (bunstore's runs a
// SELECT 1). The error wraps ErrUnavailable.
func (k *Keys) Ping(ctx context.Context) error {
	err := k.store.Ping(ctx)
	if err == nil || errors.Is(err, ErrUnavailable) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrUnavailable, err)
}

// Ping returns nil: a MemoryKeyStore is always there.
func (m *MemoryKeyStore) Ping(ctx context.Context) error { return nil }

// Ping reports whether the resolver behind the cache can serve, by
// calling its Ping. It never answers from the cache: a cached answer says
// nothing about the key store now.
func (c *Cache) Ping(ctx context.Context) error { return c.next.Ping(ctx) }

// Ping pings, in order, each resolver of the chain, and returns their
// errors joined; nil when all answer.
func (c chain) Ping(ctx context.Context) error {
	var errs []error
	for _, r := range c {
		if err := r.Ping(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
