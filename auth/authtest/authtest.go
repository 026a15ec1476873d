package authtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/internal/test/testenv"
	"github.com/clientstatus/clientstatus/option"
	"github.com/clientstatus/clientstatus/store"
)

// Option configures RunKeyStore. As every option of the module (see
// package [github.com/clientstatus/clientstatus/option]), a nil Option is
// ignored and an option given nil keeps the default.
type Option func(*config)

type config struct {
	dump func(t *testing.T, ks auth.KeyStore) []byte
}

// WithDump gives RunKeyStore a way to read everything the store holds (a
// database dump, every row of every table as text). The suite then checks
// that the plaintext of a minted key appears nowhere in it. nil, the
// default, skips that check.
func WithDump(dump func(t *testing.T, ks auth.KeyStore) []byte) Option {
	return func(c *config) { c.dump = dump }
}

// RunKeyStore runs the suite. open is called once per subtest and returns a
// fresh store (or one shared but isolated: the suite uses organization ids
// unique to each subtest) and a function that creates or updates an
// organization in the store it reads organizations from.
//
// The cases of keys restricted to projects need projects: the suite puts
// them through the key store's PutProject(ctx, store.Project) method, and
// skips those cases, saying so, for a store without one.
func RunKeyStore(t *testing.T, open func(t *testing.T) (auth.KeyStore, func(store.Organization)), opts ...Option) {
	t.Helper()
	var cfg config
	option.Apply(&cfg, opts)
	s := suite{open: open, cfg: cfg}
	tests := []struct {
		name string
		fn   func(t *testing.T)
	}{
		{"MintThenResolve", s.mintThenResolve},
		{"SeveralKeysPerOrganization", s.severalKeys},
		{"List", s.list},
		{"Revoke", s.revoke},
		{"RevokeOtherOrganizationsKey", s.revokeOtherOrg},
		{"Expiry", s.expiry},
		{"AccountOff", s.accountOff},
		{"PlaintextNeverStored", s.plaintextNeverStored},
		{"LastUsedAfterFlush", s.lastUsed},
		{"MarkUsedKeepsGreatest", s.markUsedKeepsGreatest},
		{"Lookups", s.lookups},
		{"Import", s.importKeys},
		{"DuplicateHash", s.duplicateHash},
		{"IncompleteRecord", s.incompleteRecord},
		{"Concurrent", s.concurrent},
		{"Restrictions", s.restrictions},
		{"RestrictedToProjects", s.restrictedToProjects},
		{"ImportRestricted", s.importRestricted},
		{"RestrictionKeptAsGiven", s.restrictionKept},
		{"SandboxKeys", s.sandboxKeys},
		{"CreateWithSpec", s.createWithSpec},
		{"RevokeBy", s.revokeBy},
		{"Roll", s.roll},
		{"RollNow", s.rollNow},
		{"RollConcurrent", s.rollConcurrent},
		{"RollKeyAtomic", s.rollKeyAtomic},
	}
	for _, tt := range tests {
		t.Run(tt.name, tt.fn)
	}
}

// ctx is the context of every call of the suite.
var ctx = context.Background()

type suite struct {
	open func(t *testing.T) (auth.KeyStore, func(store.Organization))
	cfg  config
}

// env is one subtest's store, clock, Keys and a unique organization.
type env struct {
	ks    auth.KeyStore
	put   func(store.Organization)
	clk   *testenv.Clock // at whole seconds, which every store keeps exactly
	keys  *auth.Keys
	org   string
	acct  store.Organization
	other string // a second organization with an account
}

var seq struct {
	sync.Mutex
	n int
}

// orgID returns an organization id unique to this process and run.
func orgID(tag string) string {
	seq.Lock()
	defer seq.Unlock()
	seq.n++
	return fmt.Sprintf("org_authtest_%s_%d_%d", tag, time.Now().UnixNano(), seq.n)
}

