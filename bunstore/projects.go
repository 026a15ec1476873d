package bunstore

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/store"
)

type projectRow struct {
	bun.BaseModel `bun:"table:projects,alias:p"`
	total

	OrgID     string     `bun:"org_id,pk"`
	ID        string     `bun:"id,pk"`
	Name      string     `bun:"name,notnull"`
	Status    string     `bun:"status,notnull"`
	StartedAt *time.Time `bun:"started_at"`
	DueAt     *time.Time `bun:"due_at"`
	UpdatedAt time.Time  `bun:"updated_at,notnull"` // the database's: never written
}

// projectTable is the table of projects, for the generic list and get
// (resource); a restriction to projects keeps their own ids.
var projectTable = resource[projectRow, store.Project]{
	kind: "project", plural: "projects", alias: "p",
	order:   "p.started_at DESC NULLS LAST, p.id",
	project: "p.id", status: "p.status",
	counted: true,
	item:    projectRow.project,
	rowOf:   projectRowOf,
}

func (row projectRow) key() [2]string { return [2]string{row.OrgID, row.ID} }

func (row projectRow) project() store.Project {
	return store.Project{
		ID:        row.ID,
		OrgID:     row.OrgID,
		Name:      row.Name,
		Status:    store.ProjectStatus(row.Status),
		StartedAt: utc(row.StartedAt),
		DueAt:     utc(row.DueAt),
		UpdatedAt: row.UpdatedAt.UTC(),
	}
}

func projectRowOf(p store.Project) projectRow {
	return projectRow{OrgID: p.OrgID, ID: p.ID, Name: p.Name, Status: string(p.Status), StartedAt: p.StartedAt, DueAt: p.DueAt}
}

// PutProject inserts or replaces a project; the error wraps
// store.ErrNotFound when its organization does not exist. Its UpdatedAt
// is the database's clock, moved only when a field changes.
func (s *Store) PutProject(ctx context.Context, p store.Project) error {
	return putItems(ctx, s, projectTable, p)
}

// PutProjects puts many projects as PutProject does, in one statement per
// thousand: either all of them or, on an error, none. It validates every
// one first, and returns the first invalid one's error without writing
// any. Of two with the same organization and id, the later wins.
func (s *Store) PutProjects(ctx context.Context, ps []store.Project) error {
	return putItems(ctx, s, projectTable, ps...)
}

// ListProjects returns a page of the organization's projects, latest
// started first, through the index projects_list (projects_list_status
// with a status filter); with UpdatedSince, the changed ones, oldest change
// first, through projects_changes (projects_changes_status). Its total is
// summed from item_counts, or with UpdatedSince or DueBefore counted (see
// selectPage).
func (s *Store) ListProjects(ctx context.Context, orgID string, q store.ProjectQuery) (store.Page[store.Project], error) {
	return projectTable.list(ctx, s, orgID, listing{PageRequest: q.PageRequest, ListFilter: q.ListFilter, status: string(q.Status)})
}

// GetProject returns one of the organization's projects; the error wraps
// store.ErrNotFound when it has none with that id.
func (s *Store) GetProject(ctx context.Context, orgID, id string) (store.Project, error) {
	return projectTable.get(ctx, s, orgID, id, nil)
}

// GetProjects returns those of the organization's projects whose ids are
// in ids, in the order of ids, each once, in one query through the
// primary key; ids it has no project of (or that are not storable) are
// skipped.
func (s *Store) GetProjects(ctx context.Context, orgID string, ids []string) ([]store.Project, error) {
	want, nothing := allowed(ids)
	if !storable(orgID) || nothing {
		if err := unmatched(ctx, nil); err != nil {
			return nil, err
		}
		return []store.Project{}, nil
	}
	ctx, cancel := s.query(ctx)
	defer cancel()
	var rows []projectRow
	err := restrict(s.newSelect(&rows).Where("p.org_id = ?", orgID), "p.id", want).Scan(ctx)
	if err != nil {
		return nil, failure(ctx, store.ErrUnavailable, fmt.Sprintf("projects of organization %q", orgID), err)
	}
	byID := make(map[string]store.Project, len(rows))
	for _, row := range rows {
		byID[row.ID] = row.project()
	}
	out := make([]store.Project, 0, len(rows))
	for _, id := range want {
		if p, ok := byID[id]; ok {
			out = append(out, p)
			delete(byID, id) // each once
		}
	}
	return out, nil
}

// DeleteProject deletes one of the organization's projects with its
// milestones, deliverables and threads (internal ones too, with their
// messages); the invoices that named it stay, with a nil ProjectID and a
// new UpdatedAt, and so do other threads about its milestones or
// deliverables, about nothing. Each item removed that clients could see
// leaves a deletion record. The error wraps store.ErrNotFound when the
// organization has no such project.
func (s *Store) DeleteProject(ctx context.Context, orgID, id string) error {
	return remove[projectRow](ctx, s, "project", "p", orgID, id)
}
