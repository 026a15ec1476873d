package auth_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/internal/test/testenv"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/store"
)

// newClock returns a test clock at a fixed start.
func newClock() *testenv.Clock { return testenv.NewClock(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)) }

var active = store.Organization{ID: "org_a", Plan: store.PlanStarter, RetainerActive: true, APIEnabled: true}

func newKeys(t *testing.T, opts ...auth.Option) (*auth.Keys, *testKeyStore) {
	t.Helper()
	ks := newKeyStore()
	ks.PutOrganization(active)
	return auth.NewKeys(ks, opts...), ks
}

func TestMintedKeyFormat(t *testing.T) {
	is := is.New(t)
	keys, _ := newKeys(t)
	seen := map[string]bool{}
	for range 50 {
		plain, rec, err := keys.Mint(context.Background(), "org_a", "ci", nil)
		is.NoErr(err)
		is.True(strings.HasPrefix(plain, "csk_")) // recognisable prefix
		is.Equal(len(plain), 42)                  // csk_ + 32 random + 6 checksum
		for _, r := range plain[4:] {
			is.True(strings.ContainsRune("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", r)) // base62
		}
		is.Equal(rec.Prefix, plain[:8])            // display prefix
		is.Equal(rec.Hash, auth.HashKey(plain))    // stored by hash
		is.True(strings.HasPrefix(rec.ID, "key_")) // key ids
		is.True(!seen[plain])                      // keys are random
		seen[plain] = true
	}
}

func TestHashKey(t *testing.T) {
	is := is.New(t)
	is.Equal(auth.HashKey("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") // SHA-256 test vector
}

// refusingStore is a KeyStore that fails the test if it is asked anything.
type refusingStore struct{ t *testing.T }

func (s refusingStore) fail() {
	s.t.Helper()
	s.t.Error("the key store was asked about a credential that should have been refused before")
}
func (s refusingStore) CreateKey(context.Context, auth.Key) error { s.fail(); return nil }
func (s refusingStore) GetProject(context.Context, string, string) (store.Project, error) {
	s.fail()
	return store.Project{}, nil
}
func (s refusingStore) Ping(context.Context) error { return nil }

func (s refusingStore) Subscribe(func(string)) func() { return func() {} }
func (s refusingStore) Keys(context.Context, string) ([]auth.Key, error) {
	s.fail()
	return nil, nil
}
func (s refusingStore) RevokeKey(context.Context, string, string, time.Time) error {
	s.fail()
	return nil
}
func (s refusingStore) RevokeKeyBy(context.Context, string, string, time.Time, string) error {
	s.fail()
	return nil
}
func (s refusingStore) RollKey(context.Context, string, string, auth.Key, time.Time) error {
	s.fail()
	return nil
}
func (s refusingStore) LookupKey(context.Context, string) (auth.Key, store.Organization, error) {
	s.fail()
	return auth.Key{}, store.Organization{}, auth.ErrInvalidKey
}
func (s refusingStore) Organization(context.Context, string) (store.Organization, error) {
	s.fail()
	return store.Organization{}, store.ErrNotFound
}
func (s refusingStore) MarkUsed(context.Context, map[string]time.Time) error { s.fail(); return nil }

func TestMalformedCredentialsRefusedBeforeLookup(t *testing.T) {
	keys, _ := newKeys(t)
	good, _, err := keys.Mint(context.Background(), "org_a", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	// Change one random character: the checksum no longer matches.
	c := []byte(good)
	if c[10] == 'A' {
		c[10] = 'B'
	} else {
		c[10] = 'A'
	}
	typo := string(c)
	tests := map[string]string{
		"empty":          "",
		"too long":       strings.Repeat("x", 513),
		"space":          "plaintext key",
		"control":        "plaintext\x00key",
		"non-ascii":      "plaintext-kéy",
		"prefix only":    "csk_",
		"short":          good[:41],
		"long":           good + "0",
		"bad alphabet":   good[:10] + "-" + good[11:],
		"bad checksum":   good[:36] + "000000",
		"one char typo":  typo,
		"other checksum": good[:4] + good[5:36] + good[4:5] + good[36:],
	}
	strict := auth.NewKeys(refusingStore{t})
	for name, cred := range tests {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			_, err := strict.Resolve(context.Background(), cred)
			is.True(errors.Is(err, auth.ErrInvalidKey)) // refused as an invalid key
		})
	}
}