func (s suite) setup(t *testing.T) *env {
	t.Helper()
	ks, put := s.open(t)
	e := &env{
		ks:    ks,
		put:   put,
		clk:   testenv.NewClock(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)),
		org:   orgID("a"),
		other: orgID("b"),
	}
	e.acct = store.Organization{ID: e.org, Name: "Org A", Plan: store.PlanGrowth, RetainerActive: true, APIEnabled: true}
	put(e.acct)
	put(store.Organization{ID: e.other, Name: "Org B", Plan: store.PlanStarter, RetainerActive: true, APIEnabled: true})
	e.keys = auth.NewKeys(ks, auth.WithClock(e.clk.Now), auth.WithFlushInterval(time.Hour))
	t.Cleanup(func() { _ = e.keys.Close() })
	return e
}

func (e *env) mint(t *testing.T, org, name string, expires *time.Time) (string, auth.Key) {
	t.Helper()
	plain, rec, err := e.keys.Mint(ctx, org, name, expires)
	if err != nil {
		t.Fatalf("Mint: %v", err)
	}
	return plain, rec
}

func (s suite) mintThenResolve(t *testing.T) {
	is := is.New(t)
	e := s.setup(t)
	plain, rec := e.mint(t, e.org, "ci", nil)
	p, err := e.keys.Resolve(ctx, plain)
	is.NoErr(err)
	is.Equal(p.KeyID, rec.ID) // the key used
	is.Equal(p.Org, e.acct)   // its organization
}

func (s suite) severalKeys(t *testing.T) {
	is := is.New(t)
	e := s.setup(t)
	old, oldRec := e.mint(t, e.org, "old", nil)
	e.clk.Advance(time.Second)
	next, nextRec := e.mint(t, e.org, "new", nil)
	for _, k := range []string{old, next} {
		p, err := e.keys.Resolve(ctx, k)
		is.NoErr(err) // both keys valid at once
		is.Equal(p.Org.ID, e.org)
	}
	is.NoErr(e.keys.Revoke(ctx, e.org, oldRec.ID))
	_, err := e.keys.Resolve(ctx, old)
	is.True(errors.Is(err, auth.ErrInvalidKey)) // the rotated-out key is refused
	p, err := e.keys.Resolve(ctx, next)
	is.NoErr(err) // the new key keeps working
	is.Equal(p.KeyID, nextRec.ID)
}

func (s suite) list(t *testing.T) {
	is := is.New(t)
	e := s.setup(t)
	created := e.clk.Now()
	exp := created.Add(30 * 24 * time.Hour)
	plainA, a := e.mint(t, e.org, "ci", &exp)
	e.clk.Advance(time.Second)
	_, b := e.mint(t, e.org, "laptop", nil)
	e.mint(t, e.other, "other org", nil)
	e.clk.Advance(time.Second)
	is.NoErr(e.keys.Revoke(ctx, e.org, b.ID))
	revokedAt := e.clk.Now()

	got := mustKeys(t, e, e.org)
	is.Equal(len(got), 2)     // only this organization's keys, revoked ones included
	is.Equal(got[0].ID, b.ID) // newest first
	is.Equal(got[1].ID, a.ID) // then older
	is.Equal(got[1].OrgID, e.org)
	is.Equal(got[1].Name, "ci")
	is.Equal(got[1].Prefix, plainA[:8])                                   // display prefix
	is.Equal(got[1].Hash, auth.HashKey(plainA))                           // stored hash
	is.True(got[1].CreatedAt.Equal(created))                              // created
	is.True(got[1].ExpiresAt != nil && got[1].ExpiresAt.Equal(exp))       // expires
	is.True(got[1].RevokedAt == nil)                                      // not revoked
	is.True(got[1].LastUsedAt == nil)                                     // never used
	is.True(got[0].ExpiresAt == nil)                                      // never expires
	is.True(got[0].RevokedAt != nil && got[0].RevokedAt.Equal(revokedAt)) // revoked
}

