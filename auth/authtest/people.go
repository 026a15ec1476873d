package authtest

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
)

// The cases of who created and revoked a key, Keys.Create and Keys.Roll.

// createWithSpec checks that Create stores every option of its KeySpec at
// once, and who created the key; that Mint stores no one; and that a
// person's name a store cannot keep is refused before anything is stored.
func (s suite) createWithSpec(t *testing.T) {
	is := is.New(t)
	e := s.setup(t)
	exp := e.clk.Now().Add(48 * time.Hour)
	plain, rec, err := e.keys.Create(ctx, e.org, auth.KeySpec{
		Name: " deploy ", ExpiresAt: &exp, Sandbox: true, CreatedBy: "Ada Lovelace",
		Restriction: auth.Restriction{Scopes: []auth.Scope{auth.ScopeInvoices}},
	})
	is.NoErr(err)
	is.True(strings.HasPrefix(plain, auth.SandboxKeyPrefix)) // a sandbox key
	is.Equal(rec.CreatedBy, "Ada Lovelace")
	is.Equal(rec.Name, "deploy") // trimmed, as Mint trims
	p := e.resolve(t, plain)
	is.True(p.Sandbox)                                   // every option at once
	is.Equal(p.Scopes, []auth.Scope{auth.ScopeInvoices}) // the restriction
	is.True(p.Expiry.Equal(exp))                         // and the expiry
	_, minted := e.mint(t, e.org, "plain", nil)          // Mint names no one
	is.Equal(minted.CreatedBy, "")
	list := mustKeys(t, e, e.org)
	is.Equal(len(list), 2)
	for _, k := range list {
		switch k.ID {
		case rec.ID:
			is.Equal(k.CreatedBy, "Ada Lovelace") // the store keeps who created the key
			is.True(k.Sandbox && k.ExpiresAt != nil && k.ExpiresAt.Equal(exp))
		case minted.ID:
			is.Equal(k.CreatedBy, "")
		}
		is.Equal(k.RevokedBy, "") // not revoked
	}
	for name, spec := range map[string]auth.KeySpec{
		"creator with NUL":   {Name: "x", CreatedBy: "Ada\x00"},
		"creator too long":   {Name: "x", CreatedBy: strings.Repeat("a", 201)},
		"name with NUL":      {Name: "x\x00"},
		"expiry in the past": {Name: "x", ExpiresAt: new(e.clk.Now().Add(-time.Second))},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := e.keys.Create(ctx, e.org, spec)
			is.New(t).True(errors.Is(err, auth.ErrInvalidInput)) // the caller's mistake
		})
	}
	list = mustKeys(t, e, e.org)
	is.Equal(len(list), 2) // nothing refused was stored
}

// revokeBy checks that the store keeps who revoked a key, and the first
// one only, as it keeps the first time.
func (s suite) revokeBy(t *testing.T) {
	is := is.New(t)
	e := s.setup(t)
	plain, rec := e.mint(t, e.org, "ci", nil)
	_, anon := e.mint(t, e.org, "anonymous", nil)
	is.NoErr(e.keys.RevokeBy(ctx, e.org, rec.ID, "Grace Hopper"))
	_, err := e.keys.Resolve(ctx, plain)
	is.True(errors.Is(err, auth.ErrRevoked)) // revoked
	is.NoErr(e.keys.RevokeBy(ctx, e.org, rec.ID, "Someone Else"))
	is.NoErr(e.keys.Revoke(ctx, e.org, anon.ID))
	err = e.keys.RevokeBy(ctx, e.other, rec.ID, "Mallory")
	is.True(errors.Is(err, auth.ErrKeyNotFound)) // another organization's key
	err = e.keys.RevokeBy(ctx, e.org, rec.ID, "bad\x00name")
	is.True(errors.Is(err, auth.ErrInvalidInput)) // a name no store keeps
	list := mustKeys(t, e, e.org)
	for _, k := range list {
		switch k.ID {
		case rec.ID:
			is.Equal(k.RevokedBy, "Grace Hopper") // the first to revoke it
		case anon.ID:
			is.Equal(k.RevokedBy, "") // Revoke names no one
			is.True(k.RevokedAt != nil)
		}
	}
}

