package bunstore

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/store"
)

type milestoneRow struct {
	bun.BaseModel `bun:"table:milestones,alias:m"`
	total

	OrgID       string     `bun:"org_id,pk"`
	ID          string     `bun:"id,pk"`
	ProjectID   string     `bun:"project_id,notnull"`
	Name        string     `bun:"name,notnull"`
	Status      string     `bun:"status,notnull"`
	DueAt       time.Time  `bun:"due_at,notnull"`
	CompletedAt *time.Time `bun:"completed_at"`
	UpdatedAt   time.Time  `bun:"updated_at,notnull"` // the database's: never written
}

// milestoneTable is the table of milestones, for the generic list and get
// (resource): a list is of one project's, its parent.
var milestoneTable = resource[milestoneRow, store.Milestone]{
	kind: "milestone", plural: "milestones", alias: "m",
	order:   "m.due_at, m.project_id, m.id",
	project: "m.project_id", status: "m.status",
	counted: true,
	item:    milestoneRow.milestone,
	rowOf:   milestoneRowOf,
}

func (row milestoneRow) key() [2]string { return [2]string{row.OrgID, row.ID} }

func (row milestoneRow) milestone() store.Milestone {
	return store.Milestone{
		ID:          row.ID,
		OrgID:       row.OrgID,
		ProjectID:   row.ProjectID,
		Name:        row.Name,
		Status:      store.MilestoneStatus(row.Status),
		DueAt:       row.DueAt.UTC(),
		CompletedAt: utc(row.CompletedAt),
		UpdatedAt:   row.UpdatedAt.UTC(),
	}
}

func milestoneRowOf(m store.Milestone) milestoneRow {
	return milestoneRow{OrgID: m.OrgID, ID: m.ID, ProjectID: m.ProjectID, Name: m.Name, Status: string(m.Status), DueAt: m.DueAt, CompletedAt: m.CompletedAt}
}

// PutMilestone inserts or replaces a milestone; the error wraps
// store.ErrNotFound when its project does not exist in its organization.
// Its UpdatedAt is the database's clock, moved only when a field changes.
func (s *Store) PutMilestone(ctx context.Context, m store.Milestone) error {
	return putItems(ctx, s, milestoneTable, m)
}

// PutMilestones puts many milestones as PutMilestone does, in one
// statement per thousand: either all of them or, on an error, none. It
// validates every one first, and returns the first invalid one's error
// without writing any. Of two with the same organization and id, the
// later wins.
func (s *Store) PutMilestones(ctx context.Context, ms []store.Milestone) error {
	return putItems(ctx, s, milestoneTable, ms...)
}

// ListMilestones returns a page of one of the organization's projects'
// milestones, earliest due first, through the index milestones_list
// (milestones_list_status with a status filter), or with UpdatedSince the
// changed ones, oldest change first, through milestones_changes
// (milestones_changes_status); the error wraps
// store.ErrNotFound when the organization has no such project (an empty
// page checks it: see under). Its total is summed from item_counts, or
// with UpdatedSince or DueBefore counted (see selectPage).
func (s *Store) ListMilestones(ctx context.Context, orgID, projectID string, q store.MilestoneQuery) (store.Page[store.Milestone], error) {
	notFound := fmt.Errorf("bunstore: project %q: %w", projectID, store.ErrNotFound)
	if !storable(orgID, projectID) {
		return store.Page[store.Milestone]{}, unmatched(ctx, notFound)
	}
	q.ProjectID = projectID
	return milestoneTable.under(ctx, s, orgID, listing{PageRequest: q.PageRequest, ListFilter: q.ListFilter, status: string(q.Status),
		what: fmt.Sprintf("milestones of project %q", projectID)},
		s.newSelect((*projectRow)(nil)).Where("p.org_id = ? AND p.id = ?", orgID, projectID), notFound)
}

// ListAllMilestones returns a page of the organization's milestones of
// every project, earliest due first, through the index
// milestones_list_org (milestones_list with a project filter, the
// _status ones with a status), or with UpdatedSince the changed ones,
// oldest change first, through milestones_changes (ranges of each
// project's changes, sorted); its total as ListMilestones'. An unknown
// project filter gives an empty page.
func (s *Store) ListAllMilestones(ctx context.Context, orgID string, q store.AllMilestoneQuery) (store.Page[store.Milestone], error) {
	return milestoneTable.list(ctx, s, orgID, listing{PageRequest: q.PageRequest, ListFilter: q.ListFilter, status: string(q.Status)})
}

// GetMilestone returns one of the organization's milestones; the error
// wraps store.ErrNotFound when it has none with that id.
func (s *Store) GetMilestone(ctx context.Context, orgID, id string) (store.Milestone, error) {
	return milestoneTable.get(ctx, s, orgID, id, nil)
}

// DeleteMilestone deletes one of the organization's milestones, leaving a
// deletion record; the error wraps store.ErrNotFound when it has none with
// that id.
func (s *Store) DeleteMilestone(ctx context.Context, orgID, id string) error {
	return remove[milestoneRow](ctx, s, "milestone", "m", orgID, id)
}