func (s suite) revoke(t *testing.T) {
	is := is.New(t)
	e := s.setup(t)
	plain, rec := e.mint(t, e.org, "ci", nil)
	e.clk.Advance(time.Second)
	first := e.clk.Now()
	is.NoErr(e.keys.Revoke(ctx, e.org, rec.ID))
	_, err := e.keys.Resolve(ctx, plain)
	is.True(errors.Is(err, auth.ErrInvalidKey)) // a revoked key is refused

	e.clk.Advance(time.Hour)
	is.NoErr(e.keys.Revoke(ctx, e.org, rec.ID)) // revoking twice is fine
	got := mustKeys(t, e, e.org)
	is.True(got[0].RevokedAt.Equal(first)) // and keeps the first time

	err = e.keys.Revoke(ctx, e.org, "key_0000000000000000")
	is.True(errors.Is(err, auth.ErrKeyNotFound)) // unknown key id
}

func (s suite) revokeOtherOrg(t *testing.T) {
	is := is.New(t)
	e := s.setup(t)
	plain, rec := e.mint(t, e.other, "theirs", nil)
	err := e.keys.Revoke(ctx, e.org, rec.ID)
	is.True(errors.Is(err, auth.ErrKeyNotFound)) // another organization's key cannot be revoked
	_, err = e.keys.Resolve(ctx, plain)
	is.NoErr(err) // and still works
}

func (s suite) expiry(t *testing.T) {
	is := is.New(t)
	e := s.setup(t)
	exp := e.clk.Now().Add(time.Hour)
	plain, _ := e.mint(t, e.org, "ci", &exp)
	e.clk.Advance(time.Hour - time.Second)
	_, err := e.keys.Resolve(ctx, plain)
	is.NoErr(err) // valid until its expiry
	e.clk.Advance(time.Second)
	_, err = e.keys.Resolve(ctx, plain)
	is.True(errors.Is(err, auth.ErrInvalidKey)) // refused from its expiry on
}

func (s suite) accountOff(t *testing.T) {
	e := s.setup(t)
	plain, _ := e.mint(t, e.org, "ci", nil)
	tests := []struct {
		name      string
		retainer  bool
		api       bool
		canUseAPI bool
	}{
		{"retainer ended", false, true, false},
		{"api access off", true, false, false},
		{"both off", false, false, false},
		{"back on", true, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			a := e.acct
			a.RetainerActive, a.APIEnabled = tt.retainer, tt.api
			e.put(a)
			p, err := e.keys.Resolve(ctx, plain)
			is.NoErr(err)                             // the key still resolves: the handler answers 403, not 401
			is.Equal(p.Org, a)                        // with the organization as it is now
			is.Equal(p.Org.CanUseAPI(), tt.canUseAPI) // may it use the API
		})
	}
}

func (s suite) plaintextNeverStored(t *testing.T) {
	is := is.New(t)
	e := s.setup(t)
	exp := e.clk.Now().Add(time.Hour)
	plain, rec := e.mint(t, e.org, "ci", &exp)
	_ = e.resolve(t, plain)
	is.NoErr(e.keys.Flush(ctx))

	stored, err := e.ks.Keys(ctx, e.org)
	is.NoErr(err)
	found, acct, err := e.ks.LookupKey(ctx, rec.Hash)
	is.NoErr(err)
	for _, v := range []any{stored, found, acct} {
		if path, ok := contains(reflect.ValueOf(v), plain, "record"); ok {
			t.Errorf("the plaintext key is stored in %s", path)
		}
	}
	if s.cfg.dump != nil {
		dump := s.cfg.dump(t, e.ks)
		is.True(len(dump) > 0)                            // the dump holds something
		is.True(bytes.Contains(dump, []byte(rec.Hash)))   // the dump holds the key record
		is.True(!bytes.Contains(dump, []byte(plain)))     // but not the plaintext key
		is.True(!bytes.Contains(dump, []byte(plain[8:]))) // nor its secret part
	}
}