// roll checks Keys.Roll: the new key is the old one's twin (name,
// restriction, sandbox flag, expiry) made by someone; the old key keeps
// working until keepUntil and is refused from then on.
func (s suite) roll(t *testing.T) {
	is := is.New(t)
	e := s.setup(t)
	exp := e.clk.Now().Add(30 * 24 * time.Hour)
	r := auth.Restriction{Scopes: []auth.Scope{auth.ScopeProjects, auth.ScopeLogs}}
	oldPlain, old, err := e.keys.Create(ctx, e.org, auth.KeySpec{Name: "deploy", ExpiresAt: &exp, Restriction: r, Sandbox: true, CreatedBy: "Ada"})
	is.NoErr(err)
	e.clk.Advance(time.Minute)
	keep := e.clk.Now().Add(time.Hour)
	newPlain, rec, err := e.keys.Roll(ctx, e.org, old.ID, keep, "Grace")
	is.NoErr(err)
	is.True(newPlain != oldPlain && rec.ID != old.ID)
	is.True(strings.HasPrefix(newPlain, auth.SandboxKeyPrefix)) // a sandbox key for a sandbox key
	is.Equal(rec.Name, "deploy")
	is.Equal(rec.Restriction, r)
	is.True(rec.Sandbox)
	is.True(rec.ExpiresAt != nil && rec.ExpiresAt.Equal(exp)) // the old key's expiry
	is.Equal(rec.CreatedBy, "Grace")
	is.True(rec.CreatedAt.Equal(e.clk.Now()))

	p, err := e.keys.Resolve(ctx, oldPlain)
	is.NoErr(err)                 // the old key still works
	is.True(p.Expiry.Equal(keep)) // until keepUntil
	p, err = e.keys.Resolve(ctx, newPlain)
	is.NoErr(err) // the new key works at once
	is.Equal(p.KeyID, rec.ID)
	is.True(p.Sandbox)
	is.Equal(p.Restriction, r)

	list := mustKeys(t, e, e.org)
	is.Equal(len(list), 2)
	is.Equal(list[0].ID, rec.ID)           // newest first
	is.True(list[1].ExpiresAt.Equal(keep)) // the store keeps the old key's new expiry
	is.True(list[1].RevokedAt == nil)

	is.Equal(list[1].RolledTo, rec.ID) // and which key replaced it
	is.Equal(list[0].RolledTo, "")     // the new key is not rolled

	// Rolling again in the grace period is refused, and changes nothing.
	_, _, err = e.keys.Roll(ctx, e.org, old.ID, keep.Add(-time.Minute), "Grace")
	is.True(errors.Is(err, auth.ErrKeyRolled))                      // a key is rolled once
	is.True(errors.Is(err, auth.ErrKeyInactive))                    // which is inactive for Roll
	is.True(errors.Is(err, auth.ErrInvalidInput))                   // the caller's mistake
	is.True(strings.Contains(err.Error(), "rolled to key "+rec.ID)) // naming its successor
	got := keyByID(t, e, old.ID)
	is.True(got.ExpiresAt.Equal(keep)) // the old key's expiry stays
	is.Equal(got.RolledTo, rec.ID)
	is.Equal(len(mustKeys(t, e, e.org)), 2) // no second successor
	_, err = e.keys.Resolve(ctx, oldPlain)
	is.NoErr(err) // and the old key still works

	e.clk.Set(keep)
	_, err = e.keys.Resolve(ctx, oldPlain)
	is.True(errors.Is(err, auth.ErrExpired)) // refused from keepUntil on
	_, _, err = e.keys.Roll(ctx, e.org, old.ID, keep.Add(time.Hour), "Grace")
	is.True(errors.Is(err, auth.ErrKeyRolled)) // rolled, and now expired: still refused
	soon := e.clk.Now().Add(time.Minute)
	_, short, err := e.keys.Create(ctx, e.org, auth.KeySpec{Name: "short", ExpiresAt: &soon})
	is.NoErr(err)
	e.clk.Set(soon)
	_, _, err = e.keys.Roll(ctx, e.org, short.ID, soon.Add(time.Hour), "Grace")
	is.True(errors.Is(err, auth.ErrKeyInactive))  // an expired key is not rolled
	is.True(!errors.Is(err, auth.ErrKeyRolled))   // though never rolled
	is.True(errors.Is(err, auth.ErrInvalidInput)) // the caller's mistake
	_, err = e.keys.Resolve(ctx, newPlain)
	is.NoErr(err) // the new key works on
	_, next, err := e.keys.Roll(ctx, e.org, rec.ID, e.clk.Now().Add(time.Hour), "Grace")
	is.NoErr(err) // the successor rolls in turn
	is.Equal(keyByID(t, e, rec.ID).RolledTo, next.ID)
}

