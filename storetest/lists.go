package storetest

import (
	"context"
	"time"

	"github.com/clientstatus/clientstatus/store"
)

// list is one query against one of the four lists, reduced to what the
// order, filter and paging subtests compare: the ids of a page, in order,
// and the total.
type list struct {
	name  string
	fetch func(ctx context.Context, s store.Store, r store.PageRequest) (ids []string, total int, err error)
	want  []string // every matching id, in list order
}

func projects(org string, q store.ProjectQuery) func(context.Context, store.Store, store.PageRequest) ([]string, int, error) {
	return func(ctx context.Context, s store.Store, r store.PageRequest) ([]string, int, error) {
		q := q // a copy: the list may be fetched by several tests at once
		q.PageRequest = r
		p, err := s.ListProjects(ctx, org, q)
		return ids(p.Items, func(p store.Project) string { return p.ID }), p.Total, err
	}
}

func milestones(org, project string, q store.MilestoneQuery) func(context.Context, store.Store, store.PageRequest) ([]string, int, error) {
	return func(ctx context.Context, s store.Store, r store.PageRequest) ([]string, int, error) {
		q := q // a copy: the list may be fetched by several tests at once
		q.PageRequest = r
		p, err := s.ListMilestones(ctx, org, project, q)
		return ids(p.Items, func(m store.Milestone) string { return m.ID }), p.Total, err
	}
}

func deliverables(org string, q store.DeliverableQuery) func(context.Context, store.Store, store.PageRequest) ([]string, int, error) {
	return func(ctx context.Context, s store.Store, r store.PageRequest) ([]string, int, error) {
		q := q // a copy: the list may be fetched by several tests at once
		q.PageRequest = r
		p, err := s.ListDeliverables(ctx, org, q)
		return ids(p.Items, func(d store.Deliverable) string { return d.ID }), p.Total, err
	}
}

func invoices(org string, q store.InvoiceQuery) func(context.Context, store.Store, store.PageRequest) ([]string, int, error) {
	return func(ctx context.Context, s store.Store, r store.PageRequest) ([]string, int, error) {
		q := q // a copy: the list may be fetched by several tests at once
		q.PageRequest = r
		p, err := s.ListInvoices(ctx, org, q)
		return ids(p.Items, func(i store.Invoice) string { return i.ID }), p.Total, err
	}
}

// ids returns the items' ids; never nil, so that an empty page compares
// equal to []string{}.
func ids[T any](items []T, id func(T) string) []string {
	out := []string{}
	for _, v := range items {
		out = append(out, id(v))
	}
	return out
}

// orderLists are the unfiltered lists of the seed data. Their expected
// orders include ties on the sort key (p1/p2, p0/p3, m1/m3, d1/d3, i2/i3),
// broken by id.
var orderLists = []list{
	{"projects of org_a", projects(orgA, store.ProjectQuery{}), []string{"p4", "p1", "p2", "p5", "p0", "p3"}},
	{"projects of org_b", projects(orgB, store.ProjectQuery{}), []string{"p1", "pb"}},
	{"milestones of org_a p1", milestones(orgA, "p1", store.MilestoneQuery{}), []string{"m2", "m1", "m3", "m4"}},
	{"milestones of org_a p2", milestones(orgA, "p2", store.MilestoneQuery{}), []string{"m5"}},
	{"milestones of org_a p3 (none)", milestones(orgA, "p3", store.MilestoneQuery{}), []string{}},
	{"milestones of org_b p1", milestones(orgB, "p1", store.MilestoneQuery{}), []string{"m1"}},
	{"deliverables of org_a", deliverables(orgA, store.DeliverableQuery{}), []string{"d4", "d2", "d1", "d3", "d5"}},
	{"deliverables of org_b", deliverables(orgB, store.DeliverableQuery{}), []string{"d1"}},
	{"invoices of org_a", invoices(orgA, store.InvoiceQuery{}), []string{"i6", "i2", "i3", "i1", "i4", "i5"}},
	{"invoices of org_b", invoices(orgB, store.InvoiceQuery{}), []string{"ib", "i1"}},
}