// contains reports whether any string reachable from v contains s, and
// where.
func contains(v reflect.Value, s, path string) (string, bool) {
	switch v.Kind() {
	case reflect.String:
		return path, bytes.Contains([]byte(v.String()), []byte(s))
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return "", false
		}
		return contains(v.Elem(), s, path)
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			if p, ok := contains(v.Index(i), s, fmt.Sprintf("%s[%d]", path, i)); ok {
				return p, true
			}
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if !v.Type().Field(i).IsExported() {
				continue
			}
			if p, ok := contains(v.Field(i), s, path+"."+v.Type().Field(i).Name); ok {
				return p, true
			}
		}
	}
	return "", false
}

func (s suite) lastUsed(t *testing.T) {
	is := is.New(t)
	e := s.setup(t)
	plain, rec := e.mint(t, e.org, "ci", nil)
	e.clk.Advance(time.Minute)
	_ = e.resolve(t, plain)
	e.clk.Advance(time.Minute)
	_ = e.resolve(t, plain)
	is.NoErr(e.keys.Flush(ctx))

	stored, err := e.ks.Keys(ctx, e.org)
	is.NoErr(err)
	is.Equal(stored[0].ID, rec.ID)
	is.True(stored[0].LastUsedAt != nil)             // recorded in the store
	is.True(stored[0].LastUsedAt.Equal(e.clk.Now())) // the latest use
}

func (s suite) markUsedKeepsGreatest(t *testing.T) {
	is := is.New(t)
	e := s.setup(t)
	_, a := e.mint(t, e.org, "a", nil)
	_, b := e.mint(t, e.org, "b", nil)
	t1 := e.clk.Now().Add(time.Minute)
	t2 := t1.Add(time.Minute)
	is.NoErr(e.ks.MarkUsed(ctx, map[string]time.Time{a.ID: t2, b.ID: t1}))
	is.NoErr(e.ks.MarkUsed(ctx, map[string]time.Time{a.ID: t1, b.ID: t2, "key_unknown": t2}))
	stored, err := e.ks.Keys(ctx, e.org)
	is.NoErr(err)
	for _, k := range stored {
		is.True(k.LastUsedAt != nil)    // recorded
		is.True(k.LastUsedAt.Equal(t2)) // the greatest time wins
	}
}

func (s suite) lookups(t *testing.T) {
	is := is.New(t)
	e := s.setup(t)
	_, _, err := e.ks.LookupKey(ctx, auth.HashKey("never minted"))
	is.True(errors.Is(err, auth.ErrInvalidKey)) // unknown hash
	_, err = e.ks.Organization(ctx, orgID("missing"))
	is.True(errors.Is(err, store.ErrNotFound)) // unknown organization
	_, err = e.ks.Organization(ctx, e.org+"\x00")
	is.True(errors.Is(err, store.ErrNotFound)) // an id with a NUL is not the organization's
	_, _, err = e.keys.Mint(ctx, e.org+"\x00", "ci", nil)
	is.True(errors.Is(err, auth.ErrUnknownOrganization)) // nor can a key be minted for it
	a, err := e.ks.Organization(ctx, e.org)
	is.NoErr(err)
	is.Equal(a, e.acct) // the organization as put
	list, err := e.ks.Keys(ctx, orgID("missing"))
	is.NoErr(err)
	is.Equal(len(list), 0) // no keys, no error
	_, _, err = e.keys.Mint(ctx, orgID("missing"), "ci", nil)
	is.True(errors.Is(err, auth.ErrUnknownOrganization)) // no key for an unknown organization
}

func (s suite) importKeys(t *testing.T) {
	is := is.New(t)
	e := s.setup(t)
	first, err := e.keys.Import(ctx, e.org, "demo", "plaintext-key-"+e.org, nil)
	is.NoErr(err)
	again, err := e.keys.Import(ctx, e.org, "demo", "plaintext-key-"+e.org, nil)
	is.NoErr(err)
	is.Equal(again.ID, first.ID) // importing again changes nothing
	_, err = e.keys.Import(ctx, e.other, "demo", "plaintext-key-"+e.org, nil)
	is.True(err != nil) // the same key for another organization
	p, err := e.keys.Resolve(ctx, "plaintext-key-"+e.org)
	is.NoErr(err)
	is.Equal(p.Org.ID, e.org) // an imported key resolves
	list := mustKeys(t, e, e.org)
	is.Equal(len(list), 1) // one record
}

