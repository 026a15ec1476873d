package memstore

import (
	"cmp"
	"strings"
	"time"

	"github.com/clientstatus/clientstatus/store"
)

// The descriptions of the kinds of the contract that the Store keeps in a
// table (table.go): each kind's accessors, list order and copy,
// each listed in memoryKinds.

// projectItems is how the Store keeps projects: a project is in itself.
var projectItems = &itemDesc[store.Project]{
	kind:     store.KindProject,
	order:    projectOrder,
	id:       func(p *store.Project) string { return p.ID },
	org:      func(p *store.Project) string { return p.OrgID },
	project:  func(p *store.Project) string { return p.ID },
	status:   func(p *store.Project) string { return string(p.Status) },
	due:      func(p *store.Project) *time.Time { return p.DueAt },
	updated:  func(p *store.Project) *time.Time { return &p.UpdatedAt },
	validate: store.Project.Validate,
	copy:     copyProject,
}

// milestoneItems is how the Store keeps milestones.
var milestoneItems = &itemDesc[store.Milestone]{
	kind:     store.KindMilestone,
	order:    milestoneOrder,
	id:       func(m *store.Milestone) string { return m.ID },
	org:      func(m *store.Milestone) string { return m.OrgID },
	project:  func(m *store.Milestone) string { return m.ProjectID },
	status:   func(m *store.Milestone) string { return string(m.Status) },
	due:      func(m *store.Milestone) *time.Time { return &m.DueAt },
	updated:  func(m *store.Milestone) *time.Time { return &m.UpdatedAt },
	validate: store.Milestone.Validate,
	copy:     copyMilestone,
}

// deliverableItems is how the Store keeps deliverables.
var deliverableItems = &itemDesc[store.Deliverable]{
	kind:     store.KindDeliverable,
	order:    deliverableOrder,
	id:       func(d *store.Deliverable) string { return d.ID },
	org:      func(d *store.Deliverable) string { return d.OrgID },
	project:  func(d *store.Deliverable) string { return d.ProjectID },
	status:   func(d *store.Deliverable) string { return string(d.Status) },
	updated:  func(d *store.Deliverable) *time.Time { return &d.UpdatedAt },
	validate: store.Deliverable.Validate,
	copy:     copyDeliverable,
}

// invoiceItems is how the Store keeps invoices: a retainer invoice is in no
// project, and a deleted project's invoices stay, in none.
var invoiceItems = &itemDesc[store.Invoice]{
	kind:     store.KindInvoice,
	order:    invoiceOrder,
	id:       func(i *store.Invoice) string { return i.ID },
	org:      func(i *store.Invoice) string { return i.OrgID },
	project:  func(i *store.Invoice) string { return deref(i.ProjectID) },
	status:   func(i *store.Invoice) string { return string(i.Status) },
	due:      func(i *store.Invoice) *time.Time { return &i.DueAt },
	updated:  func(i *store.Invoice) *time.Time { return &i.UpdatedAt },
	validate: store.Invoice.Validate,
	copy:     copyInvoice,
	detach:   func(i *store.Invoice) { i.ProjectID = nil },
}

func projectOrder(a, b *store.Project) int {
	return cmp.Or(latestFirst(a.StartedAt, b.StartedAt), strings.Compare(a.ID, b.ID))
}

// latestFirst orders times latest first, and nil ones after every other.
func latestFirst(a, b *time.Time) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	return b.Compare(*a)
}

func milestoneOrder(a, b *store.Milestone) int {
	return cmp.Or(a.DueAt.Compare(b.DueAt), strings.Compare(a.ProjectID, b.ProjectID), strings.Compare(a.ID, b.ID))
}

func deliverableOrder(a, b *store.Deliverable) int {
	return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), strings.Compare(a.ID, b.ID))
}

func invoiceOrder(a, b *store.Invoice) int {
	return cmp.Or(b.IssuedAt.Compare(a.IssuedAt), strings.Compare(a.ID, b.ID))
}

func copyProject(p store.Project) store.Project {
	p.StartedAt = utcPtr(p.StartedAt)
	p.DueAt = utcPtr(p.DueAt)
	p.UpdatedAt = kept(p.UpdatedAt)
	return p
}

func copyMilestone(m store.Milestone) store.Milestone {
	m.DueAt = kept(m.DueAt)
	m.CompletedAt = utcPtr(m.CompletedAt)
	m.UpdatedAt = kept(m.UpdatedAt)
	return m
}

func copyDeliverable(d store.Deliverable) store.Deliverable {
	d.FileName = clonePtr(d.FileName)
	d.ContentType = clonePtr(d.ContentType)
	d.SizeBytes = clonePtr(d.SizeBytes)
	d.CreatedAt = kept(d.CreatedAt)
	d.UpdatedAt = kept(d.UpdatedAt)
	return d
}

func copyInvoice(i store.Invoice) store.Invoice {
	i.ProjectID = clonePtr(i.ProjectID)
	i.IssuedAt = kept(i.IssuedAt)
	i.DueAt = kept(i.DueAt)
	i.PaidAt = utcPtr(i.PaidAt)
	i.UpdatedAt = kept(i.UpdatedAt)
	return i
}
