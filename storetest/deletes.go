package storetest

import (
	"errors"
	"strings"
	"testing"

	"github.com/clientstatus/clientstatus/store"
	"github.com/matryer/is"
)

// testDeleteOrganization deletes an organization (each kind's items go
// with it: kindOrganizationDeleted): it is not found, takes no items, is
// deleted once, and leaves the other organization untouched; put again
// with the same id, it is a new one.
func testDeleteOrganization(t *testing.T, open func(t *testing.T) Subject) {
	s, f := seeded(t, open)
	is := is.New(t)
	is.NoErr(s.DeleteOrganization(ctx, orgA)) // deleting an organization
	_, err := s.Organization(ctx, orgA)
	is.True(errors.Is(err, store.ErrNotFound)) // a deleted organization is not found
	err = s.PutProject(ctx, want(f.projects, orgA, "p3", projectKey))
	is.True(errors.Is(err, store.ErrNotFound)) // a deleted organization takes no items
	err = s.DeleteOrganization(ctx, orgA)
	is.True(errors.Is(err, store.ErrNotFound)) // an organization is deleted once
	for _, l := range orderLists {
		if strings.Contains(l.name, orgB) {
			checkLists(t, s, []list{l}) // the other organization is untouched
		}
	}
	is.NoErr(s.PutOrganization(ctx, f.orgs[0])) // putting a deleted organization again
	_, err = s.ListMilestones(ctx, orgA, "p1", store.MilestoneQuery{PageRequest: all})
	is.True(errors.Is(err, store.ErrNotFound)) // nothing of a deleted organization comes back
}
