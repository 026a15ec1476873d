package auth

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/clientstatus/clientstatus/store"
)

// DefaultFlushInterval is how often, at most, Keys writes the last-use
// times of keys to its KeyStore.
const DefaultFlushInterval = time.Minute

// flushTimeout bounds one background write of last-use times.
const flushTimeout = 10 * time.Second

// maxNameLen bounds a key's name.
const maxNameLen = 200

// Keys is the lifecycle of API keys on a KeyStore, the Go API a client
// portal calls: Create (and Mint), Import, List, Roll, Revoke. It is also
// the KeyResolver of those keys.
//
// Resolve records when each key was last used in memory and writes the
// times in one batch (KeyStore.MarkUsed) at most every flush interval, so a
// request costs no write; a failed write is logged, retried with the next
// batch, and never fails a request. Call Close (or Flush) when the process
// stops, so the last batch is not lost.
//
// Keys is safe for concurrent use. It never logs a key.
type Keys struct {
	store   KeyStore
	now     func() time.Time
	log     *slog.Logger
	every   time.Duration
	revoked *Broadcast // the organizations of revoked keys
	pub     Publisher  // WithPublisher's, or nil

	mu        sync.Mutex
	used      map[string]time.Time // key id to last use, not yet written
	writing   map[string]time.Time // key id to last use, being written
	lastFlush time.Time
	flushing  chan struct{} // closed when the background write ends; nil: none
}

var (
	_ KeyResolver   = (*Keys)(nil)
	_ Invalidations = (*Keys)(nil)
)

// NewKeys returns the key lifecycle on ks. It reads the options WithClock,
// WithLogger, WithFlushInterval and WithPublisher, and ignores the others,
// unchecked. It panics if ks is nil, and with an *option.Error if an
// option it reads is given a value no default stands for (see Option).
func NewKeys(ks KeyStore, opts ...Option) *Keys {
	if ks == nil {
		panic("auth: NewKeys needs a KeyStore")
	}
	c := newConfig(opts)
	if err := c.keysCheck.Err(); err != nil {
		panic(err)
	}
	k := &Keys{
		store:   ks,
		now:     c.now,
		log:     c.logger,
		every:   c.flushEvery,
		revoked: NewBroadcast(),
		pub:     c.publisher,
		used:    make(map[string]time.Time),
		writing: make(map[string]time.Time),
	}
	k.lastFlush = k.now()
	return k
}

// KeySpec is what Create makes a key of: every option of Mint,
// MintRestricted and MintSandbox at once, and who asks for it.
type KeySpec struct {
	// Name is for the portal to show, at most 200 bytes (trimmed).
	Name string
	// ExpiresAt, when not nil, is when the key stops working; it must be
	// in the future. nil: never expires.
	ExpiresAt *time.Time
	// Restriction is what the key may read (see MintRestricted); the
	// zero value: all of its organization's data.
	Restriction
	// Sandbox makes a sandbox key (see MintSandbox). Its project ids
	// are checked against the sandbox organization's projects.
	Sandbox bool
	// CreatedBy names who creates the key, as the portal shows its
	// people (the key's CreatedBy); "" when unknown. At most 200 bytes.
	CreatedBy string
}

// Create makes a new key for the organization as spec says, and returns
// the key itself, to be shown to the client once: only its hash and
// display prefix are stored. Other keys of the organization stay valid.
// It refuses as Mint, MintRestricted and MintSandbox do (they are Create
// with one option each), and with an error wrapping ErrInvalidInput a
// Name or CreatedBy too long or not store.Storable.
func (k *Keys) Create(ctx context.Context, orgID string, spec KeySpec) (string, Key, error) {
	plaintext, err := newKey(spec.Sandbox)
	if err != nil {
		return "", Key{}, err
	}
	if spec.ExpiresAt != nil && !spec.ExpiresAt.After(k.now()) {
		return "", Key{}, fmt.Errorf("auth: key for %q: %w expiry %s: it is not in the future", orgID, ErrInvalidInput, spec.ExpiresAt.UTC().Format(time.RFC3339))
	}
	rec, err := k.newRecord(ctx, orgID, plaintext, spec, true)
	if err != nil {
		return "", Key{}, err
	}
	if err := k.store.CreateKey(ctx, rec); err != nil {
		return "", Key{}, fmt.Errorf("auth: key for %q: %w", orgID, err)
	}
	return plaintext, rec, nil
}