// filterLists are filtered lists of the seed data.
var filterLists = []list{
	{"projects planned", projects(orgA, store.ProjectQuery{Status: store.ProjectPlanned}), []string{"p0", "p3"}},
	{"projects in_progress", projects(orgA, store.ProjectQuery{Status: store.ProjectInProgress}), []string{"p1"}},
	{"projects on_hold", projects(orgA, store.ProjectQuery{Status: store.ProjectOnHold}), []string{"p4"}},
	{"projects completed", projects(orgA, store.ProjectQuery{Status: store.ProjectCompleted}), []string{"p2"}},
	{"projects cancelled", projects(orgA, store.ProjectQuery{Status: store.ProjectCancelled}), []string{"p5"}},
	{"projects of org_b in_progress", projects(orgB, store.ProjectQuery{Status: store.ProjectInProgress}), []string{"pb"}},
	{"projects of org_b cancelled (none)", projects(orgB, store.ProjectQuery{Status: store.ProjectCancelled}), []string{}},

	{"milestones of p1 pending", milestones(orgA, "p1", store.MilestoneQuery{Status: store.MilestonePending}), []string{"m1", "m4"}},
	{"milestones of p1 in_progress", milestones(orgA, "p1", store.MilestoneQuery{Status: store.MilestoneInProgress}), []string{"m3"}},
	{"milestones of p1 completed", milestones(orgA, "p1", store.MilestoneQuery{Status: store.MilestoneCompleted}), []string{"m2"}},
	{"milestones of p2 pending (none)", milestones(orgA, "p2", store.MilestoneQuery{Status: store.MilestonePending}), []string{}},
	{"milestones of org_b p1 completed", milestones(orgB, "p1", store.MilestoneQuery{Status: store.MilestoneCompleted}), []string{"m1"}},

	{"deliverables approved", deliverables(orgA, store.DeliverableQuery{Status: store.DeliverableApproved}), []string{"d1", "d5"}},
	{"deliverables pending", deliverables(orgA, store.DeliverableQuery{Status: store.DeliverablePending}), []string{"d3"}},
	{"deliverables in_review", deliverables(orgA, store.DeliverableQuery{Status: store.DeliverableInReview}), []string{"d2"}},
	{"deliverables rejected", deliverables(orgA, store.DeliverableQuery{Status: store.DeliverableRejected}), []string{"d4"}},
	{"deliverables of p1", deliverables(orgA, store.DeliverableQuery{ListFilter: store.ListFilter{ProjectID: "p1"}}), []string{"d4", "d2", "d1"}},
	{"deliverables of p1 approved", deliverables(orgA, store.DeliverableQuery{Status: store.DeliverableApproved, ListFilter: store.ListFilter{ProjectID: "p1"}}), []string{"d1"}},
	{"deliverables of p1 pending (none)", deliverables(orgA, store.DeliverableQuery{Status: store.DeliverablePending, ListFilter: store.ListFilter{ProjectID: "p1"}}), []string{}},
	{"deliverables of p3, a project without any", deliverables(orgA, store.DeliverableQuery{ListFilter: store.ListFilter{ProjectID: "p3"}}), []string{}},
	{"deliverables of an unknown project", deliverables(orgA, store.DeliverableQuery{ListFilter: store.ListFilter{ProjectID: "nope"}}), []string{}},
	{"deliverables of org_b's project pb, asked by org_a", deliverables(orgA, store.DeliverableQuery{ListFilter: store.ListFilter{ProjectID: "pb"}}), []string{}},
	{"deliverables of org_b p1 (org_a's p1 has three)", deliverables(orgB, store.DeliverableQuery{ListFilter: store.ListFilter{ProjectID: "p1"}}), []string{}},
	{"deliverables of org_b pb", deliverables(orgB, store.DeliverableQuery{ListFilter: store.ListFilter{ProjectID: "pb"}}), []string{"d1"}},

	{"invoices draft", invoices(orgA, store.InvoiceQuery{Status: store.InvoiceDraft}), []string{"i4"}},
	{"invoices open", invoices(orgA, store.InvoiceQuery{Status: store.InvoiceOpen}), []string{"i2", "i3"}},
	{"invoices paid", invoices(orgA, store.InvoiceQuery{Status: store.InvoicePaid}), []string{"i6", "i1"}},
	{"invoices void", invoices(orgA, store.InvoiceQuery{Status: store.InvoiceVoid}), []string{"i5"}},
	{"invoices of p1", invoices(orgA, store.InvoiceQuery{ListFilter: store.ListFilter{ProjectID: "p1"}}), []string{"i3", "i1"}},
	{"invoices of p2", invoices(orgA, store.InvoiceQuery{ListFilter: store.ListFilter{ProjectID: "p2"}}), []string{"i6", "i4"}},
	{"invoices of p2 paid", invoices(orgA, store.InvoiceQuery{Status: store.InvoicePaid, ListFilter: store.ListFilter{ProjectID: "p2"}}), []string{"i6"}},
	{"invoices of p1 void (none)", invoices(orgA, store.InvoiceQuery{Status: store.InvoiceVoid, ListFilter: store.ListFilter{ProjectID: "p1"}}), []string{}},
	{"invoices of p3, a project without any", invoices(orgA, store.InvoiceQuery{ListFilter: store.ListFilter{ProjectID: "p3"}}), []string{}},
	{"invoices of an unknown project", invoices(orgA, store.InvoiceQuery{ListFilter: store.ListFilter{ProjectID: "nope"}}), []string{}},
	{"invoices of org_b p1", invoices(orgB, store.InvoiceQuery{ListFilter: store.ListFilter{ProjectID: "p1"}}), []string{"i1"}},
	{"invoices of org_b open", invoices(orgB, store.InvoiceQuery{Status: store.InvoiceOpen}), []string{"ib"}},

	// DueBefore is exclusive, and a nil DueAt never matches (testDueBefore
	// combines it with every filter).
	{"projects due before p5's dueAt (none)", projects(orgA, store.ProjectQuery{ListFilter: store.ListFilter{DueBefore: day(9, 18)}}), []string{}},
	{"projects due before a second after p5's dueAt", projects(orgA, store.ProjectQuery{ListFilter: store.ListFilter{DueBefore: day(9, 18).Add(time.Second)}}), []string{"p5"}},
	{"projects due before day 100 (not those of no dueAt)", projects(orgA, store.ProjectQuery{ListFilter: store.ListFilter{DueBefore: day(100, 0)}}), []string{"p1", "p5", "p0"}},
	{"projects planned due before day 100", projects(orgA, store.ProjectQuery{Status: store.ProjectPlanned, ListFilter: store.ListFilter{DueBefore: day(100, 0)}}), []string{"p0"}},
	{"milestones of p1 due before m1's dueAt", milestones(orgA, "p1", store.MilestoneQuery{ListFilter: store.ListFilter{DueBefore: day(30, 12)}}), []string{"m2"}},
	{"milestones of p1 due before a second after m1's", milestones(orgA, "p1", store.MilestoneQuery{ListFilter: store.ListFilter{DueBefore: day(30, 12).Add(time.Second)}}), []string{"m2", "m1", "m3"}},
	{"milestones of p1 pending due before day 50", milestones(orgA, "p1", store.MilestoneQuery{Status: store.MilestonePending, ListFilter: store.ListFilter{DueBefore: day(50, 0)}}), []string{"m1", "m4"}},
	{"invoices due before i1's dueAt", invoices(orgA, store.InvoiceQuery{ListFilter: store.ListFilter{DueBefore: day(40, 9)}}), []string{"i4", "i5"}},
	{"invoices due before a second after i1's", invoices(orgA, store.InvoiceQuery{ListFilter: store.ListFilter{DueBefore: day(40, 9).Add(time.Second)}}), []string{"i6", "i1", "i4", "i5"}},
	{"invoices open due before day 61 (overdue then)", invoices(orgA, store.InvoiceQuery{Status: store.InvoiceOpen, ListFilter: store.ListFilter{DueBefore: day(61, 0)}}), []string{"i2", "i3"}},
	{"invoices of p2 due before day 40", invoices(orgA, store.InvoiceQuery{ListFilter: store.ListFilter{ProjectID: "p2", DueBefore: day(40, 0)}}), []string{"i4"}},
	{"invoices of org_b due before day 26", invoices(orgB, store.InvoiceQuery{ListFilter: store.ListFilter{DueBefore: day(26, 0)}}), []string{"i1"}},
}
