package bunstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/auth"
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
// lookup.
func (s *Store) PutOrganization(ctx context.Context, o store.Organization) error {
	if err := o.Validate(); err != nil {
		return err
	}
	ctx, cancel := s.query(ctx)
	defer cancel()
	row := organizationRow{ID: o.ID, Name: o.Name, Plan: o.Plan, RetainerActive: o.RetainerActive, APIEnabled: o.APIEnabled}
	_, err := s.db.NewInsert().Model(&row).
		On("CONFLICT (id) DO UPDATE").
		Where("(o.*) IS DISTINCT FROM (EXCLUDED.*)").
		Exec(ctx)
	if err != nil {
		return failure(ctx, store.ErrUnavailable, fmt.Sprintf("put organization %q", o.ID), err)
	}
	return nil
}

// Account returns the organization's account: its plan and whether it may
// use the API. The error wraps auth.ErrInvalidKey when there is no such
// organization.
func (s *Store) Account(ctx context.Context, orgID string) (auth.Account, error) {
	ctx, cancel := s.query(ctx)
	defer cancel()
	var row organizationRow
	err := s.db.NewSelect().Model(&row).Where("o.id = ?", orgID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return auth.Account{}, fmt.Errorf("bunstore: organization %q: %w", orgID, auth.ErrInvalidKey)
	}
	if err != nil {
		return auth.Account{}, failure(ctx, auth.ErrUnavailable, fmt.Sprintf("organization %q", orgID), err)
	}
	return row.account(), nil
}

func (row organizationRow) account() auth.Account {
	return auth.Account{OrgID: row.ID, Plan: auth.Plan(row.Plan), RetainerActive: row.RetainerActive, APIEnabled: row.APIEnabled}
}