// Mint makes a new key for the organization, with a name for the portal to
// show (at most 200 bytes) and an optional expiry (nil: never expires). It
// returns the key itself, to be shown to the client once: only its hash and
// display prefix are stored. Other keys of the organization stay valid, so
// a client can rotate without downtime.
//
// The organization must have an account (else the error wraps
// ErrUnknownOrganization); a name too long or an expiry not in the future
// is refused with an error wrapping ErrInvalidInput. The key reads all of
// the organization's data: MintRestricted makes one that reads less.
// Create takes every option at once.
func (k *Keys) Mint(ctx context.Context, orgID, name string, expiresAt *time.Time) (string, Key, error) {
	return k.Create(ctx, orgID, KeySpec{Name: name, ExpiresAt: expiresAt})
}

// MintRestricted is Mint for a key that may read only what r allows: some
// scopes, some projects, or both (see Restriction; the zero Restriction is
// Mint's). Beside Mint's refusals, it refuses with an error wrapping
// ErrInvalidInput a restriction that Restriction.Validate refuses, and a
// project id that is not one of the organization's projects (another
// organization's included).
//
// The projects are checked through the KeyStore's GetProject method
// (memstore.Store's through MemoryKeyStore, bunstore's own). The
// restriction is stored with the key, in a canonical order.
func (k *Keys) MintRestricted(ctx context.Context, orgID, name string, expiresAt *time.Time, r Restriction) (string, Key, error) {
	return k.Create(ctx, orgID, KeySpec{Name: name, ExpiresAt: expiresAt, Restriction: r})
}

// MintSandbox is Mint for a sandbox key: one that starts with
// SandboxKeyPrefix ("csk_test_") and reads the organization's sandbox
// (the organization SandboxOrgID(orgID), which package sandbox fills with
// demo data that changes by itself), never its live data. Its record and
// its Principal say Sandbox. The organization's account (plan, access)
// still decides whether and how fast the key may call the API.
func (k *Keys) MintSandbox(ctx context.Context, orgID, name string, expiresAt *time.Time) (string, Key, error) {
	return k.Create(ctx, orgID, KeySpec{Name: name, ExpiresAt: expiresAt, Sandbox: true})
}

// Import stores a key made elsewhere (a demo data file, a migration) for
// the organization. It is idempotent: importing a key already stored for
// the same organization returns the stored record unchanged. The key must
// be printable ASCII without spaces, at most 512 bytes, and well formed if
// it starts with KeyPrefix; a key that is not, or that another
// organization holds, or a name too long, is refused with an error
// wrapping ErrInvalidInput (a malformed key's also wraps ErrInvalidKey: it
// could never resolve). An organization without an account is
// ErrUnknownOrganization, as for Mint. Unlike Mint, Import takes an expiry
// in the past: the key is stored, and refused as expired, as a migrated or
// demo key may need to be. The key reads all of the organization's data:
// ImportRestricted imports one that reads less.
func (k *Keys) Import(ctx context.Context, orgID, name, plaintext string, expiresAt *time.Time) (Key, error) {
	return k.ImportRestricted(ctx, orgID, name, plaintext, expiresAt, Restriction{})
}

// ImportRestricted is Import for a key that may read only what r allows,
// checked as MintRestricted checks it. Importing a key already stored for
// the organization with the same restriction returns the stored record;
// with another one, it is refused with an error wrapping ErrInvalidInput:
// a key's restriction never changes, so revoke the key and import a new
// one.
func (k *Keys) ImportRestricted(ctx context.Context, orgID, name, plaintext string, expiresAt *time.Time, r Restriction) (Key, error) {
	if strings.HasPrefix(plaintext, SandboxKeyPrefix) {
		return Key{}, fmt.Errorf("auth: import key for %q: %w key: it starts with %q, so its holder takes it for a sandbox key: import it with ImportSandbox", orgID, ErrInvalidInput, SandboxKeyPrefix)
	}
	return k.importKey(ctx, orgID, name, plaintext, expiresAt, r, false)
}

// ImportSandbox is Import for a sandbox key (see MintSandbox). Any
// well-formed plaintext is accepted, whatever its prefix: the record's
// Sandbox flag, not the prefix, decides what the key reads (a demo data
// file may hold sandbox keys made before SandboxKeyPrefix). Importing a
// key already stored for the organization as a live key is refused with
// an error wrapping ErrInvalidInput, and the other way round.
func (k *Keys) ImportSandbox(ctx context.Context, orgID, name, plaintext string, expiresAt *time.Time) (Key, error) {
	return k.importKey(ctx, orgID, name, plaintext, expiresAt, Restriction{}, true)
}

