package storetest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/clientstatus/clientstatus/store"
)

// ProjectCopy is a syncing client's copy of one organization's projects,
// kept by the rule of docs/sync.md: each Sync walks the deletions since
// Since, then the projects changed since Since, each by After from page 1,
// two items a page (so that a sync walks several); it removes the
// deleted, upserts the changed by id, and moves Since to the smallest
// SyncedThrough of the pages walked.
type ProjectCopy struct {
	Since time.Time
	Names map[string]string // by id
	// Between, when not nil, runs between two pages of a walk: the writes
	// that land while a client syncs.
	Between func()
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
	page := store.PageRequest{Page: 1, Limit: 2}
	gone, next, err := walkByAfter(func(after store.Position) (store.Page[store.Deletion], error) {
		return s.ListDeletions(ctx, orgID, store.DeletionQuery{PageRequest: page, Since: c.Since, Kind: store.KindProject, After: after})
	}, func(d store.Deletion) store.Position { return store.Position{At: d.DeletedAt, Kind: d.Kind, ID: d.ID} }, c.Between)
	if err != nil {
		return fmt.Errorf("deletions since %v: %w", c.Since, err)
	}
	changed, through, err := walkByAfter(func(after store.Position) (store.Page[store.Project], error) {
		return s.ListProjects(ctx, orgID, store.ProjectQuery{PageRequest: page, ListFilter: store.ListFilter{UpdatedSince: c.Since, After: after}})
	}, func(p store.Project) store.Position { return store.Position{At: p.UpdatedAt, ID: p.ID} }, c.Between)
	if err != nil {
		return fmt.Errorf("changes since %v: %w", c.Since, err)
	}
	for _, d := range gone {
		delete(c.Names, d.ID)
	}
	for _, p := range changed {
		c.Names[p.ID] = p.Name
	}
	c.Since = next
	if through.Before(next) {
		c.Since = through
	}
	return nil
}

// walkByAfter walks a list by After from page 1: read asks for the page
// after a position, at its item's position; between, when not nil, runs
// after each page but the last. It returns the items walked, and the
// smallest SyncedThrough of the pages, where the next walk starts.
func walkByAfter[T any](read func(after store.Position) (store.Page[T], error), at func(T) store.Position, between func()) ([]T, time.Time, error) {
	var (
		walked  []T
		through time.Time
		after   store.Position
	)
	for range 100 {
		p, err := read(after)
		if err != nil {
			return nil, time.Time{}, err
		}
		if through.IsZero() || p.SyncedThrough.Before(through) {
			through = p.SyncedThrough
		}
		walked = append(walked, p.Items...)
		if len(p.Items) == 0 || len(p.Items) == p.Total {
			return walked, through, nil
		}
		after = at(p.Items[len(p.Items)-1])
		if between != nil {
			between()
		}
	}
	return nil, time.Time{}, errors.New("a walk of more than 100 pages")
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
