package bunstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/store"
)

type organizationRow struct {
	bun.BaseModel `bun:"table:organizations,alias:o"`

	ID             string `bun:"id,pk"`
	Name           string `bun:"name,notnull"`
	Plan           string `bun:"plan,notnull"`
	RetainerActive bool   `bun:"retainer_active,notnull"`
	APIEnabled     bool   `bun:"api_enabled,notnull"`
}

// PutOrganization inserts or replaces an organization; replacing keeps
// everything it owns, and its new plan and flags apply to its keys' next
// lookup: at once in this process (it tells the Store's subscribers before
// it returns), and in the others when the change's NOTIFY reaches them
// (see Subscribe).
func (s *Store) PutOrganization(ctx context.Context, o store.Organization) error {
	if err := o.Validate(); err != nil {
		return err
	}
	ctx, cancel := s.query(ctx)
	defer cancel()
	row := organizationRow{ID: o.ID, Name: o.Name, Plan: string(o.Plan), RetainerActive: o.RetainerActive, APIEnabled: o.APIEnabled}
	res, err := s.db.NewInsert().Model(&row).
		On("CONFLICT (id) DO UPDATE").
		Where("(o.*) IS DISTINCT FROM (EXCLUDED.*)").
		Exec(ctx)
	if err != nil {
		return failure(ctx, store.ErrUnavailable, fmt.Sprintf("put organization %q", o.ID), err)
	}
	if n, err := res.RowsAffected(); err != nil || n > 0 {
		s.changed(o.ID)
	}
	return nil
}

// Organization returns the organization with that id; the error wraps
// store.ErrNotFound when there is none.
func (s *Store) Organization(ctx context.Context, id string) (store.Organization, error) {
	if !storable(id) {
		return store.Organization{}, unmatched(ctx, fmt.Errorf("bunstore: organization %q: %w", id, store.ErrNotFound))
	}
	ctx, cancel := s.query(ctx)
	defer cancel()
	var row organizationRow
	err := s.db.NewSelect().Model(&row).Where("o.id = ?", id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return store.Organization{}, fmt.Errorf("bunstore: organization %q: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return store.Organization{}, failure(ctx, store.ErrUnavailable, fmt.Sprintf("organization %q", id), err)
	}
	return row.organization(), nil
}

func (row organizationRow) organization() store.Organization {
	return store.Organization{ID: row.ID, Name: row.Name, Plan: store.Plan(row.Plan), RetainerActive: row.RetainerActive, APIEnabled: row.APIEnabled}
}
