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

func (row organizationRow) key() [2]string { return [2]string{row.ID} }

func organizationRowOf(o store.Organization) organizationRow {
	return organizationRow{ID: o.ID, Name: o.Name, Plan: string(o.Plan), RetainerActive: o.RetainerActive, APIEnabled: o.APIEnabled}
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
	if err := put(ctx, s, fmt.Sprintf("organization %q", o.ID), []organizationRow{organizationRowOf(o)}); err != nil {
		return err
	}
	s.changed(o.ID) // this process's caches at once; the others hear the trigger's NOTIFY
	return nil
}

// PutOrganizations puts many organizations as PutOrganization does, in one
// statement per thousand: either all of them or, on an error, none. It
// validates every one first, and returns the first invalid one's error
// without writing any. Of two with the same id, the later wins.
func (s *Store) PutOrganizations(ctx context.Context, orgs []store.Organization) error {
	rows := make([]organizationRow, len(orgs))
	for i, o := range orgs {
		if err := o.Validate(); err != nil {
			return err
		}
		rows[i] = organizationRowOf(o)
	}
	if err := put(ctx, s, fmt.Sprintf("%d organizations", len(orgs)), rows); err != nil {
		return err
	}
	for _, o := range orgs {
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
	err := s.newSelect(&row).Where("o.id = ?", id).Scan(ctx)
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

// DeleteOrganization deletes an organization and everything it owns: its
// projects, milestones, deliverables, invoices, threads and API keys
// (which stop resolving at once), and its deletion records, which no key
// could read any more. The error wraps store.ErrNotFound when there is no
// such organization.
func (s *Store) DeleteOrganization(ctx context.Context, id string) error {
	err := deleting(ctx, s, "organization", id, id, func(s *Store) executor {
		return s.newDelete((*organizationRow)(nil)).Where("o.id = ?", id)
	})
	if err != nil {
		return err
	}
	s.changed(id)
	return nil
}
