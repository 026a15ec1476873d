package bunstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/store"
)

// keyRow is the record of an API key: its hash, never the key.
type keyRow struct {
	bun.BaseModel `bun:"table:api_keys,alias:k"`

	ID         string     `bun:"id,pk"`
	OrgID      string     `bun:"org_id,notnull"`
	Name       string     `bun:"name,notnull"`
	Prefix     string     `bun:"prefix,notnull"`
	Hash       string     `bun:"hash,notnull"`
	CreatedAt  time.Time  `bun:"created_at,notnull"`
	ExpiresAt  *time.Time `bun:"expires_at"`
	LastUsedAt *time.Time `bun:"last_used_at"`
	RevokedAt  *time.Time `bun:"revoked_at"`
	// The key's restriction: NULL for none, else the scopes or project
	// ids it allows.
	Scopes     []string `bun:"scopes,array"`
	ProjectIDs []string `bun:"project_ids,array"`
	// Sandbox marks a sandbox key (migration 20261005000001_sandbox_keys).
	Sandbox bool `bun:"sandbox,notnull"`
}

func (row keyRow) key() auth.Key {
	return auth.Key{
		ID:         row.ID,
		OrgID:      row.OrgID,
		Name:       row.Name,
		Prefix:     row.Prefix,
		Hash:       row.Hash,
		CreatedAt:  row.CreatedAt.UTC(),
		ExpiresAt:  utc(row.ExpiresAt),
		LastUsedAt: utc(row.LastUsedAt),
		RevokedAt:  utc(row.RevokedAt),
		Restriction: auth.Restriction{
			Scopes:     scopesOf(row.Scopes),
			ProjectIDs: row.ProjectIDs,
		},
		Sandbox: row.Sandbox,
	}
}

// scopesOf converts a key's stored scopes, keeping nil apart from empty.
func scopesOf(names []string) []auth.Scope {
	if names == nil {
		return nil
	}
	out := make([]auth.Scope, len(names))
	for i, n := range names {
		out[i] = auth.Scope(n)
	}
	return out
}

// scopeNames is scopesOf the other way.
func scopeNames(scopes []auth.Scope) []string {
	if scopes == nil {
		return nil
	}
	out := make([]string, len(scopes))
	for i, s := range scopes {
		out[i] = string(s)
	}
	return out
}

// CreateKey stores a new key record, its restriction included (NULL for a
// nil list). It fails when k has no id,
// organization or hash (an error wrapping auth.ErrInvalidInput), when a key
// with its id or hash exists, and (with an error wrapping
// auth.ErrInvalidKey) when its organization does not.
func (s *Store) CreateKey(ctx context.Context, k auth.Key) error {
	if k.ID == "" || k.OrgID == "" || k.Hash == "" {
		return fmt.Errorf("bunstore: %w key record: it needs an id, an organization and a hash", auth.ErrInvalidInput)
	}
	if !storable(k.ID, k.OrgID) {
		return fmt.Errorf("bunstore: key for %q: an id PostgreSQL cannot store exactly (NUL or invalid UTF-8): %w", k.OrgID, store.ErrNotFound)
	}
	ctx, cancel := s.query(ctx)
	defer cancel()
	row := keyRow{
		ID:         k.ID,
		OrgID:      k.OrgID,
		Name:       k.Name,
		Prefix:     k.Prefix,
		Hash:       k.Hash,
		CreatedAt:  k.CreatedAt,
		ExpiresAt:  k.ExpiresAt,
		LastUsedAt: k.LastUsedAt,
		RevokedAt:  k.RevokedAt,
		Scopes:     scopeNames(k.Scopes),
		ProjectIDs: k.ProjectIDs,
		Sandbox:    k.Sandbox,
	}
	_, err := s.newInsert(&row).Exec(ctx)
	switch {
	case isViolation(err, foreignKeyViolation):
		return fmt.Errorf("bunstore: key %s: organization %q: %w", k.ID, k.OrgID, auth.ErrInvalidKey)
	case isViolation(err, uniqueViolation):
		return fmt.Errorf("bunstore: key %s: a key with that id or hash exists", k.ID)
	case err != nil:
		return failure(ctx, auth.ErrUnavailable, "create key "+k.ID, err)
	}
	return nil
}

