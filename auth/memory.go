package auth

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/clientstatus/clientstatus/store"
)

// MemoryKeyStore is a KeyStore held in memory, for tests, demos and
// one-process installs. Like every KeyStore it holds key hashes, never keys,
// and keeps each key's Restriction.
// It is an Invalidations that reports the organizations its
// store.Organizations changes or deletes, when that tells of them (as
// memstore.Store does): Keys relays them, so that a Cache in front of Keys
// forgets an account switched off at once. It is safe for concurrent use;
// the zero value is not usable, call NewMemoryKeyStore.
type MemoryKeyStore struct {
	orgs    MemoryOrganizations
	changed *Broadcast // organizations changed or deleted

	mu     sync.RWMutex
	keys   map[string]Key    // by id
	byHash map[string]string // hash to id
	// dropped counts the deletions of each organization id, so that a
	// key created while its organization is deleted is refused.
	dropped map[string]int
}

var (
	_ KeyStore      = (*MemoryKeyStore)(nil)
	_ Invalidations = (*MemoryKeyStore)(nil)
)

// MemoryOrganizations is what a MemoryKeyStore reads its organizations
// from and hears of their deletion and change through, declared: a
// memstore.Store is one.
type MemoryOrganizations interface {
	store.Organizations
	// OnDeleteOrganization calls fn with the id of each organization
	// deleted after it returns.
	OnDeleteOrganization(fn func(orgID string))
	// OnOrganizationChange calls fn with the id of each organization put
	// with another value after it returns.
	OnOrganizationChange(fn func(orgID string))
	// GetProject returns one of the organization's projects (see
	// KeyStore.GetProject).
	GetProject(ctx context.Context, orgID, id string) (store.Project, error)
}

// NewMemoryKeyStore returns an empty MemoryKeyStore whose keys belong to
// the organizations of orgs, usually the memstore.Store the handler reads:
// an organization is put once, there, and its plan and flags apply to its
// keys' next lookup; a key of an organization that is gone is refused.
// A deleted organization's keys are dropped, so they stop working for
// good, even if an organization with the same id is put again. Deleted
// and changed organizations are reported to the MemoryKeyStore's
// subscribers (see Subscribe). It panics if orgs is nil.
func NewMemoryKeyStore(orgs MemoryOrganizations) *MemoryKeyStore {
	if orgs == nil {
		panic("auth: NewMemoryKeyStore needs store.Organizations (a memstore.Store)")
	}
	m := &MemoryKeyStore{
		orgs:    orgs,
		changed: NewBroadcast(),
		keys:    make(map[string]Key),
		byHash:  make(map[string]string),
		dropped: make(map[string]int),
	}
	orgs.OnDeleteOrganization(m.dropOrganization)
	orgs.OnOrganizationChange(m.changed.Publish)
	return m
}

// dropOrganization forgets the keys of a deleted organization, then
// reports it.
func (m *MemoryKeyStore) dropOrganization(orgID string) {
	m.mu.Lock()
	m.dropped[orgID]++
	for id, k := range m.keys {
		if k.OrgID == orgID {
			delete(m.byHash, k.Hash)
			delete(m.keys, id)
		}
	}
	m.mu.Unlock()
	m.changed.Publish(orgID)
}

// Subscribe registers fn, to be called with the id of each organization
// that the store.Organizations deletes or changes, when it tells of them
// (see NewMemoryKeyStore), on the goroutine that made the change, once it
// is made. Revocations are reported by Keys, not here. See Invalidations
// for fn's rules.
func (m *MemoryKeyStore) Subscribe(fn func(orgID string)) (stop func()) {
	return m.changed.Subscribe(fn)
}

// CreateKey stores k. It fails when k has no id, org or hash
// (ErrInvalidInput), when its organization is unknown (store.ErrNotFound),
// or when a key with its id or hash exists.
func (m *MemoryKeyStore) CreateKey(ctx context.Context, k Key) error {
	return m.create(ctx, k, func() error { return nil })
}

// create stores k as CreateKey says, after also, under the lock, change
// succeeds: what it changes and k are stored together or not at all.
func (m *MemoryKeyStore) create(ctx context.Context, k Key, change func() error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if k.ID == "" || k.OrgID == "" || k.Hash == "" {
		return fmt.Errorf("auth: %w key record: it needs an id, an organization and a hash", ErrInvalidInput)
	}
	m.mu.RLock()
	dropped := m.dropped[k.OrgID]
	m.mu.RUnlock()
	if _, err := m.orgs.Organization(ctx, k.OrgID); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.dropped[k.OrgID] != dropped {
		return fmt.Errorf("auth: organization %q was deleted: %w", k.OrgID, store.ErrNotFound)
	}
	if _, ok := m.keys[k.ID]; ok {
		return fmt.Errorf("auth: key %s exists", k.ID)
	}
	if _, ok := m.byHash[k.Hash]; ok {
		return fmt.Errorf("auth: a key with that hash exists")
	}
	if err := change(); err != nil {
		return err
	}
	m.keys[k.ID] = copyKey(k)
	m.byHash[k.Hash] = k.ID
	return nil
}