func (k *Keys) importKey(ctx context.Context, orgID, name, plaintext string, expiresAt *time.Time, r Restriction, sandbox bool) (Key, error) {
	if err := checkCredential(plaintext); err != nil {
		return Key{}, fmt.Errorf("auth: import key for %q: %w: %w", orgID, ErrInvalidInput, err)
	}
	existing, _, err := k.store.LookupKey(ctx, HashKey(plaintext))
	switch {
	case err == nil && existing.OrgID == orgID:
		if err := r.Validate(); err != nil {
			return Key{}, fmt.Errorf("auth: import key for %q: %w", orgID, err)
		}
		if !existing.Restriction.equal(r.normalized()) {
			return Key{}, fmt.Errorf("auth: import key for %q: %w restriction: the key is stored with another one (%s); revoke it and import a new key", orgID, ErrInvalidInput, existing.ID)
		}
		if existing.Sandbox != sandbox {
			return Key{}, fmt.Errorf("auth: import key for %q: %w sandbox: the key is stored as a %s key (%s); revoke it and import a new key", orgID, ErrInvalidInput, kindName(existing.Sandbox), existing.ID)
		}
		return existing, nil
	case err == nil:
		return Key{}, fmt.Errorf("auth: import key for %q: %w key: another organization holds it", orgID, ErrInvalidInput)
	case !errors.Is(err, ErrInvalidKey):
		return Key{}, fmt.Errorf("auth: import key for %q: %w", orgID, err)
	}
	rec, err := k.newRecord(ctx, orgID, plaintext, KeySpec{Name: name, ExpiresAt: expiresAt, Restriction: r, Sandbox: sandbox}, true)
	if err != nil {
		return Key{}, err
	}
	if err := k.store.CreateKey(ctx, rec); err != nil {
		return Key{}, fmt.Errorf("auth: key for %q: %w", orgID, err)
	}
	return rec, nil
}

// kindName says "sandbox" or "live".
func kindName(sandbox bool) string {
	if sandbox {
		return "sandbox"
	}
	return "live"
}

// newRecord checks spec (its projects too, when checkProjects) and
// returns the record of the key plaintext, created now, not yet stored.
func (k *Keys) newRecord(ctx context.Context, orgID, plaintext string, spec KeySpec, checkProjects bool) (Key, error) {
	if IsSandboxOrgID(orgID) {
		return Key{}, fmt.Errorf("auth: key for %q: %w organization: a sandbox organization has no keys of its own; mint a sandbox key for its live organization", orgID, ErrInvalidInput)
	}
	name := strings.TrimSpace(spec.Name)
	if len(name) > maxNameLen || !store.Storable(name) {
		return Key{}, fmt.Errorf("auth: key for %q: %w name: longer than %d bytes, or not valid UTF-8 without NUL", orgID, ErrInvalidInput, maxNameLen)
	}
	if err := checkBy(orgID, spec.CreatedBy); err != nil {
		return Key{}, err
	}
	r := spec.Restriction
	if err := r.Validate(); err != nil {
		return Key{}, fmt.Errorf("auth: key for %q: %w", orgID, err)
	}
	r = r.normalized()
	now := k.now().UTC()
	if _, err := k.store.Organization(ctx, orgID); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return Key{}, fmt.Errorf("%w %q: put the organization first (PutOrganization)", ErrUnknownOrganization, orgID)
		}
		return Key{}, fmt.Errorf("auth: key for %q: %w", orgID, err)
	}
	if checkProjects {
		readOrg := orgID
		if spec.Sandbox {
			readOrg = SandboxOrgID(orgID)
		}
		if err := k.checkProjects(ctx, readOrg, r.ProjectIDs); err != nil {
			return Key{}, err
		}
	}
	id, err := newKeyID()
	if err != nil {
		return Key{}, err
	}
	rec := Key{
		ID:          id,
		OrgID:       orgID,
		Name:        name,
		Prefix:      displayPrefix(plaintext),
		Hash:        HashKey(plaintext),
		CreatedAt:   now,
		CreatedBy:   spec.CreatedBy,
		Restriction: r,
		Sandbox:     spec.Sandbox,
	}
	if spec.ExpiresAt != nil {
		e := spec.ExpiresAt.UTC()
		rec.ExpiresAt = &e
	}
	return rec, nil
}