func TestResolve(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	clk := newClock()
	keys, ks := newKeys(t, auth.WithClock(clk.Now))
	ks.PutOrganization(store.Organization{ID: "org_b", Plan: store.PlanGrowth})

	plain, rec, err := keys.Mint(ctx, "org_a", "ci", nil)
	is.NoErr(err)
	p, err := keys.Resolve(ctx, plain)
	is.NoErr(err)
	is.Equal(p, auth.Principal{Org: active, KeyID: rec.ID}) // the key's organization and account

	// A key imported from a data file is found by hash, whatever its shape.
	imp, err := keys.Import(ctx, "org_b", "demo", "plaintext-key", nil)
	is.NoErr(err)
	is.Equal(imp.Prefix, "plai") // a third of a short key at most
	p, err = keys.Resolve(ctx, "plaintext-key")
	is.NoErr(err)
	is.Equal(p.Org.ID, "org_b")
	is.True(!p.Org.CanUseAPI()) // resolved; the handler answers 403

	_, err = keys.Resolve(ctx, "unknown-key")
	is.True(errors.Is(err, auth.ErrInvalidKey)) // unknown key

	exp := clk.Now().Add(time.Hour)
	short, _, err := keys.Mint(ctx, "org_a", "short", &exp)
	is.NoErr(err)
	_, err = keys.Resolve(ctx, short)
	is.NoErr(err) // valid before its expiry
	clk.Advance(time.Hour)
	_, err = keys.Resolve(ctx, short)
	is.True(errors.Is(err, auth.ErrInvalidKey)) // expired at its expiry
}

func TestImportIsIdempotent(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	keys, ks := newKeys(t)
	ks.PutOrganization(store.Organization{ID: "org_b", Plan: store.PlanStarter})
	first, err := keys.Import(ctx, "org_a", "demo", "plaintext-key", nil)
	is.NoErr(err)
	again, err := keys.Import(ctx, "org_a", "renamed", "plaintext-key", nil)
	is.NoErr(err)
	is.Equal(again.ID, first.ID) // the same record
	list, err := keys.List(ctx, "org_a")
	is.NoErr(err)
	is.Equal(len(list), 1) // no second record
	_, err = keys.Import(ctx, "org_b", "demo", "plaintext-key", nil)
	is.True(errors.Is(err, auth.ErrInvalidInput)) // another organization's key
	_, err = keys.Import(ctx, "org_a", "bad", "csk_notwellformed", nil)
	is.True(errors.Is(err, auth.ErrInvalidInput)) // a malformed key is the caller's mistake
	is.True(errors.Is(err, auth.ErrInvalidKey))   // and a malformed csk_ key could never resolve
}

func TestImportRefuses(t *testing.T) {
	ctx := context.Background()
	keys, _ := newKeys(t)
	tests := []struct {
		name    string
		org     string
		keyName string
		key     string
		want    error
	}{
		{"unknown organization", "org_x", "demo", "plaintext-key", auth.ErrUnknownOrganization},
		{"name too long", "org_a", strings.Repeat("n", 201), "plaintext-key", auth.ErrInvalidInput},
		{"key with a space", "org_a", "demo", "plaintext key", auth.ErrInvalidInput},
		{"empty key", "org_a", "demo", "", auth.ErrInvalidInput},
		{"key too long", "org_a", "demo", strings.Repeat("k", 513), auth.ErrInvalidInput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			_, err := keys.Import(ctx, tt.org, tt.keyName, tt.key, nil)
			is.True(errors.Is(err, tt.want)) // the error says why
			if tt.want == auth.ErrUnknownOrganization {
				is.True(!errors.Is(err, auth.ErrInvalidInput)) // a missing account is not bad input
			}
			if tt.key != "" {
				is.True(!strings.Contains(err.Error(), tt.key)) // the error never holds the key
			}
		})
	}
}

func TestImportExpiredKey(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	clk := newClock()
	keys, _ := newKeys(t, auth.WithClock(clk.Now))
	past := clk.Now().Add(-time.Hour)
	rec, err := keys.Import(ctx, "org_a", "old", "expired-demo-key", &past)
	is.NoErr(err) // stored, as a data file may show an expired key
	is.True(rec.ExpiresAt.Equal(past))
	_, err = keys.Resolve(ctx, "expired-demo-key")
	is.True(errors.Is(err, auth.ErrInvalidKey)) // and refused as expired
}

func TestMintRefuses(t *testing.T) {
	ctx := context.Background()
	clk := newClock()
	keys, _ := newKeys(t, auth.WithClock(clk.Now))
	past := clk.Now().Add(-time.Second)
	now := clk.Now()
	tests := []struct {
		name    string
		org     string
		keyName string
		expires *time.Time
		want    error
	}{
		{"unknown organization", "org_x", "ci", nil, auth.ErrUnknownOrganization},
		{"expiry in the past", "org_a", "ci", &past, auth.ErrInvalidInput},
		{"expiry now", "org_a", "ci", &now, auth.ErrInvalidInput},
		{"name too long", "org_a", strings.Repeat("n", 201), nil, auth.ErrInvalidInput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			plain, _, err := keys.Mint(ctx, tt.org, tt.keyName, tt.expires)
			is.True(errors.Is(err, tt.want))                                               // refused, saying why
			is.True(errors.Is(err, store.ErrInvalid) == (tt.want == auth.ErrInvalidInput)) // ErrInvalidInput is store.ErrInvalid; a missing account is neither
			is.Equal(plain, "")                                                            // and no key handed out
		})
	}
}

