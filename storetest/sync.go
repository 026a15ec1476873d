package storetest

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/clientstatus/clientstatus/store"
)

// ProjectCopy is a syncing client's copy of one organization's projects,
// kept by the contract's rule, for the property tests of the stores that
// offer sync: each Sync reads the deletions since Since, then the changes
// since Since, each page by page (two items a page, so that a sync walks
// several), removes the deleted, upserts the changed by id, and moves
// Since to the smallest SyncedThrough of the pages walked.
type ProjectCopy struct {
	Since time.Time
	Names map[string]string // by id
}

// SyncedStore is what ProjectCopy reads.
type SyncedStore interface {
	store.Store
	store.Changes
}

// Sync brings the copy up to date with orgID's projects in s.
func (c *ProjectCopy) Sync(ctx context.Context, s SyncedStore, orgID string) error {
	if c.Names == nil {
		c.Names = map[string]string{}
	}
	next := time.Time{}
	least := func(at time.Time) {
		if next.IsZero() || at.Before(next) {
			next = at
		}
	}
	var gone []string
	for n := 1; ; n++ {
		p, err := s.ListDeletions(ctx, orgID, store.DeletionQuery{PageRequest: store.PageRequest{Page: n, Limit: 2}, Since: c.Since, Kind: store.KindProject})
		if err != nil {
			return fmt.Errorf("deletions since %v: %w", c.Since, err)
		}
		least(p.SyncedThrough)
		for _, d := range p.Items {
			gone = append(gone, d.ID)
		}
		if len(p.Items) < 2 {
			break
		}
	}
	changed := map[string]string{}
	for n := 1; ; n++ {
		p, err := s.ListProjects(ctx, orgID, store.ProjectQuery{PageRequest: store.PageRequest{Page: n, Limit: 2}, ListFilter: store.ListFilter{UpdatedSince: c.Since}})
		if err != nil {
			return fmt.Errorf("changes since %v: %w", c.Since, err)
		}
		least(p.SyncedThrough)
		for _, it := range p.Items {
			changed[it.ID] = it.Name
		}
		if len(p.Items) < 2 {
			break
		}
	}
	for _, id := range gone {
		delete(c.Names, id)
	}
	maps.Copy(c.Names, changed)
	c.Since = next
	return nil
}

// Check returns an error unless the copy holds exactly orgID's projects in
// s, by id and name.
func (c *ProjectCopy) Check(ctx context.Context, s SyncedStore, orgID string) error {
	want := map[string]string{}
	p, err := s.ListProjects(ctx, orgID, store.ProjectQuery{PageRequest: store.PageRequest{Page: 1, Limit: store.MaxLimit}})
	if err != nil {
		return err
	}
	for _, it := range p.Items {
		want[it.ID] = it.Name
	}
	if !maps.Equal(c.Names, want) {
		return fmt.Errorf("after the last sync the copy is %v, the store holds %v", c.Names, want)
	}
	return nil
}