func (s suite) duplicateHash(t *testing.T) {
	is := is.New(t)
	e := s.setup(t)
	_, rec := e.mint(t, e.org, "ci", nil)
	dup := rec
	dup.ID = "key_ffffffffffffffff"
	is.True(e.ks.CreateKey(ctx, dup) != nil) // two records with one hash would make a key ambiguous
}

func (s suite) incompleteRecord(t *testing.T) {
	e := s.setup(t)
	whole := auth.Key{ID: "key_0123456789abcdef", OrgID: e.org, Name: "ci", Prefix: "csk_", Hash: auth.HashKey("incomplete"), CreatedAt: e.clk.Now()}
	for name, change := range map[string]func(*auth.Key){
		"no id":           func(k *auth.Key) { k.ID = "" },
		"no organization": func(k *auth.Key) { k.OrgID = "" },
		"no hash":         func(k *auth.Key) { k.Hash = "" },
	} {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			k := whole
			change(&k)
			err := e.ks.CreateKey(ctx, k)
			is.True(errors.Is(err, auth.ErrInvalidInput)) // refused as the caller's mistake
			is.True(!errors.Is(err, auth.ErrUnavailable)) // not as an outage
		})
	}
	is := is.New(t)
	list := mustKeys(t, e, e.org)
	is.Equal(len(list), 0) // nothing was stored
}

func (s suite) concurrent(t *testing.T) {
	is := is.New(t)
	e := s.setup(t)
	plain, _ := e.mint(t, e.org, "ci", nil)
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%10 == 0 {
				_, _, err := e.keys.Mint(ctx, e.org, "more", nil)
				errs <- err
				return
			}
			_, err := e.keys.Resolve(ctx, plain)
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		is.NoErr(err) // concurrent use
	}
	list := mustKeys(t, e, e.org)
	is.Equal(len(list), 5) // every concurrent mint stored
}

// restrictions checks that a key's scopes are kept as minted (in the order
// of auth.AllScopes, each once), come back in List and on the Principal,
// and that a key minted without a restriction has none (nil lists, not
// empty ones); and that a refused restriction stores nothing.
func (s suite) restrictions(t *testing.T) {
	is := is.New(t)
	e := s.setup(t)
	plain, rec, err := e.keys.MintRestricted(ctx, e.org, "invoices", nil, auth.Restriction{
		Scopes: []auth.Scope{auth.ScopeInvoices, auth.ScopeProjects, auth.ScopeInvoices},
	})
	is.NoErr(err)
	want := auth.Restriction{Scopes: []auth.Scope{auth.ScopeProjects, auth.ScopeInvoices}}
	is.Equal(rec.Restriction, want) // canonical order, each scope once
	p := e.resolve(t, plain)
	is.Equal(p.Restriction, want) // the principal carries the key's restriction
	plainAll, _ := e.mint(t, e.org, "all", nil)
	p = e.resolve(t, plainAll)
	is.True(p.Scopes == nil && p.ProjectIDs == nil) // an unrestricted key has nil lists
	is.True(!p.Restricted())

	for name, r := range map[string]auth.Restriction{
		"unknown scope":       {Scopes: []auth.Scope{"invoices:write"}},
		"empty scopes":        {Scopes: []auth.Scope{}},
		"empty projects":      {ProjectIDs: []string{}},
		"empty project id":    {ProjectIDs: []string{""}},
		"project id with NUL": {ProjectIDs: []string{"p1\x00"}},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := e.keys.MintRestricted(ctx, e.org, name, nil, r)
			is.New(t).True(errors.Is(err, auth.ErrInvalidInput)) // refused as the caller's mistake
		})
	}
	list := mustKeys(t, e, e.org)
	is.Equal(len(list), 2) // the refused keys were not stored
	for _, k := range list {
		switch k.ID {
		case rec.ID:
			is.Equal(k.Restriction, want) // List shows the restriction
		default:
			is.True(k.Scopes == nil && k.ProjectIDs == nil) // and none where there is none
		}
	}
}