// checkBy refuses, with an error wrapping ErrInvalidInput, a person's
// name (CreatedBy, RevokedBy) too long or not store.Storable.
func checkBy(orgID, by string) error {
	if len(by) > maxNameLen || !store.Storable(by) {
		return fmt.Errorf("auth: key for %q: %w person's name: longer than %d bytes, or not valid UTF-8 without NUL", orgID, ErrInvalidInput, maxNameLen)
	}
	return nil
}

// checkProjects refuses, with an error wrapping ErrInvalidInput, an id of
// ids that is not one of the organization's projects.
func (k *Keys) checkProjects(ctx context.Context, orgID string, ids []string) error {
	for _, id := range ids {
		_, err := k.store.GetProject(ctx, orgID, id)
		switch {
		case errors.Is(err, store.ErrNotFound):
			return fmt.Errorf("auth: key for %q: %w project id %q: the organization has no such project", orgID, ErrInvalidInput, id)
		case err != nil:
			return fmt.Errorf("auth: key for %q: project %q: %w", orgID, id, err)
		}
	}
	return nil
}

// newKeyID returns "key_" and 16 random hex digits.
func newKeyID() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("auth: reading random bytes: %w", err)
	}
	return "key_" + hex.EncodeToString(b[:]), nil
}

// List returns the organization's keys, newest first, revoked ones
// included. This process's last-use times not yet written (see Keys) are
// merged in; other replicas' show once they write them, within their
// flush interval.
func (k *Keys) List(ctx context.Context, orgID string) ([]Key, error) {
	// The times pending now, copied before the store is read: a time
	// written meanwhile is then in one or the other.
	k.mu.Lock()
	pending := make(map[string]time.Time, len(k.used)+len(k.writing))
	for _, m := range [...]map[string]time.Time{k.writing, k.used} {
		for id, at := range m {
			if prev, ok := pending[id]; !ok || at.After(prev) {
				pending[id] = at
			}
		}
	}
	k.mu.Unlock()
	keys, err := k.store.Keys(ctx, orgID)
	if err != nil {
		return nil, fmt.Errorf("auth: keys of %q: %w", orgID, err)
	}
	for i, key := range keys {
		if at, ok := pending[key.ID]; ok && (key.LastUsedAt == nil || at.After(*key.LastUsedAt)) {
			keys[i].LastUsedAt = &at
		}
	}
	return keys, nil
}

// Revoke revokes the organization's key keyID; ErrKeyNotFound (wrapped)
// when the organization has no such key. Once the store has revoked it,
// Revoke tells its subscribers (see Subscribe), so that a Cache in front
// of Keys refuses the key from the next request on, and publishes the
// organization to the Publisher of WithPublisher, if any, for the caches
// of other replicas; a failure to publish is logged, not returned, as the
// key is revoked (those caches then refuse it within their ttl). It is
// RevokeBy with no name.
func (k *Keys) Revoke(ctx context.Context, orgID, keyID string) error {
	return k.RevokeBy(ctx, orgID, keyID, "")
}

// RevokeBy is Revoke recording by (who revokes the key, as the portal
// shows its people; at most 200 bytes) as the key's RevokedBy. Revoking
// a revoked key keeps its first time and RevokedBy.
func (k *Keys) RevokeBy(ctx context.Context, orgID, keyID, by string) error {
	if err := checkBy(orgID, by); err != nil {
		return err
	}
	if err := k.store.RevokeKeyBy(ctx, orgID, keyID, k.now().UTC(), by); err != nil {
		return err
	}
	k.changed(ctx, orgID, keyID)
	return nil
}

