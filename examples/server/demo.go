package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/clientstatus/clientstatus/internal/demopdf"
	"github.com/clientstatus/clientstatus/store"
)

// demoSandboxKey is the demo's one sandbox key, of the first demo
// organization (Acme Outdoor): it reads Acme's sandbox, never its live
// data. Fixed and public, for trying the server locally only.
const demoSandboxKey = "csk_test_DemoAcmeSandboxKey0000000000000119FJce"

// demoOrg is an organization of the built-in demo data and its API key.
// The keys are fixed, public and for trying the server locally only.
type demoOrg struct {
	store.Organization
	key string
	// projects is how many projects it has, cycling through every status.
	projects int
	// invoices is how many invoices it has; one organization has enough to
	// page through.
	invoices int
}

var demoOrgs = []demoOrg{
	{store.Organization{ID: "org_acme", Name: "Acme Outdoor", Plan: "starter", RetainerActive: true, APIEnabled: true}, "demo_acme_starter_key", 6, 48},
	{store.Organization{ID: "org_bloom", Name: "Bloom Bakery", Plan: "starter", RetainerActive: true, APIEnabled: true}, "demo_bloom_starter_key", 2, 4},
	{store.Organization{ID: "org_corvid", Name: "Corvid Analytics", Plan: "growth", RetainerActive: true, APIEnabled: true}, "demo_corvid_growth_key", 5, 12},
	{store.Organization{ID: "org_delta", Name: "Delta Freight", Plan: "growth", RetainerActive: true, APIEnabled: true}, "demo_delta_growth_key", 3, 6},
	{store.Organization{ID: "org_ember", Name: "Ember Health", Plan: "enterprise", RetainerActive: true, APIEnabled: true}, "demo_ember_enterprise_key", 5, 24},
	{store.Organization{ID: "org_fable", Name: "Fable Books", Plan: "enterprise", RetainerActive: true, APIEnabled: true}, "demo_fable_enterprise_key", 2, 3},
	// Valid keys of accounts that may not use the API: 403 FORBIDDEN.
	{store.Organization{ID: "org_gale", Name: "Gale Energy", Plan: "growth", RetainerActive: false, APIEnabled: true}, "demo_gale_retainer_ended_key", 2, 5},
	{store.Organization{ID: "org_harbor", Name: "Harbor Dental", Plan: "starter", RetainerActive: true, APIEnabled: false}, "demo_harbor_api_disabled_key", 1, 2},
}

// demoEpoch anchors the demo data's dates, so that it is the same on every
// run.
var demoEpoch = time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)

var demoProjectNames = []string{
	"Website redesign", "Mobile app", "Brand refresh", "Data warehouse",
	"Checkout revamp", "SEO audit", "Customer portal", "Email campaigns",
}

// demoFiles are the files that demo deliverables carry, cycled through.
var demoFiles = []struct {
	name, contentType, content string
}{
	{"release-notes.txt", "text/plain; charset=utf-8", "Release notes\n\n- New navigation\n- Faster search\n- Accessibility fixes\n"},
	{"traffic-report.csv", "text/csv; charset=utf-8", "week,visits,signups\n2026-01-05,1200,31\n2026-01-12,1350,40\n2026-01-19,1410,38\n"},
	{"design-review.pdf", "application/pdf", "%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"},
}

// demoData returns the built-in demo data: organizations on every plan,
// two whose keys are refused with 403, projects in every status with
// milestones and deliverables (with and without files), and enough invoices
// in one organization to page through. It is the same on every call.
func demoData() *dataset {
	ds := &dataset{content: map[string][]byte{}}
	for oi, o := range demoOrgs {
		ds.orgs = append(ds.orgs, o.Organization)
		ds.keys = append(ds.keys, apiKey{OrgID: o.ID, Name: "demo", Key: o.key})
		if oi == 0 {
			ds.keys = append(ds.keys, apiKey{OrgID: o.ID, Name: "demo sandbox", Key: demoSandboxKey, Sandbox: true})
		}
		for pi := 0; pi < o.projects; pi++ {
			p := demoProject(o.ID, oi, pi)
			ds.projects = append(ds.projects, p)
			ds.milestones = append(ds.milestones, demoMilestones(p)...)
			ds.demoDeliverables(p, pi)
		}
		for n := 0; n < o.invoices; n++ {
			inv := demoInvoice(o.ID, ds.projects, n, o.invoices)
			if inv.Status != store.InvoiceDraft {
				inv.DocumentKey = ds.keep("invoices", inv.OrgID, inv.ID, demoDocument(inv))
			}
			ds.invoices = append(ds.invoices, inv)
		}
		ds.demoThreads(o.ID)
	}
	return ds
}