// rollConcurrent checks that of concurrent Rolls of one key exactly one
// succeeds: the key has one successor, and the others are refused with
// ErrKeyRolled.
func (s suite) rollConcurrent(t *testing.T) {
	is := is.New(t)
	e := s.setup(t)
	_, old := e.mint(t, e.org, "ci", nil)
	e.clk.Advance(time.Second)
	const n = 8
	errs := make([]error, n)
	made := make([]auth.Key, n)
	start := make(chan struct{}) // every Roll starts at once
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			_, made[i], errs[i] = e.keys.Roll(ctx, e.org, old.ID, e.clk.Now().Add(time.Hour), "Grace")
		})
	}
	close(start)
	wg.Wait()
	var won auth.Key
	for i, err := range errs {
		if err == nil {
			is.Equal(won.ID, "") // only one Roll succeeds
			won = made[i]
			continue
		}
		is.True(errors.Is(err, auth.ErrKeyRolled)) // the others are refused as rolled
	}
	is.True(won.ID != "") // one Roll succeeds
	list := mustKeys(t, e, e.org)
	is.Equal(len(list), 2) // the old key and one successor
	is.Equal(keyByID(t, e, old.ID).RolledTo, won.ID)
}

// rollNow checks that a keepUntil not after now revokes the old key at
// once, by whoever rolled it; that a revoked key, another organization's
// or an unknown one is not rolled, and that a refusal stores nothing.
func (s suite) rollNow(t *testing.T) {
	is := is.New(t)
	e := s.setup(t)
	oldPlain, old := e.mint(t, e.org, "ci", nil)
	e.clk.Advance(time.Second)
	newPlain, rec, err := e.keys.Roll(ctx, e.org, old.ID, e.clk.Now(), "Grace")
	is.NoErr(err)
	is.True(rec.ExpiresAt == nil) // the old key never expired: nor does the new one
	_, err = e.keys.Resolve(ctx, oldPlain)
	is.True(errors.Is(err, auth.ErrRevoked)) // revoked at once
	_ = e.resolve(t, newPlain)
	got := keyByID(t, e, old.ID)
	is.True(got.RevokedAt != nil && got.RevokedAt.Equal(e.clk.Now()))
	is.Equal(got.RevokedBy, "Grace") // by whoever rolled it

	for name, id := range map[string]string{"revoked": old.ID, "unknown": "key_0000000000000000"} {
		t.Run(name, func(t *testing.T) {
			_, _, err := e.keys.Roll(ctx, e.org, id, e.clk.Now().Add(time.Hour), "Grace")
			is.New(t).True(err != nil)
		})
	}
	_, _, err = e.keys.Roll(ctx, e.org, old.ID, e.clk.Now().Add(time.Hour), "Grace")
	is.True(errors.Is(err, auth.ErrKeyRolled)) // a key rolled at once is not rolled again
	_, revoked := e.mint(t, e.org, "revoked", nil)
	is.NoErr(e.keys.Revoke(ctx, e.org, revoked.ID))
	_, _, err = e.keys.Roll(ctx, e.org, revoked.ID, e.clk.Now().Add(time.Hour), "Grace")
	is.True(errors.Is(err, auth.ErrKeyInactive)) // a revoked key is not rolled
	is.True(!errors.Is(err, auth.ErrKeyRolled))
	_, theirs := e.mint(t, e.other, "theirs", nil)
	_, _, err = e.keys.Roll(ctx, e.org, theirs.ID, e.clk.Now(), "Mallory")
	is.True(errors.Is(err, auth.ErrKeyNotFound)) // another organization's key
	_, _, err = e.keys.Roll(ctx, e.org, rec.ID, e.clk.Now(), "bad\x00")
	is.True(errors.Is(err, auth.ErrInvalidInput)) // a name no store keeps
	list := mustKeys(t, e, e.org)
	is.Equal(len(list), 3) // only the one roll that succeeded added a key
	is.True(keyByID(t, e, rec.ID).RevokedAt == nil)
	theirsNow := mustKeys(t, e, e.other)
	is.True(len(theirsNow) == 1 && theirsNow[0].RevokedAt == nil) // theirs untouched
}