// projectWriter is what the suite needs of a key store to put projects.
type projectWriter interface {
	PutProject(ctx context.Context, p store.Project) error
}

// projects puts the projects, or skips the test for a store that cannot.
func (e *env) projects(t *testing.T, ps ...store.Project) {
	t.Helper()
	w, ok := e.ks.(projectWriter)
	if !ok {
		t.Skipf("the key store (%T) has no PutProject method: the suite cannot put projects", e.ks)
	}
	for _, p := range ps {
		if err := w.PutProject(ctx, p); err != nil {
			t.Fatalf("put project: %v", err)
		}
	}
}

// restrictedToProjects checks a key restricted to projects: its ids are
// kept (sorted, each once), and ids of no project of its organization,
// another organization's included, are refused.
func (s suite) restrictedToProjects(t *testing.T) {
	is := is.New(t)
	e := s.setup(t)
	e.projects(t,
		store.Project{ID: "p1", OrgID: e.org, Name: "One", Status: store.ProjectPlanned},
		store.Project{ID: "p2", OrgID: e.org, Name: "Two", Status: store.ProjectPlanned},
		store.Project{ID: "px", OrgID: e.other, Name: "Theirs", Status: store.ProjectPlanned})
	plain, rec, err := e.keys.MintRestricted(ctx, e.org, "site", nil, auth.Restriction{ProjectIDs: []string{"p2", "p1", "p2"}})
	is.NoErr(err)
	is.Equal(rec.ProjectIDs, []string{"p1", "p2"}) // sorted, each once
	is.True(rec.Scopes == nil)                     // every scope
	p := e.resolve(t, plain)
	is.Equal(p.ProjectIDs, []string{"p1", "p2"}) // the principal's projects
	is.True(p.AllowsProject("p1") && !p.AllowsProject("p3"))

	for name, ids := range map[string][]string{
		"unknown project":                {"p1", "nope"},
		"another organization's project": {"px"},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := e.keys.MintRestricted(ctx, e.org, name, nil, auth.Restriction{ProjectIDs: ids})
			is.New(t).True(errors.Is(err, auth.ErrInvalidInput)) // refused as the caller's mistake
		})
	}
	list := mustKeys(t, e, e.org)
	is.Equal(len(list), 1) // only the key that was accepted
	is.Equal(list[0].Restriction, rec.Restriction)
}

// importRestricted checks that an imported key keeps its restriction, that
// importing it again with the same one (in any order) changes nothing,
// and that another restriction is refused rather than ignored.
func (s suite) importRestricted(t *testing.T) {
	is := is.New(t)
	e := s.setup(t)
	key := "restricted-key-" + e.org
	r := auth.Restriction{Scopes: []auth.Scope{auth.ScopeThreads, auth.ScopeDeliverables}}
	first, err := e.keys.ImportRestricted(ctx, e.org, "demo", key, nil, r)
	is.NoErr(err)
	is.Equal(first.Scopes, []auth.Scope{auth.ScopeDeliverables, auth.ScopeThreads})
	again, err := e.keys.ImportRestricted(ctx, e.org, "demo", key, nil, auth.Restriction{Scopes: []auth.Scope{auth.ScopeDeliverables, auth.ScopeThreads}})
	is.NoErr(err)
	is.Equal(again.ID, first.ID) // the same restriction: nothing changes
	for name, other := range map[string]auth.Restriction{
		"none":         {},
		"fewer scopes": {Scopes: []auth.Scope{auth.ScopeThreads}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := e.keys.ImportRestricted(ctx, e.org, "demo", key, nil, other)
			is.New(t).True(errors.Is(err, auth.ErrInvalidInput)) // a stored key's restriction never changes
		})
	}
	_, err = e.keys.Import(ctx, e.org, "demo", key, nil)
	is.True(errors.Is(err, auth.ErrInvalidInput)) // Import is ImportRestricted with none
	p := e.resolve(t, key)
	is.Equal(p.Scopes, first.Scopes) // the stored restriction holds
}

