package storetest

import (
	"context"
	"fmt"
	"time"

	"github.com/clientstatus/clientstatus/store"
)

// milestoneKind describes milestones to the cases of every kind
// (kinds.go).
var milestoneKind = kindCase{
	kind:       store.KindMilestone,
	perProject: true,
	put: func(ctx context.Context, s subject, org, id, project string, n int) error {
		return s.PutMilestone(ctx, store.Milestone{ID: id, OrgID: org, ProjectID: project, Name: fmt.Sprint("Milestone ", id, " v", n),
			Status: store.MilestonePending, DueAt: day(20, 9)})
	},
	get: func(ctx context.Context, s subject, org, id string) (kindItem, error) {
		m, err := s.GetMilestone(ctx, org, id)
		return kindItem{m.ProjectID, m.UpdatedAt, describe(m)}, err
	},
	list: func(org, project string, _ []string, since time.Time) fetchFunc {
		return milestones(org, project, store.MilestoneQuery{ListFilter: store.ListFilter{UpdatedSince: since}})
	},
	del: func(ctx context.Context, s subject, org, id string) error {
		return s.DeleteMilestone(ctx, org, id)
	},
}

// The methods of Unimplemented for this resource (unimplemented.go).

// ListMilestones fails with errors.ErrUnsupported.
func (u Unimplemented) ListMilestones(ctx context.Context, _ string, _ string, _ store.MilestoneQuery) (store.Page[store.Milestone], error) {
	return store.Page[store.Milestone]{}, u.fail(ctx, "ListMilestones")
}

// GetMilestone fails with errors.ErrUnsupported.
func (u Unimplemented) GetMilestone(ctx context.Context, _ string, _ string) (store.Milestone, error) {
	return store.Milestone{}, u.fail(ctx, "GetMilestone")
}

// ListAllMilestones fails with errors.ErrUnsupported.
func (u Unimplemented) ListAllMilestones(ctx context.Context, _ string, _ store.AllMilestoneQuery) (store.Page[store.Milestone], error) {
	return store.Page[store.Milestone]{}, u.fail(ctx, "ListAllMilestones")
}
