package bunstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
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
	// Who created and who revoked the key, "" when unknown (migration
	// 20261207000001_key_people).
	CreatedBy string `bun:"created_by,notnull"`
	RevokedBy string `bun:"revoked_by,notnull"`
	// The id of the key that replaced it (auth.Key.RolledTo), NULL for
	// none: "" here (migration 20261207000002_key_rolled).
	RolledTo string `bun:"rolled_to,nullzero"`
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
			Scopes:     retyped[auth.Scope](row.Scopes),
			ProjectIDs: row.ProjectIDs,
		},
		Sandbox:   row.Sandbox,
		CreatedBy: row.CreatedBy,
		RevokedBy: row.RevokedBy,
		RolledTo:  row.RolledTo,
	}
}

// retyped converts a key's scopes, stored or given, to the other string
// type, keeping nil apart from empty.
func retyped[U, T ~string](in []T) []U {
	if in == nil {
		return nil
	}
	return mapped(in, func(v T) U { return U(v) })
}

// CreateKey stores a new key record, its restriction included (NULL for a
// nil list). It fails when k has no id,
// organization or hash (an error wrapping auth.ErrInvalidInput), when a key
// with its id or hash exists, and (with an error wrapping
// auth.ErrInvalidKey) when its organization does not.
func (s *Store) CreateKey(ctx context.Context, k auth.Key) error {
	if err := checkKey(k); err != nil {
		return err
	}
	ctx, cancel := s.query(ctx)
	defer cancel()
	return s.insertKey(ctx, k)
}

// checkKey refuses a key record CreateKey cannot store.
func checkKey(k auth.Key) error {
	if k.ID == "" || k.OrgID == "" || k.Hash == "" {
		return fmt.Errorf("bunstore: %w key record: it needs an id, an organization and a hash", auth.ErrInvalidInput)
	}
	if !storable(k.ID, k.OrgID) {
		return fmt.Errorf("bunstore: key for %q: an id PostgreSQL cannot store exactly (NUL or invalid UTF-8): %w", k.OrgID, store.ErrNotFound)
	}
	if !storable(k.Name, k.Prefix, k.CreatedBy, k.RevokedBy, k.RolledTo) {
		return fmt.Errorf("bunstore: key %s: %w text: NUL or invalid UTF-8", k.ID, auth.ErrInvalidInput)
	}
	return nil
}

// insertKey inserts k, checked by checkKey, in one statement.
func (s *Store) insertKey(ctx context.Context, k auth.Key) error {
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
		Scopes:     retyped[string](k.Scopes),
		ProjectIDs: k.ProjectIDs,
		Sandbox:    k.Sandbox,
		CreatedBy:  k.CreatedBy,
		RevokedBy:  k.RevokedBy,
		RolledTo:   k.RolledTo,
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
	return mapped(rows, keyRow.key), nil
}

// RevokeKey marks the organization's key revoked at at, in one statement;
// a key revoked before keeps its first time. The error wraps
// auth.ErrKeyNotFound when the organization has no such key, another
// organization's key included.
func (s *Store) RevokeKey(ctx context.Context, orgID, keyID string, at time.Time) error {
	return s.RevokeKeyBy(ctx, orgID, keyID, at, "")
}

// RevokeKeyBy is RevokeKey recording by as the key's revoked_by; a key
// revoked before keeps its first time and revoked_by.
func (s *Store) RevokeKeyBy(ctx context.Context, orgID, keyID string, at time.Time, by string) error {
	if !storable(orgID, keyID) {
		return unmatched(ctx, fmt.Errorf("bunstore: organization %q key %q: %w", orgID, keyID, auth.ErrKeyNotFound))
	}
	if !storable(by) {
		return fmt.Errorf("bunstore: revoke key %q: %w revoked by: NUL or invalid UTF-8", keyID, auth.ErrInvalidInput)
	}
	ctx, cancel := s.query(ctx)
	defer cancel()
	res, err := s.newUpdate((*keyRow)(nil)).
		Set("revoked_by = CASE WHEN k.revoked_at IS NULL THEN ? ELSE k.revoked_by END", by).
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

// RollKey stores next and ends the organization's key keyID in one
// transaction (see auth.KeyStore.RollKey), under one query timeout: the
// old key's row is updated only while it is live at next.CreatedAt and
// its rolled_to is NULL, setting rolled_to, then next is inserted, and a
// failure of either rolls both back. Of concurrent calls for one key, the
// later UPDATEs wait for the first transaction's row lock and then find
// rolled_to set: they change no row, and are refused.
func (s *Store) RollKey(ctx context.Context, orgID, keyID string, next auth.Key, until time.Time) error {
	if !storable(orgID, keyID) {
		return unmatched(ctx, fmt.Errorf("bunstore: organization %q key %q: %w", orgID, keyID, auth.ErrKeyNotFound))
	}
	if err := checkKey(next); err != nil {
		return err
	}
	ctx, cancel := s.query(ctx)
	defer cancel()
	now := next.CreatedAt
	return s.inTx(ctx, "roll key "+keyID, func(in *Store) error {
		upd := in.newUpdate((*keyRow)(nil)).
			Where("k.org_id = ? AND k.id = ?", orgID, keyID).
			Where("k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > ?)", now).
			Where("k.rolled_to IS NULL").
			Set("rolled_to = ?", next.ID)
		if until.After(now) {
			upd = upd.Set("expires_at = LEAST(COALESCE(k.expires_at, ?), ?)", until, until)
		} else {
			upd = upd.Set("revoked_at = ?", now).Set("revoked_by = ?", next.CreatedBy)
		}
		res, err := upd.Exec(ctx)
		if err != nil {
			return failure(ctx, auth.ErrUnavailable, "roll key "+keyID, err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			var rows []keyRow
			err := in.newSelect(&rows).Where("k.org_id = ? AND k.id = ?", orgID, keyID).Scan(ctx)
			switch {
			case err != nil:
				return failure(ctx, auth.ErrUnavailable, "roll key "+keyID, err)
			case len(rows) == 0:
				return fmt.Errorf("bunstore: organization %q key %q: %w", orgID, keyID, auth.ErrKeyNotFound)
			case rows[0].RolledTo != "":
				return fmt.Errorf("bunstore: organization %q key %q: to key %q: %w", orgID, keyID, rows[0].RolledTo, auth.ErrKeyRolled)
			default:
				return fmt.Errorf("bunstore: organization %q key %q: %w", orgID, keyID, auth.ErrKeyInactive)
			}
		}
		return in.insertKey(ctx, next)
	})
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
	// In the order of the ids, so that two replicas marking the same keys
	// lock their rows in one order (in a map's order they deadlocked).
	ids := slices.Sorted(maps.Keys(used))
	times := mapped(ids, func(id string) time.Time { return used[id] })
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
