package bunstore

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/store"
)

type deliverableRow struct {
	bun.BaseModel `bun:"table:deliverables,alias:d"`
	total

	OrgID       string    `bun:"org_id,pk"`
	ID          string    `bun:"id,pk"`
	ProjectID   string    `bun:"project_id,notnull"`
	Name        string    `bun:"name,notnull"`
	Status      string    `bun:"status,notnull"`
	FileKey     string    `bun:"file_key,notnull"`
	FileName    *string   `bun:"file_name"`
	ContentType *string   `bun:"content_type"`
	SizeBytes   *int64    `bun:"size_bytes"`
	CreatedAt   time.Time `bun:"created_at,notnull"`
	UpdatedAt   time.Time `bun:"updated_at,notnull"` // the database's: never written
}

// deliverableTable is the table of deliverables, for the generic list and get
// (resource).
var deliverableTable = resource[deliverableRow, store.Deliverable]{
	kind: "deliverable", plural: "deliverables", alias: "d",
	order:   "d.created_at DESC, d.id",
	project: "d.project_id", status: "d.status",
	counted: true,
	item:    deliverableRow.deliverable,
	rowOf:   deliverableRowOf,
}

func (row deliverableRow) key() [2]string { return [2]string{row.OrgID, row.ID} }

func (row deliverableRow) deliverable() store.Deliverable {
	return store.Deliverable{
		ID:          row.ID,
		OrgID:       row.OrgID,
		ProjectID:   row.ProjectID,
		Name:        row.Name,
		Status:      store.DeliverableStatus(row.Status),
		FileName:    row.FileName,
		ContentType: row.ContentType,
		SizeBytes:   row.SizeBytes,
		FileKey:     row.FileKey,
		CreatedAt:   row.CreatedAt.UTC(),
		UpdatedAt:   row.UpdatedAt.UTC(),
	}
}

func deliverableRowOf(d store.Deliverable) deliverableRow {
	return deliverableRow{
		OrgID:       d.OrgID,
		ID:          d.ID,
		ProjectID:   d.ProjectID,
		Name:        d.Name,
		Status:      string(d.Status),
		FileKey:     d.FileKey,
		FileName:    d.FileName,
		ContentType: d.ContentType,
		SizeBytes:   d.SizeBytes,
		CreatedAt:   d.CreatedAt,
	}
}

// PutDeliverable inserts or replaces a deliverable, with where its file
// lives (FileKey); the error wraps store.ErrNotFound when its project does
// not exist in its organization. Its UpdatedAt is the database's clock,
// moved only when a field (FileKey included) changes.
func (s *Store) PutDeliverable(ctx context.Context, d store.Deliverable) error {
	return putItems(ctx, s, deliverableTable, d)
}

// PutDeliverables puts many deliverables as PutDeliverable does, in one
// statement per thousand: either all of them or, on an error, none. It
// validates every one first, and returns the first invalid one's error
// without writing any. Of two with the same organization and id, the
// later wins.
func (s *Store) PutDeliverables(ctx context.Context, ds []store.Deliverable) error {
	return putItems(ctx, s, deliverableTable, ds...)
}

// ListDeliverables returns a page of the organization's deliverables,
// newest first, through the index deliverables_list or, with filters,
// deliverables_list_status, deliverables_list_project or
// deliverables_list_project_status; with UpdatedSince, the changed ones,
// oldest change first, through the deliverables_changes indexes of the
// same shapes. Its total is summed from item_counts, or with UpdatedSince
// counted (see selectPage).
func (s *Store) ListDeliverables(ctx context.Context, orgID string, q store.DeliverableQuery) (store.Page[store.Deliverable], error) {
	return deliverableTable.list(ctx, s, orgID, listing{PageRequest: q.PageRequest, ListFilter: q.ListFilter, status: string(q.Status)})
}

// GetDeliverable returns one of the organization's deliverables, with where
// its file lives; the error wraps store.ErrNotFound when it has none with
// that id.
func (s *Store) GetDeliverable(ctx context.Context, orgID, id string) (store.Deliverable, error) {
	return deliverableTable.get(ctx, s, orgID, id, nil)
}

// DeleteDeliverable deletes one of the organization's deliverables,
// leaving a deletion record (its file, in the file source, is the
// portal's to remove); the error wraps store.ErrNotFound when it has none
// with that id.
func (s *Store) DeleteDeliverable(ctx context.Context, orgID, id string) error {
	return remove[deliverableRow](ctx, s, "deliverable", "d", orgID, id)
}