// demoThreads gives an organization communication threads: one about a
// milestone of each of its first two started projects (the second
// resolved, with an edited message), one about the whole account (its
// latest invoice), an internal note in the first thread and an internal
// thread, which clients never see. Some messages carry attachments.
func (ds *dataset) demoThreads(orgID string) {
	var started []store.Project
	for _, p := range ds.projects {
		if p.OrgID == orgID && p.StartedAt != nil && len(started) < 2 {
			started = append(started, p)
		}
	}
	short := orgID[len("org_"):]
	n, msgN, att := 0, 0, 0
	thread := func(projectID *string, subject string, about *store.Ref, at time.Time) *store.Thread {
		n++
		ds.threads = append(ds.threads, store.Thread{
			ID: fmt.Sprintf("thr_%s_%d", short, n), OrgID: orgID, ProjectID: projectID,
			Subject: subject, Status: store.ThreadOpen, About: about, CreatedAt: at,
		})
		return &ds.threads[len(ds.threads)-1]
	}
	message := func(t *store.Thread, author store.Author, body string, at time.Time, files int) *store.Message {
		msgN++
		m := store.Message{
			ID: fmt.Sprintf("msg_%s_%d", short, msgN), OrgID: orgID, ThreadID: t.ID,
			Author: author, Body: body, CreatedAt: at, Attachments: []store.Attachment{},
		}
		for range files {
			f := demoFiles[att%len(demoFiles)]
			att++
			a := store.Attachment{ID: fmt.Sprintf("att_%s_%d", short, att), FileName: f.name,
				ContentType: f.contentType, SizeBytes: int64(len(f.content))}
			a.FileKey = ds.keep("attachments", orgID, a.ID, []byte(f.content))
			m.Attachments = append(m.Attachments, a)
		}
		ds.messages = append(ds.messages, m)
		return &ds.messages[len(ds.messages)-1]
	}
	agency := store.Author{Name: "Ana (project lead)", Side: store.SideAgency}
	client := store.Author{Name: "Sam", Side: store.SideClient}

	for i, p := range started {
		at := p.StartedAt.AddDate(0, 0, 20+i)
		about := &store.Ref{Kind: store.KindMilestone, ID: fmt.Sprintf("ms_%s_%d", p.ID[len("prj_"):], 2)}
		switch i {
		case 0:
			t := thread(ptr(p.ID), p.Name+": build timeline", about, at)
			message(t, agency, "Here is the plan for the build phase; the first review is in two weeks.", at, 1)
			message(t, client, "Thanks! Could we see the review notes as a file too?", at.Add(3*time.Hour), 0)
			internal := message(t, agency, "Note to self: check the hosting budget before we reply.", at.Add(4*time.Hour), 0)
			internal.Internal = true
			message(t, agency, "Attached: the review notes and the latest numbers.", at.Add(26*time.Hour), 2)
		case 1:
			t := thread(ptr(p.ID), p.Name+": content sign-off", about, at)
			edited := message(t, client, "The copy looks good, please go ahead.", at, 0)
			edited.EditedAt = ptr(at.Add(20 * time.Minute))
			message(t, agency, "Great, scheduled. Closing this thread.", at.Add(2*time.Hour), 0)
			t.Status, t.ResolvedAt = store.ThreadResolved, ptr(at.Add(2*time.Hour))
		}
	}
	// About the whole account: its latest invoice, when it has one.
	var about *store.Ref
	for _, inv := range ds.invoices {
		if inv.OrgID == orgID {
			about = &store.Ref{Kind: store.KindInvoice, ID: inv.ID}
			break
		}
	}
	t := thread(nil, "Billing contact for next year", about, demoEpoch.AddDate(0, 0, -3))
	message(t, client, "Please send invoices to our new finance address from March.", t.CreatedAt, 0)
	message(t, agency, "Noted, we will update it before the next invoice.", t.CreatedAt.Add(5*time.Hour), 0)
	if len(started) > 0 {
		t := thread(ptr(started[0].ID), "Internal: staffing", nil, demoEpoch.AddDate(0, 0, -1))
		t.Internal = true
		message(t, agency, "Agency only: move a developer over for two weeks.", t.CreatedAt, 1)
	}
}

func demoProject(orgID string, oi, pi int) store.Project {
	status := store.ProjectStatuses[(pi+oi)%len(store.ProjectStatuses)]
	start := demoEpoch.AddDate(0, -2*pi, 7*oi)
	p := store.Project{
		ID:        fmt.Sprintf("prj_%s_%d", orgID[len("org_"):], pi+1),
		OrgID:     orgID,
		Name:      demoProjectNames[(pi+oi)%len(demoProjectNames)],
		Status:    status,
		StartedAt: ptr(start),
		DueAt:     ptr(start.AddDate(0, 4, 0)),
		UpdatedAt: start.AddDate(0, 0, 14),
	}
	switch status {
	case store.ProjectPlanned:
		p.StartedAt = nil // not started yet
		p.UpdatedAt = demoEpoch.AddDate(0, 0, -oi)
	case store.ProjectOnHold:
		p.DueAt = nil // open-ended until it resumes
	}
	return p
}

