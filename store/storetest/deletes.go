package storetest

import (
	"errors"
	"strings"
	"testing"

	"github.com/clientstatus/clientstatus/store"
	"github.com/matryer/is"
)

func testDeleteOrganization(t *testing.T, open func(t *testing.T) Subject) {
	s := open(t)
	d := s
	f := seedData()
	f.put(t, s)
	is := is.New(t)

	is.NoErr(d.DeleteOrganization(ctx, orgA)) // deleting an organization
	gone := []list{
		{"projects of a deleted organization", projects(orgA, store.ProjectQuery{}), []string{}},
		{"deliverables of a deleted organization", deliverables(orgA, store.DeliverableQuery{}), []string{}},
		{"invoices of a deleted organization", invoices(orgA, store.InvoiceQuery{}), []string{}},
	}
	checkLists(t, s, gone)
	_, err := s.GetProject(ctx, orgA, "p1")
	is.True(errors.Is(err, store.ErrNotFound)) // a deleted organization's projects are not found
	_, err = s.GetDeliverable(ctx, orgA, "d1")
	is.True(errors.Is(err, store.ErrNotFound)) // a deleted organization's deliverables are not found
	_, err = s.ListMilestones(ctx, orgA, "p1", store.MilestoneQuery{PageRequest: all})
	is.True(errors.Is(err, store.ErrNotFound)) // a deleted organization's milestones are not found
	_, err = s.Organization(ctx, orgA)
	is.True(errors.Is(err, store.ErrNotFound)) // a deleted organization is not found
	err = s.PutProject(ctx, want(f.projects, orgA, "p3", projectKey))
	is.True(errors.Is(err, store.ErrNotFound)) // a deleted organization takes no items
	err = d.DeleteOrganization(ctx, orgA)
	is.True(errors.Is(err, store.ErrNotFound)) // an organization is deleted once

	// The other organization is untouched.
	for _, l := range orderLists {
		if strings.Contains(l.name, orgB) {
			checkLists(t, s, []list{l})
		}
	}

	// An organization put again with the same id is a new one: nothing of
	// the old one comes back.
	is.NoErr(s.PutOrganization(ctx, f.orgs[0])) // putting a deleted organization again
	checkLists(t, s, gone)
	_, err = s.ListMilestones(ctx, orgA, "p1", store.MilestoneQuery{PageRequest: all})
	is.True(errors.Is(err, store.ErrNotFound)) // nothing of a deleted organization comes back
}
