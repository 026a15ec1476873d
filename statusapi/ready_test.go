package statusapi_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/store"
)

// pingStore is a store whose Ping answers err.
type pingStore struct {
	store.Store
	err error
}

func (s pingStore) Ping(context.Context) error { return s.err }

// pingKeyStore is a key store whose Ping answers err.
type pingKeyStore struct {
	*auth.MemoryKeyStore
	err error
}

func (s pingKeyStore) Ping(context.Context) error { return s.err }

// pingLimiter is a limiter whose Ping answers err.
type pingLimiter struct {
	ratelimit.Limiter
	err error
}

func (l pingLimiter) Ping(context.Context) error { return l.err }

// hangingStore is a store whose Ping never answers, ctx or not.
type hangingStore struct{ store.Store }

func (hangingStore) Ping(context.Context) error { select {} }

// noPingStore is a store written without Ping.
type noPingStore struct{ store.Store }

// noPingResolver is a key resolver with nothing to ping.
type noPingResolver struct{ auth.ResolverFunc }

func TestReady(t *testing.T) {
	ctx := context.Background()
	dbDown := fmt.Errorf("bunstore: ping: %w: dial tcp 10.0.0.7:5432: connection refused", store.ErrUnavailable)
	redisDown := fmt.Errorf("%w: ping: dial tcp 10.0.0.8:6379: i/o timeout", ratelimit.ErrUnavailable)
	keysOn := func(err error) auth.KeyResolver {
		// What a portal passes: a cache over keys over a key store.
		return auth.NewCache(auth.NewKeys(pingKeyStore{auth.NewMemoryKeyStore(memstore.New()), err}), auth.WithCacheTTL(time.Minute))
	}
	for _, tc := range []struct {
		name  string
		st    store.Store
		keys  auth.KeyResolver
		lim   ratelimit.Limiter
		parts []string // the failing parts, in order
	}{
		{"in memory", memstore.New(), auth.NewKeys(auth.NewMemoryKeyStore(memstore.New())), ratelimit.NewMemory(), nil},
		{"all up", pingStore{memstore.New(), nil}, keysOn(nil), pingLimiter{ratelimit.NewMemory(), nil}, nil},
		{"nothing to ping", noPingStore{memstore.New()}, noPingResolver{}, ratelimit.NewMemory(), nil},
		{"nil limiter", memstore.New(), keysOn(nil), nil, nil},
		{"database down", pingStore{memstore.New(), dbDown}, keysOn(dbDown), ratelimit.NewMemory(), []string{"store", "key store"}},
		{"redis down", memstore.New(), keysOn(nil), pingLimiter{ratelimit.NewMemory(), redisDown}, []string{"limiter"}},
		{"chain", memstore.New(), auth.Chain(noPingResolver{}, keysOn(dbDown)), nil, []string{"key store"}},
		{"everything down", pingStore{memstore.New(), dbDown}, keysOn(dbDown), pingLimiter{ratelimit.NewMemory(), redisDown}, []string{"store", "key store", "limiter"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			err := statusapi.Ready(ctx, tc.st, tc.keys, tc.lim)
			if tc.parts == nil {
				is.NoErr(err) // every part is ready
				return
			}
			is.True(err != nil) // a part is down
			var got []string
			for _, line := range strings.Split(err.Error(), "\n") {
				part, _, _ := strings.Cut(line, ": ")
				got = append(got, part)
			}
			is.Equal(got, tc.parts) // one line per failing part, named
			var pe *statusapi.PartError
			is.True(errors.As(err, &pe))   // each is a *PartError
			is.Equal(pe.Part, tc.parts[0]) // the first in order
			if strings.Contains(tc.name, "database") {
				is.True(errors.Is(err, store.ErrUnavailable)) // the parts' errors are wrapped
				is.True(errors.Is(err, auth.ErrUnavailable))  // auth.Keys says the key store is unavailable
			}
		})
	}
}

func TestReadyIsBoundedByContext(t *testing.T) {
	is := is.New(t)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := statusapi.Ready(ctx, hangingStore{memstore.New()}, auth.NewKeys(auth.NewMemoryKeyStore(memstore.New())), ratelimit.NewMemory())
	is.True(time.Since(start) < 5*time.Second)           // a Ping that ignores ctx does not hold Ready
	is.True(errors.Is(err, context.DeadlineExceeded))    // the part that did not answer failed with ctx's error
	is.True(strings.HasPrefix(err.Error(), "store: "))   // and is named
	is.True(!strings.Contains(err.Error(), "key store")) // the parts that answered are not
}

func ExampleReady() {
	st, keys, _, _ := exampleParts()
	defer keys.Close()
	lim := ratelimit.NewMemory()
	// A portal's readiness check: the handler's parts, bounded in time.
	ready := func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		return statusapi.Ready(ctx, st, keys, lim)
	}
	fmt.Println(ready(context.Background()))

	down := pingStore{st, fmt.Errorf("bunstore: ping: %w", store.ErrUnavailable)}
	fmt.Println(statusapi.Ready(context.Background(), down, keys, lim))
	// Output:
	// <nil>
	// store: bunstore: ping: store unavailable
}
