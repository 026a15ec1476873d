package storetest

import (
	"context"
	"fmt"
	"time"

	"github.com/clientstatus/clientstatus/store"
)

// projectKind describes projects to the cases of every kind (kinds.go).
var projectKind = kindCase{
	kind:      store.KindProject,
	isProject: true,
	put: func(ctx context.Context, s subject, org, id, _ string, n int) error {
		return s.PutProject(ctx, store.Project{ID: id, OrgID: org, Name: fmt.Sprint("Project ", id, " v", n), Status: store.ProjectPlanned})
	},
	get: func(ctx context.Context, s subject, org, id string) (kindItem, error) {
		p, err := s.GetProject(ctx, org, id)
		return kindItem{p.ID, p.UpdatedAt, describe(p)}, err
	},
	list: func(org, _ string, only []string, since time.Time) fetchFunc {
		return projects(org, store.ProjectQuery{ListFilter: store.ListFilter{OnlyProjects: only, UpdatedSince: since}})
	},
	del: func(ctx context.Context, s subject, org, id string) error {
		return s.DeleteProject(ctx, org, id)
	},
}

// The methods of Unimplemented for this resource (unimplemented.go).

// ListProjects fails with errors.ErrUnsupported.
func (u Unimplemented) ListProjects(ctx context.Context, _ string, _ store.ProjectQuery) (store.Page[store.Project], error) {
	return store.Page[store.Project]{}, u.fail(ctx, "ListProjects")
}

// GetProject fails with errors.ErrUnsupported.
func (u Unimplemented) GetProject(ctx context.Context, _ string, _ string) (store.Project, error) {
	return store.Project{}, u.fail(ctx, "GetProject")
}

// GetProjects fails with errors.ErrUnsupported.
func (u Unimplemented) GetProjects(ctx context.Context, _ string, _ []string) ([]store.Project, error) {
	return nil, u.fail(ctx, "GetProjects")
}