func TestMintForAnOrganizationWithoutAccount(t *testing.T) {
	is := is.New(t)
	keys := auth.NewKeys(newKeyStore())
	_, _, err := keys.Mint(context.Background(), "org_x", "ci", nil)
	is.True(errors.Is(err, auth.ErrUnknownOrganization)) // says what is missing
	is.True(!errors.Is(err, auth.ErrInvalidKey))         // not a bad key: no key was given
	is.True(strings.Contains(err.Error(), `"org_x"`))
}

// downStore is a KeyStore whose database is gone.
type downStore struct{ auth.KeyStore }

func (downStore) LookupKey(context.Context, string) (auth.Key, store.Organization, error) {
	return auth.Key{}, store.Organization{}, fmt.Errorf("bunstore: look up key: %w: connection refused", store.ErrUnavailable)
}

func (downStore) Organization(context.Context, string) (store.Organization, error) {
	return store.Organization{}, fmt.Errorf("bunstore: organization: %w: connection refused", store.ErrUnavailable)
}

// TestUnavailableIsShared checks that a key store's outage is one error for
// a caller, whichever package's name it checks.
func TestUnavailableIsShared(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	keys := auth.NewKeys(downStore{newKeyStore()})
	_, err := keys.Resolve(ctx, "plaintext-key")
	is.True(errors.Is(err, auth.ErrUnavailable))  // the key store's outage
	is.True(errors.Is(err, store.ErrUnavailable)) // is the store's outage
	is.True(!errors.Is(err, auth.ErrInvalidKey))  // and never a 401

	_, _, err = keys.Mint(ctx, "org_a", "ci", nil)
	is.True(errors.Is(err, auth.ErrUnavailable))                                           // minting during the outage
	is.True(!errors.Is(err, auth.ErrUnknownOrganization))                                  // is not told an account is missing
	is.True(!errors.Is(err, auth.ErrInvalidInput))                                         // nor that the input was wrong
	is.True(errors.Is(auth.LookupError(ctx, errors.New("timeout")), store.ErrUnavailable)) // LookupError's outage too
}

// countingStore counts MarkUsed calls and can make them fail.
type countingStore struct {
	auth.KeyStore
	mu    sync.Mutex
	calls int
	fail  bool
}

func (s *countingStore) MarkUsed(ctx context.Context, used map[string]time.Time) error {
	s.mu.Lock()
	s.calls++
	fail := s.fail
	s.mu.Unlock()
	if fail {
		return errors.New("database is down")
	}
	return s.KeyStore.MarkUsed(ctx, used)
}

func (s *countingStore) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

func TestLastUsedIsBatched(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	clk := newClock()
	mem := newKeyStore()
	mem.PutOrganization(active)
	cs := &countingStore{KeyStore: mem, fail: true}
	keys := auth.NewKeys(cs, auth.WithClock(clk.Now), auth.WithFlushInterval(time.Minute))
	plain, rec, err := keys.Mint(ctx, "org_a", "ci", nil)
	is.NoErr(err)

	for range 100 {
		_, err := keys.Resolve(ctx, plain)
		is.NoErr(err)
	}
	is.Equal(cs.Calls(), 0) // no write per request

	clk.Advance(time.Minute)
	_, err = keys.Resolve(ctx, plain)
	is.NoErr(err) // a failing write never fails a request
	listed, err := keys.List(ctx, "org_a")
	is.NoErr(err)
	is.True(listed[0].LastUsedAt != nil && listed[0].LastUsedAt.Equal(clk.Now())) // List shows the use not yet written
	is.True(keys.Flush(ctx) != nil)                                               // the store is still down
	is.True(cs.Calls() >= 1)                                                      // the batch was written once the interval passed

	cs.mu.Lock()
	cs.fail = false
	cs.mu.Unlock()
	is.NoErr(keys.Close()) // the failed batch is retried
	stored, err := mem.Keys(ctx, "org_a")
	is.NoErr(err)
	is.Equal(stored[0].ID, rec.ID)
	is.True(stored[0].LastUsedAt != nil)           // recorded
	is.True(stored[0].LastUsedAt.Equal(clk.Now())) // the latest use
}

// testKeyStore is a MemoryKeyStore and the memstore.Store it reads its
// organizations from.
type testKeyStore struct {
	*auth.MemoryKeyStore
	orgs *memstore.Store
}

func newKeyStore() *testKeyStore {
	orgs := memstore.New()
	return &testKeyStore{MemoryKeyStore: auth.NewMemoryKeyStore(orgs), orgs: orgs}
}

// PutProject puts a project into the store the key store reads, so that
// authtest can check keys restricted to projects.
func (s *testKeyStore) PutProject(ctx context.Context, p store.Project) error {
	return s.orgs.PutProject(ctx, p)
}

// PutOrganization creates or replaces an organization; it panics on an
// invalid one, a mistake of the test.
func (s *testKeyStore) PutOrganization(o store.Organization) {
	if err := s.orgs.PutOrganization(context.Background(), o); err != nil {
		panic(err)
	}
}