// RollKey stores next and ends the organization's key keyID, together
// (see KeyStore.RollKey).
func (m *MemoryKeyStore) RollKey(ctx context.Context, orgID, keyID string, next Key, until time.Time) error {
	now := next.CreatedAt
	return m.create(ctx, next, func() error {
		k, ok := m.keys[keyID]
		if !ok || k.OrgID != orgID {
			return fmt.Errorf("auth: organization %q key %q: %w", orgID, keyID, ErrKeyNotFound)
		}
		if k.RolledTo != "" {
			return fmt.Errorf("auth: organization %q key %q: to key %q: %w", orgID, keyID, k.RolledTo, ErrKeyRolled)
		}
		if k.RevokedAt != nil || (k.ExpiresAt != nil && !k.ExpiresAt.After(now)) {
			return fmt.Errorf("auth: organization %q key %q: %w", orgID, keyID, ErrKeyInactive)
		}
		k.RolledTo = next.ID
		switch {
		case !until.After(now):
			k.RevokedAt, k.RevokedBy = &now, next.CreatedBy
		case k.ExpiresAt == nil || until.Before(*k.ExpiresAt):
			k.ExpiresAt = &until
		}
		m.keys[keyID] = k
		return nil
	})
}

// Keys lists the organization's keys, newest first (then by id), revoked
// ones included.
func (m *MemoryKeyStore) Keys(ctx context.Context, orgID string) ([]Key, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.RLock()
	var out []Key
	for _, k := range m.keys {
		if k.OrgID == orgID {
			out = append(out, copyKey(k))
		}
	}
	m.mu.RUnlock()
	slices.SortFunc(out, func(a, b Key) int { return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), strings.Compare(b.ID, a.ID)) })
	return out, nil
}

// RevokeKey marks the organization's key revoked at at; a key revoked
// before keeps its first time. ErrKeyNotFound when the organization has no
// such key (another organization's key included).
func (m *MemoryKeyStore) RevokeKey(ctx context.Context, orgID, keyID string, at time.Time) error {
	return m.RevokeKeyBy(ctx, orgID, keyID, at, "")
}

// RevokeKeyBy is RevokeKey recording by as the key's RevokedBy.
func (m *MemoryKeyStore) RevokeKeyBy(ctx context.Context, orgID, keyID string, at time.Time, by string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	k, ok := m.keys[keyID]
	if !ok || k.OrgID != orgID {
		return fmt.Errorf("auth: organization %q key %q: %w", orgID, keyID, ErrKeyNotFound)
	}
	if k.RevokedAt == nil {
		k.RevokedAt, k.RevokedBy = &at, by
		m.keys[keyID] = k
	}
	return nil
}

// LookupKey returns the key with that hash and its organization.
func (m *MemoryKeyStore) LookupKey(ctx context.Context, hash string) (Key, store.Organization, error) {
	if err := ctx.Err(); err != nil {
		return Key{}, store.Organization{}, err
	}
	m.mu.RLock()
	id, ok := m.byHash[hash]
	k := copyKey(m.keys[id])
	m.mu.RUnlock()
	if !ok {
		return Key{}, store.Organization{}, fmt.Errorf("auth: unknown key: %w", ErrInvalidKey)
	}
	o, err := m.orgs.Organization(ctx, k.OrgID)
	if errors.Is(err, store.ErrNotFound) {
		return Key{}, store.Organization{}, fmt.Errorf("auth: key of unknown organization: %w", ErrInvalidKey)
	}
	if err != nil {
		return Key{}, store.Organization{}, err
	}
	return k, o, nil
}

// Organization returns the organization from the store.Organizations the
// MemoryKeyStore reads.
func (m *MemoryKeyStore) Organization(ctx context.Context, orgID string) (store.Organization, error) {
	return m.orgs.Organization(ctx, orgID)
}

// GetProject returns a project from the MemoryOrganizations the
// MemoryKeyStore reads, so that Keys can check a restricted key's project
// ids.
func (m *MemoryKeyStore) GetProject(ctx context.Context, orgID, id string) (store.Project, error) {
	return m.orgs.GetProject(ctx, orgID, id)
}

// MarkUsed records last-use times; ids it does not know are ignored, and a
// time older than the stored one changes nothing.
func (m *MemoryKeyStore) MarkUsed(ctx context.Context, used map[string]time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for id, at := range used {
		k, ok := m.keys[id]
		if !ok || (k.LastUsedAt != nil && !at.After(*k.LastUsedAt)) {
			continue
		}
		k.LastUsedAt = &at
		m.keys[id] = k
	}
	return nil
}

// copyKey returns k with its own copies of the times and lists it points
// to, so that callers cannot change a stored record.
func copyKey(k Key) Key {
	k.ExpiresAt = copyTime(k.ExpiresAt)
	k.LastUsedAt = copyTime(k.LastUsedAt)
	k.RevokedAt = copyTime(k.RevokedAt)
	k.Restriction = k.Restriction.clone()
	return k
}

func copyTime(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	c := *t
	return &c
}
