package auth

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/clientstatus/clientstatus/store"
)

// ErrUnknownOrganization is returned (wrapped) by Keys.Mint and Keys.Import
// for an organization the key store does not know: put it first (with
// memstore.Store's or bunstore's PutOrganization).
var ErrUnknownOrganization = errors.New("auth: unknown organization")

// ErrKeyNotFound is returned (wrapped) by KeyStore.RevokeKey when the
// organization has no key with that id.
var ErrKeyNotFound = errors.New("auth: key not found")

// ErrKeyInactive is returned (wrapped) by Keys.Roll and KeyStore.RollKey
// for a key that is revoked or expired: there is nothing left to roll, so
// mint a new key instead. It wraps ErrInvalidInput.
var ErrKeyInactive = fmt.Errorf("%w key: revoked or expired", ErrInvalidInput)

// ErrKeyRolled is returned (wrapped) by Keys.Roll and KeyStore.RollKey for
// a key rolled before (its RolledTo is set), even while it still works in
// its grace period: a key is rolled once, so use its successor. It wraps
// ErrKeyInactive.
var ErrKeyRolled = fmt.Errorf("%w: rolled already", ErrKeyInactive)

// Key is the stored record of an API key. It never holds the key itself:
// only its SHA-256 hash and a short prefix to show in a portal.
type Key struct {
	ID         string
	OrgID      string
	Name       string
	Prefix     string // the first characters of the key, safe to display
	Hash       string // hex SHA-256 of the whole key (see HashKey)
	CreatedAt  time.Time
	ExpiresAt  *time.Time // nil: never expires
	LastUsedAt *time.Time // nil: never used (recorded in batches)
	RevokedAt  *time.Time // nil: not revoked
	// CreatedBy and RevokedBy name who created and who revoked the key,
	// as the portal shows its people (a display name); "" when unknown.
	CreatedBy string
	RevokedBy string
	// RolledTo is the id of the key that replaced this one (Keys.Roll);
	// "" when none. A key is rolled once.
	RolledTo string
	// Restriction is what the key may read (its Scopes and ProjectIDs);
	// the zero value: all of its organization's data. A KeyStore keeps
	// it as given, nil and empty lists apart.
	Restriction
	// Sandbox marks a sandbox key (see Keys.MintSandbox): it reads the
	// organization SandboxOrgID(OrgID), never OrgID's live data. A
	// KeyStore must keep it (Keys checks, and revokes a sandbox key whose
	// store lost the flag).
	Sandbox bool
}

// KeyStore keeps key records, and finds the organizations they belong to.
// The in-memory MemoryKeyStore (which reads organizations from a
// memstore.Store) and bunstore implement it.
//
// Implementations are safe for concurrent use, and honour ctx.
type KeyStore interface {
	// CreateKey stores a new key record, its Restriction included; an
	// error wrapping ErrInvalidInput when it has no id, organization or
	// hash.
	CreateKey(ctx context.Context, k Key) error
	// Keys lists an organization's keys, newest first, revoked ones included.
	Keys(ctx context.Context, orgID string) ([]Key, error)
	// RevokeKey marks the organization's key revoked at the given time;
	// ErrKeyNotFound when the organization has no such key. Revoking a
	// revoked key keeps the first time.
	RevokeKey(ctx context.Context, orgID, keyID string, at time.Time) error
	// RevokeKeyBy is RevokeKey recording by as the key's RevokedBy; a
	// revoked key keeps its first time and RevokedBy.
	RevokeKeyBy(ctx context.Context, orgID, keyID string, at time.Time, by string) error
	// RollKey stores next and ends the organization's key keyID, at once:
	// both or neither. At next.CreatedAt (now), the key must be neither
	// revoked nor expired (else an error wrapping ErrKeyInactive) nor
	// rolled before (else an error wrapping ErrKeyRolled);
	// ErrKeyNotFound when the organization has no such key. The key's
	// RolledTo becomes next.ID, so that of concurrent calls for one key
	// exactly one succeeds. When until is after now, the key's ExpiresAt
	// becomes the earlier of its own and until; else the key is revoked at
	// now, by next.CreatedBy. next is checked as CreateKey checks it.
	RollKey(ctx context.Context, orgID, keyID string, next Key, until time.Time) error
	// LookupKey returns the key record with that hash and its
	// organization, revoked and expired ones included (the caller decides);
	// an error wrapping ErrInvalidKey when there is none, or when its
	// organization is gone.
	LookupKey(ctx context.Context, hash string) (Key, store.Organization, error)
	// Organization returns an organization; an error wrapping
	// store.ErrNotFound when there is none.
	store.Organizations
	// MarkUsed records when keys were last used: key id to time. A time
	// older than the one stored is ignored.
	MarkUsed(ctx context.Context, used map[string]time.Time) error
	// GetProject returns one of the organization's projects, or an error
	// wrapping store.ErrNotFound, so that Keys can check the project ids
	// of a restricted key (MintRestricted).
	GetProject(ctx context.Context, orgID, id string) (store.Project, error)
	// Ping reports whether the key store answers, for a readiness check
	// (Keys.Ping): nil when it does, an error otherwise.
	Ping(ctx context.Context) error
	// Subscribe reports the organizations whose keys or account changed
	// in the store, also by other processes where the store can tell
	// (bunstore: PostgreSQL LISTEN), so that Keys relays them to the
	// caches; a store that cannot tell returns a stop that does nothing,
	// and its changes reach the caches within their ttl.
	Invalidations
}