// Keys lists the organization's keys, newest first (then by id,
// descending), revoked ones included, through the index api_keys_list.
func (s *Store) Keys(ctx context.Context, orgID string) ([]auth.Key, error) {
	if !storable(orgID) {
		return nil, unmatched(ctx, nil) // no organization has that id
	}
	ctx, cancel := s.query(ctx)
	defer cancel()
	var rows []keyRow
	err := s.newSelect(&rows).
		Where("k.org_id = ?", orgID).
		OrderExpr("k.created_at DESC, k.id DESC").
		Scan(ctx)
	if err != nil {
		return nil, failure(ctx, auth.ErrUnavailable, fmt.Sprintf("keys of organization %q", orgID), err)
	}
	keys := make([]auth.Key, len(rows))
	for i, row := range rows {
		keys[i] = row.key()
	}
	return keys, nil
}

// RevokeKey marks the organization's key revoked at at, in one statement;
// a key revoked before keeps its first time. The error wraps
// auth.ErrKeyNotFound when the organization has no such key, another
// organization's key included.
func (s *Store) RevokeKey(ctx context.Context, orgID, keyID string, at time.Time) error {
	if !storable(orgID, keyID) {
		return unmatched(ctx, fmt.Errorf("bunstore: organization %q key %q: %w", orgID, keyID, auth.ErrKeyNotFound))
	}
	ctx, cancel := s.query(ctx)
	defer cancel()
	res, err := s.newUpdate((*keyRow)(nil)).
		Set("revoked_at = COALESCE(k.revoked_at, ?)", at).
		Where("k.org_id = ? AND k.id = ?", orgID, keyID).
		Exec(ctx)
	if err != nil {
		return failure(ctx, auth.ErrUnavailable, "revoke key "+keyID, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return fmt.Errorf("bunstore: organization %q key %q: %w", orgID, keyID, auth.ErrKeyNotFound)
	}
	return nil
}

// keyAccountRow is a key record joined to its organization's account.
type keyAccountRow struct {
	keyRow `bun:",extend"`

	Name           string `bun:"name,scanonly"`
	Plan           string `bun:"plan,scanonly"`
	RetainerActive bool   `bun:"retainer_active,scanonly"`
	APIEnabled     bool   `bun:"api_enabled,scanonly"`
}

// LookupKey returns the key record with that hash and its organization,
// in one query; revoked and expired keys are returned too, for
// the caller to judge. The error wraps auth.ErrInvalidKey when no key has
// that hash.
func (s *Store) LookupKey(ctx context.Context, hash string) (auth.Key, store.Organization, error) {
	ctx, cancel := s.query(ctx)
	defer cancel()
	var row keyAccountRow
	err := s.newSelect(&row).
		ColumnExpr("k.*").
		ColumnExpr("o.name, o.plan, o.retainer_active, o.api_enabled").
		Join("JOIN ? AS o ON o.id = k.org_id", s.table("organizations")).
		Where("k.hash = ?", hash).
		Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return auth.Key{}, store.Organization{}, fmt.Errorf("bunstore: unknown key: %w", auth.ErrInvalidKey)
	}
	if err != nil {
		return auth.Key{}, store.Organization{}, failure(ctx, auth.ErrUnavailable, "look up key", err)
	}
	org := organizationRow{ID: row.OrgID, Name: row.Name, Plan: row.Plan, RetainerActive: row.RetainerActive, APIEnabled: row.APIEnabled}.organization()
	return row.key(), org, nil
}

// MarkUsed records when keys were last used, all in one statement; ids it
// does not know are ignored, and a time older than the stored one changes
// nothing.
func (s *Store) MarkUsed(ctx context.Context, used map[string]time.Time) error {
	if len(used) == 0 {
		return nil
	}
	ids := make([]string, 0, len(used))
	times := make([]time.Time, 0, len(used))
	for id, at := range used {
		ids = append(ids, id)
		times = append(times, at)
	}
	ctx, cancel := s.query(ctx)
	defer cancel()
	_, err := s.newUpdate((*keyRow)(nil)).
		TableExpr("unnest(?::text[], ?::timestamptz[]) AS u (id, at)", pgdialect.Array(ids), pgdialect.Array(times)).
		Set("last_used_at = u.at").
		Where("k.id = u.id").
		Where("k.last_used_at IS NULL OR k.last_used_at < u.at").
		Exec(ctx)
	if err != nil {
		return failure(ctx, auth.ErrUnavailable, "mark keys used", err)
	}
	return nil
}