// Roll replaces the organization's key keyID with a new one, returned as
// Create returns it: the same name, restriction and sandbox flag, the old
// key's expiry (which is in the future), CreatedBy by. The old key keeps
// working until keepUntil: its ExpiresAt becomes the earlier of keepUntil
// and its own. A keepUntil not after now revokes it at once, with
// RevokedBy by. The new key is stored and the old one ended together, or
// neither is.
//
// A key is rolled once: the old key's RolledTo names the new one, and a
// second Roll of it, in its grace period or at the same time as the
// first, is refused with ErrKeyRolled, saying which key replaced it.
//
// The key's project ids are not checked again: one deleted since matches
// nothing, as it does for the old key. Refusals: ErrKeyNotFound when the
// organization has no such key, ErrKeyInactive (which wraps
// ErrInvalidInput) when it is revoked or expired, ErrKeyRolled (which
// wraps ErrKeyInactive) when it was rolled, ErrInvalidInput for a by too
// long. Caches forget the old key's answer as on Revoke, so that its new
// expiry holds on every replica.
func (k *Keys) Roll(ctx context.Context, orgID, keyID string, keepUntil time.Time, by string) (string, Key, error) {
	old, err := k.key(ctx, orgID, keyID)
	if err != nil {
		return "", Key{}, err
	}
	if old.RolledTo != "" {
		return "", Key{}, rolledErr(orgID, keyID, old.RolledTo)
	}
	now := k.now()
	if old.RevokedAt != nil || (old.ExpiresAt != nil && !old.ExpiresAt.After(now)) {
		return "", Key{}, fmt.Errorf("auth: roll organization %q key %q: %w", orgID, keyID, ErrKeyInactive)
	}
	plaintext, err := newKey(old.Sandbox)
	if err != nil {
		return "", Key{}, err
	}
	spec := KeySpec{Name: old.Name, ExpiresAt: old.ExpiresAt, Restriction: old.Restriction, Sandbox: old.Sandbox, CreatedBy: by}
	rec, err := k.newRecord(ctx, orgID, plaintext, spec, false)
	if err != nil {
		return "", Key{}, err
	}
	if err := k.store.RollKey(ctx, orgID, keyID, rec, keepUntil.UTC()); err != nil {
		if errors.Is(err, ErrKeyRolled) {
			// Rolled by another call since the read above: name its key.
			if again, kerr := k.key(ctx, orgID, keyID); kerr == nil && again.RolledTo != "" {
				return "", Key{}, rolledErr(orgID, keyID, again.RolledTo)
			}
		}
		return "", Key{}, fmt.Errorf("auth: roll organization %q key %q: %w", orgID, keyID, err)
	}
	k.changed(ctx, orgID, keyID)
	return plaintext, rec, nil
}

// rolledErr is Roll's refusal of the organization's key keyID, rolled
// before to the key next.
func rolledErr(orgID, keyID, next string) error {
	return fmt.Errorf("auth: roll organization %q key %q: already rolled to key %s: %w", orgID, keyID, next, ErrKeyRolled)
}

// key returns the organization's key keyID; ErrKeyNotFound (wrapped) when
// it has none.
func (k *Keys) key(ctx context.Context, orgID, keyID string) (Key, error) {
	keys, err := k.store.Keys(ctx, orgID)
	if err != nil {
		return Key{}, fmt.Errorf("auth: keys of %q: %w", orgID, err)
	}
	for _, key := range keys {
		if key.ID == keyID {
			return key, nil
		}
	}
	return Key{}, fmt.Errorf("auth: organization %q key %q: %w", orgID, keyID, ErrKeyNotFound)
}

// changed tells the subscribers and the Publisher of WithPublisher, if
// any, that the organization's key keyID was revoked or re-dated (see
// Revoke).
func (k *Keys) changed(ctx context.Context, orgID, keyID string) {
	k.revoked.Publish(orgID)
	if k.pub != nil {
		if err := k.pub.Publish(ctx, orgID); err != nil {
			k.log.Warn("auth: telling other replicas of a revoked key failed; their caches refuse it within their ttl",
				"org", orgID, "key_id", keyID, "err", err)
		}
	}
}

// Subscribe registers fn, to be called with the organization of each key
// that Revoke revokes, at once, on the revoking goroutine; and with what
// the KeyStore reports (MemoryKeyStore: its organizations' changes;
// bunstore: its tables' changes, through PostgreSQL), and what the
// Publisher of WithPublisher reports (the other replicas' revocations). See Invalidations for fn's
// rules. A Cache in front of Keys, or of a Chain holding it, subscribes by
// itself.
func (k *Keys) Subscribe(fn func(orgID string)) (stop func()) {
	if fn == nil {
		panic("auth: Keys.Subscribe needs a function")
	}
	return subscribeAll(fn, k.revoked, k.store, k.pub)
}

