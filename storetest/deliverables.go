package storetest

import (
	"context"
	"fmt"
	"time"

	"github.com/clientstatus/clientstatus/store"
)

// deliverableKind describes deliverables to the cases of every kind
// (kinds.go).
var deliverableKind = kindCase{
	kind: store.KindDeliverable,
	put: func(ctx context.Context, s subject, org, id, project string, n int) error {
		return s.PutDeliverable(ctx, store.Deliverable{ID: id, OrgID: org, ProjectID: project, Name: fmt.Sprint("Deliverable ", id, " v", n),
			Status: store.DeliverablePending, CreatedAt: day(2, 9)})
	},
	get: func(ctx context.Context, s subject, org, id string) (kindItem, error) {
		d, err := s.GetDeliverable(ctx, org, id)
		return kindItem{d.ProjectID, d.UpdatedAt, describe(d)}, err
	},
	list: func(org, project string, only []string, since time.Time) fetchFunc {
		return deliverables(org, store.DeliverableQuery{ListFilter: store.ListFilter{ProjectID: project, OnlyProjects: only, UpdatedSince: since}})
	},
	del: func(ctx context.Context, s subject, org, id string) error {
		return s.DeleteDeliverable(ctx, org, id)
	},
}

// The methods of Unimplemented for this resource (unimplemented.go).

// ListDeliverables fails with errors.ErrUnsupported.
func (u Unimplemented) ListDeliverables(ctx context.Context, _ string, _ store.DeliverableQuery) (store.Page[store.Deliverable], error) {
	return store.Page[store.Deliverable]{}, u.fail(ctx, "ListDeliverables")
}

// GetDeliverable fails with errors.ErrUnsupported.
func (u Unimplemented) GetDeliverable(ctx context.Context, _ string, _ string) (store.Deliverable, error) {
	return store.Deliverable{}, u.fail(ctx, "GetDeliverable")
}