// rollKeyAtomic calls the store's RollKey directly: when the new record
// cannot be stored, the old key is left as it was.
func (s suite) rollKeyAtomic(t *testing.T) {
	is := is.New(t)
	e := s.setup(t)
	oldPlain, old := e.mint(t, e.org, "ci", nil)
	_, other := e.mint(t, e.org, "other", nil)
	dup := auth.Key{ID: "key_00000000000000aa", OrgID: e.org, Hash: other.Hash, CreatedAt: e.clk.Now(), CreatedBy: "Grace"}
	err := e.ks.RollKey(ctx, e.org, old.ID, dup, e.clk.Now())
	is.True(err != nil) // a hash another key holds
	got := keyByID(t, e, old.ID)
	is.True(got.RevokedAt == nil && got.ExpiresAt == nil) // the old key is as it was
	_, err = e.keys.Resolve(ctx, oldPlain)
	is.NoErr(err) // and works
	next := auth.Key{ID: "key_00000000000000bb", OrgID: e.org, Hash: auth.HashKey("rolled-" + e.org), CreatedAt: e.clk.Now()}
	err = e.ks.RollKey(ctx, e.org, old.ID, next, e.clk.Now().Add(time.Hour))
	is.NoErr(err)
	_, _, err = e.ks.LookupKey(ctx, next.Hash)
	is.NoErr(err) // the new key is stored
	err = e.ks.RollKey(ctx, e.other, old.ID, auth.Key{ID: "key_00000000000000cc", OrgID: e.org, Hash: auth.HashKey("x-" + e.org), CreatedAt: e.clk.Now()}, e.clk.Now())
	is.True(errors.Is(err, auth.ErrKeyNotFound)) // the key of another organization
	_, _, err = e.ks.LookupKey(ctx, auth.HashKey("x-"+e.org))
	is.True(errors.Is(err, auth.ErrInvalidKey)) // and nothing stored
}

func keyByID(t *testing.T, e *env, id string) auth.Key {
	t.Helper()
	for _, k := range mustKeys(t, e, e.org) {
		if k.ID == id {
			return k
		}
	}
	t.Fatalf("no key %s", id)
	return auth.Key{}
}

func mustKeys(t *testing.T, e *env, org string) []auth.Key {
	t.Helper()
	list, err := e.keys.List(ctx, org)
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	return list
}

// resolve resolves a key that must resolve.
func (e *env) resolve(t *testing.T, plain string) auth.Principal {
	t.Helper()
	p, err := e.keys.Resolve(ctx, plain)
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	return p
}