// restrictionKept stores key records directly: the store keeps a
// restriction as given, an empty list apart from nil (an empty list
// allows nothing, nil everything).
func (s suite) restrictionKept(t *testing.T) {
	e := s.setup(t)
	for i, r := range []auth.Restriction{
		{},
		{Scopes: []auth.Scope{}, ProjectIDs: []string{}},
		{Scopes: []auth.Scope{auth.ScopeThreads}, ProjectIDs: []string{"p1", "p \u00e9"}},
	} {
		t.Run(fmt.Sprintf("%+v", r), func(t *testing.T) {
			is := is.New(t)
			hash := auth.HashKey(fmt.Sprintf("kept-%s-%d", e.org, i))
			k := auth.Key{ID: fmt.Sprintf("key_%016x", i+1), OrgID: e.org, Hash: hash, CreatedAt: e.clk.Now(), Restriction: r}
			is.NoErr(e.ks.CreateKey(ctx, k))
			got, _, err := e.ks.LookupKey(ctx, hash)
			is.NoErr(err)
			is.Equal(got.Scopes == nil, r.Scopes == nil)         // nil stays nil, empty stays empty
			is.Equal(got.ProjectIDs == nil, r.ProjectIDs == nil) // for both lists
			is.Equal(fmt.Sprint(got.Restriction), fmt.Sprint(r))
		})
	}
}

// sandboxKeys checks that the store keeps a sandbox key's flag: minted
// and imported sandbox keys resolve to a Principal with Sandbox, a live
// key without; a csk_test_ key is refused as a live import, and a key is
// never imported again as the other kind.
func (s suite) sandboxKeys(t *testing.T) {
	is := is.New(t)
	e := s.setup(t)
	plain, rec, err := e.keys.MintSandbox(ctx, e.org, "sandbox", nil)
	is.NoErr(err)
	is.True(strings.HasPrefix(plain, auth.SandboxKeyPrefix)) // csk_test_
	is.True(rec.Sandbox)
	p := e.resolve(t, plain)
	is.True(p.Sandbox)            // the store kept the flag
	is.Equal(p.Org.ID, e.org)     // the principal names the live organization
	is.Equal(len(rec.Prefix), 13) // "csk_test_" and four characters
	list := mustKeys(t, e, e.org)
	is.True(len(list) == 1 && list[0].Sandbox)

	livePlain, _ := e.mint(t, e.org, "live", nil)
	p = e.resolve(t, livePlain)
	is.True(!p.Sandbox)

	imported, err := e.keys.ImportSandbox(ctx, e.org, "demo", "demo-sandbox-"+e.org, nil)
	is.NoErr(err)
	is.True(imported.Sandbox) // any plaintext: the flag decides
	p, err = e.keys.Resolve(ctx, "demo-sandbox-"+e.org)
	is.NoErr(err)
	is.True(p.Sandbox)
	_, err = e.keys.Import(ctx, e.org, "demo", "demo-sandbox-"+e.org, nil)
	is.True(errors.Is(err, auth.ErrInvalidInput)) // stored as sandbox, not importable as live
	_, err = e.keys.Import(ctx, e.org, "test", plain, nil)
	is.True(errors.Is(err, auth.ErrInvalidInput)) // a csk_test_ key is never a live key
	_, _, err = e.keys.MintSandbox(ctx, auth.SandboxOrgID(e.org), "nested", nil)
	is.True(errors.Is(err, auth.ErrInvalidInput)) // a sandbox organization has no keys of its own
}
