package auth_test

import (
	"context"
	"testing"
	"time"

	"github.com/clientstatus/clientstatus/auth"
)

func benchKey(b *testing.B) (*auth.Keys, string) {
	b.Helper()
	ks := newKeyStore()
	ks.PutOrganization(active)
	keys := auth.NewKeys(ks)
	plain, _, err := keys.Mint(context.Background(), "org_a", "bench", nil)
	if err != nil {
		b.Fatal(err)
	}
	return keys, plain
}

// BenchmarkKeysResolve is a lookup on the memory store: checksum, SHA-256,
// map lookup, last-use recording.
func BenchmarkKeysResolve(b *testing.B) {
	keys, plain := benchKey(b)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := keys.Resolve(context.Background(), plain); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkCacheResolve is a cache hit: what a busy client costs.
func BenchmarkCacheResolve(b *testing.B) {
	keys, plain := benchKey(b)
	c := auth.NewCache(keys, auth.WithCacheTTL(time.Minute))
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := c.Resolve(context.Background(), plain); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkMint is minting a key on the memory store.
func BenchmarkMint(b *testing.B) {
	ks := newKeyStore()
	ks.PutOrganization(active)
	keys := auth.NewKeys(ks)
	b.ReportAllocs()
	for range b.N {
		if _, _, err := keys.Mint(context.Background(), "org_a", "bench", nil); err != nil {
			b.Fatal(err)
		}
	}
}