// demoMilestones gives a project three milestones whose statuses follow
// the project's.
func demoMilestones(p store.Project) []store.Milestone {
	done := map[store.ProjectStatus]int{
		store.ProjectPlanned: 0, store.ProjectInProgress: 1, store.ProjectOnHold: 1,
		store.ProjectCompleted: 3, store.ProjectCancelled: 1,
	}[p.Status]
	base := demoEpoch
	if p.StartedAt != nil {
		base = *p.StartedAt
	}
	var ms []store.Milestone
	for i, name := range []string{"Discovery", "Build", "Launch"} {
		m := store.Milestone{
			ID:        fmt.Sprintf("ms_%s_%d", p.ID[len("prj_"):], i+1),
			OrgID:     p.OrgID,
			ProjectID: p.ID,
			Name:      name,
			Status:    store.MilestonePending,
			DueAt:     base.AddDate(0, i+1, 0),
		}
		switch {
		case i < done:
			m.Status = store.MilestoneCompleted
			m.CompletedAt = ptr(m.DueAt.AddDate(0, 0, -2))
		case i == done && p.Status == store.ProjectInProgress:
			m.Status = store.MilestoneInProgress
		}
		ms = append(ms, m)
	}
	return ms
}

// demoDeliverables gives a started project deliverables in every status;
// the reviewed ones carry a file, the pending one none yet.
func (ds *dataset) demoDeliverables(p store.Project, pi int) {
	if p.StartedAt == nil {
		return
	}
	for i, status := range store.DeliverableStatuses {
		d := store.Deliverable{
			ID:        fmt.Sprintf("dlv_%s_%d", p.ID[len("prj_"):], i+1),
			OrgID:     p.OrgID,
			ProjectID: p.ID,
			Name:      fmt.Sprintf("%s: %s", p.Name, []string{"wireframes", "prototype", "final build", "first draft"}[i]),
			Status:    status,
			CreatedAt: p.StartedAt.AddDate(0, 0, 10*(i+1)),
			UpdatedAt: p.StartedAt.AddDate(0, 0, 10*(i+1)+3),
		}
		if status != store.DeliverablePending {
			f := demoFiles[(pi+i)%len(demoFiles)]
			d.FileName, d.ContentType = ptr(f.name), ptr(f.contentType)
			ds.attach(&d, []byte(f.content))
		}
		ds.deliverables = append(ds.deliverables, d)
	}
}

// demoInvoice returns the n-th of an organization's invoices, monthly and
// newest first: the latest a draft, the next open, a void one now and then,
// the rest paid. Every third belongs to a project; the others are retainer
// invoices, which belong to none.
func demoInvoice(orgID string, projects []store.Project, n, count int) store.Invoice {
	issued := demoEpoch.AddDate(0, -n, 0)
	inv := store.Invoice{
		ID:        fmt.Sprintf("inv_%s_%03d", orgID[len("org_"):], count-n),
		OrgID:     orgID,
		Number:    fmt.Sprintf("%s-%04d", strings.ToUpper(orgID[len("org_"):len("org_")+3]), count-n),
		Status:    store.InvoicePaid,
		Currency:  "EUR",
		Total:     int64(150000 + 2500*(n%7)),
		IssuedAt:  issued,
		DueAt:     issued.AddDate(0, 0, 30),
		PaidAt:    ptr(issued.AddDate(0, 0, 12+n%9)),
		AmountDue: 0,
	}
	if n%3 == 1 {
		for _, p := range projects {
			if p.OrgID == orgID && p.StartedAt != nil {
				inv.ProjectID = ptr(p.ID)
				break
			}
		}
	}
	switch {
	case n == 0:
		inv.Status, inv.PaidAt, inv.AmountDue = store.InvoiceDraft, nil, inv.Total
	case n == 1:
		inv.Status, inv.PaidAt, inv.AmountDue = store.InvoiceOpen, nil, inv.Total/2
	case n%11 == 5:
		inv.Status, inv.PaidAt = store.InvoiceVoid, nil
	}
	return inv
}

// demoDocument returns the document of an issued demo invoice (served
// through GET /v1/invoices/{id}/document, as a data file's
// invoices[].document is): a small, valid PDF of one page that shows the
// invoice's number, amount and dates, enough for a client's developer to
// see a real document behind the link.
func demoDocument(inv store.Invoice) []byte {
	return demopdf.Page(
		"Invoice "+inv.Number,
		fmt.Sprintf("Total: %d.%02d %s", inv.Total/100, inv.Total%100, inv.Currency),
		"Issued: "+inv.IssuedAt.Format("2006-01-02")+"   Due: "+inv.DueAt.Format("2006-01-02"),
		"Demo data of the clientstatus example server.",
	)
}
