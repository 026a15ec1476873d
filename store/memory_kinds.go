package store

import (
	"strings"
	"time"
)

// The descriptions of the kinds of the contract that Memory keeps in a
// table (memory_table.go): each kind's accessors, list order and copy,
// each listed in memoryKinds.

// projectItems is how Memory keeps projects: a project is in itself.
var projectItems = &itemDesc[Project]{
	kind:     KindProject,
	order:    projectOrder,
	id:       func(p *Project) string { return p.ID },
	org:      func(p *Project) string { return p.OrgID },
	project:  func(p *Project) string { return p.ID },
	status:   func(p *Project) string { return string(p.Status) },
	due:      func(p *Project) *time.Time { return p.DueAt },
	updated:  func(p *Project) *time.Time { return &p.UpdatedAt },
	validate: Project.Validate,
	copy:     copyProject,
}

// milestoneItems is how Memory keeps milestones.
var milestoneItems = &itemDesc[Milestone]{
	kind:     KindMilestone,
	order:    milestoneOrder,
	id:       func(m *Milestone) string { return m.ID },
	org:      func(m *Milestone) string { return m.OrgID },
	project:  func(m *Milestone) string { return m.ProjectID },
	status:   func(m *Milestone) string { return string(m.Status) },
	due:      func(m *Milestone) *time.Time { return &m.DueAt },
	updated:  func(m *Milestone) *time.Time { return &m.UpdatedAt },
	validate: Milestone.Validate,
	copy:     copyMilestone,
}

// deliverableItems is how Memory keeps deliverables.
var deliverableItems = &itemDesc[Deliverable]{
	kind:     KindDeliverable,
	order:    deliverableOrder,
	id:       func(d *Deliverable) string { return d.ID },
	org:      func(d *Deliverable) string { return d.OrgID },
	project:  func(d *Deliverable) string { return d.ProjectID },
	status:   func(d *Deliverable) string { return string(d.Status) },
	updated:  func(d *Deliverable) *time.Time { return &d.UpdatedAt },
	validate: Deliverable.Validate,
	copy:     copyDeliverable,
}

// invoiceItems is how Memory keeps invoices: a retainer invoice is in no
// project, and a deleted project's invoices stay, in none.
var invoiceItems = &itemDesc[Invoice]{
	kind:     KindInvoice,
	order:    invoiceOrder,
	id:       func(i *Invoice) string { return i.ID },
	org:      func(i *Invoice) string { return i.OrgID },
	project:  func(i *Invoice) string { return deref(i.ProjectID) },
	status:   func(i *Invoice) string { return string(i.Status) },
	due:      func(i *Invoice) *time.Time { return &i.DueAt },
	updated:  func(i *Invoice) *time.Time { return &i.UpdatedAt },
	validate: Invoice.Validate,
	copy:     copyInvoice,
	detach:   func(i *Invoice) { i.ProjectID = nil },
}

func projectOrder(a, b *Project) int {
	switch {
	case a.StartedAt == nil && b.StartedAt == nil:
	case a.StartedAt == nil:
		return 1
	case b.StartedAt == nil:
		return -1
	default:
		if c := b.StartedAt.Compare(*a.StartedAt); c != 0 {
			return c
		}
	}
	return strings.Compare(a.ID, b.ID)
}

func milestoneOrder(a, b *Milestone) int {
	if c := a.DueAt.Compare(b.DueAt); c != 0 {
		return c
	}
	if c := strings.Compare(a.ProjectID, b.ProjectID); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

func deliverableOrder(a, b *Deliverable) int {
	if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

func invoiceOrder(a, b *Invoice) int {
	if c := b.IssuedAt.Compare(a.IssuedAt); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

func copyProject(p Project) Project {
	p.StartedAt = utcPtr(p.StartedAt)
	p.DueAt = utcPtr(p.DueAt)
	p.UpdatedAt = kept(p.UpdatedAt)
	return p
}

func copyMilestone(m Milestone) Milestone {
	m.DueAt = kept(m.DueAt)
	m.CompletedAt = utcPtr(m.CompletedAt)
	m.UpdatedAt = kept(m.UpdatedAt)
	return m
}

func copyDeliverable(d Deliverable) Deliverable {
	d.FileName = clonePtr(d.FileName)
	d.ContentType = clonePtr(d.ContentType)
	d.SizeBytes = clonePtr(d.SizeBytes)
	d.CreatedAt = kept(d.CreatedAt)
	d.UpdatedAt = kept(d.UpdatedAt)
	return d
}

func copyInvoice(i Invoice) Invoice {
	i.ProjectID = clonePtr(i.ProjectID)
	i.IssuedAt = kept(i.IssuedAt)
	i.DueAt = kept(i.DueAt)
	i.PaidAt = utcPtr(i.PaidAt)
	i.UpdatedAt = kept(i.UpdatedAt)
	return i
}