// Resolve returns the Principal of an API key, with the key's expiry as
// its Expiry, its restriction as its Restriction and its sandbox flag as
// its Sandbox. It refuses with ErrInvalidKey, before any lookup, a
// credential that cannot be a key (see Import for the rules), and after the
// lookup an unknown, revoked or expired key, or one whose organization is
// gone; a revoked or expired key's refusal is a *KeyError naming it
// (ErrRevoked, ErrExpired). A store failure is ErrUnavailable (or ctx's
// error).
func (k *Keys) Resolve(ctx context.Context, credential string) (Principal, error) {
	if err := checkCredential(credential); err != nil {
		return Principal{}, err
	}
	rec, org, err := k.store.LookupKey(ctx, HashKey(credential))
	if err != nil {
		return Principal{}, LookupError(ctx, err)
	}
	now := k.now()
	if rec.RevokedAt != nil {
		return Principal{}, &KeyError{KeyID: rec.ID, OrgID: org.ID, Err: ErrRevoked}
	}
	p := Principal{Org: org, KeyID: rec.ID, Restriction: rec.Restriction, Sandbox: rec.Sandbox}
	if rec.ExpiresAt != nil {
		if !now.Before(*rec.ExpiresAt) {
			return Principal{}, &KeyError{KeyID: rec.ID, OrgID: org.ID, Err: ErrExpired}
		}
		p.Expiry = *rec.ExpiresAt
	}
	k.noteUse(rec.ID, now)
	return p, nil
}

// LookupError maps the error of a key or organization lookup to the
// KeyResolver contract, for resolvers built on a KeyStore or on
// store.Organizations: ErrInvalidKey and ErrUnavailable stay, an unknown
// organization (store.ErrNotFound) is ErrInvalidKey, ctx's error stays,
// and anything else means the store could not tell: ErrUnavailable.
func LookupError(ctx context.Context, err error) error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return fmt.Errorf("%w: unknown organization", ErrInvalidKey)
	case errors.Is(err, ErrInvalidKey), errors.Is(err, ErrUnavailable):
		return err
	case ctx.Err() != nil:
		return ctx.Err()
	default:
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
}

// noteUse records a use of key id and, when the flush interval has passed
// since the last write, writes the pending batch in the background.
func (k *Keys) noteUse(id string, at time.Time) {
	k.mu.Lock()
	if prev, ok := k.used[id]; !ok || at.After(prev) {
		k.used[id] = at
	}
	var batch map[string]time.Time
	var done chan struct{}
	if k.flushing == nil && at.Sub(k.lastFlush) >= k.every {
		batch, k.used = k.used, make(map[string]time.Time)
		k.startWrite(batch)
		done = make(chan struct{})
		k.flushing = done
		k.lastFlush = at
	}
	k.mu.Unlock()
	if batch == nil {
		return
	}
	go func() {
		defer close(done)
		ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
		defer cancel()
		if err := k.write(ctx, batch); err != nil {
			k.log.Warn("auth: recording when keys were last used failed; will retry", "keys", len(batch), "err", err)
		}
		k.mu.Lock()
		k.flushing = nil
		k.mu.Unlock()
	}()
}

// startWrite notes batch, taken from k.used, as being written, so that
// List still shows its times; k.mu is held.
func (k *Keys) startWrite(batch map[string]time.Time) {
	for id, at := range batch {
		if prev, ok := k.writing[id]; !ok || at.After(prev) {
			k.writing[id] = at
		}
	}
}

// write writes batch, noted by startWrite; on failure it puts the times
// back to be retried.
func (k *Keys) write(ctx context.Context, batch map[string]time.Time) error {
	err := k.store.MarkUsed(ctx, batch)
	k.mu.Lock()
	defer k.mu.Unlock()
	for id, at := range batch {
		if k.writing[id].Equal(at) {
			delete(k.writing, id) // a later time being written stays
		}
		if prev, ok := k.used[id]; err != nil && (!ok || at.After(prev)) {
			k.used[id] = at
		}
	}
	return err
}

// Flush writes the pending last-use times now, after any background write
// has finished. On error they stay pending.
func (k *Keys) Flush(ctx context.Context) error {
	k.mu.Lock()
	running := k.flushing
	k.mu.Unlock()
	if running != nil {
		select {
		case <-running:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	k.mu.Lock()
	batch := k.used
	k.used = make(map[string]time.Time)
	k.startWrite(batch)
	k.lastFlush = k.now()
	k.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	if err := k.write(ctx, batch); err != nil {
		return fmt.Errorf("auth: recording when keys were last used: %w", err)
	}
	return nil
}

// Close waits for any background write and flushes what is pending, so a
// server loses no last-use time at shutdown. Keys stays usable.
func (k *Keys) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
	defer cancel()
	return k.Flush(ctx)
}
