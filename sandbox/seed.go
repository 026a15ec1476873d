package sandbox

import (
	"context"
	"fmt"
	"time"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/store"
)

// Store is what Seed and the Simulator read and write: the status API's
// reads and the portal's writers, as memstore.Store and bunstore's
// Store offer them.
type Store interface {
	store.Store
	store.Threads
	store.Writer
	store.ThreadWriter
}

// Seed writes the sandbox of liveOrg (see the package doc): the
// organization auth.SandboxOrgID(liveOrg.ID), named after liveOrg, with
// its plan and access flags, every time; the demo data only when the
// sandbox has no projects yet, so that a second Seed (a restart, a
// reload) keeps what the Simulator made of it. It reads the options
// WithClock (the demo data's dates count from it) and ignores the others.
// It refuses a liveOrg whose id is already a sandbox's.
func Seed(ctx context.Context, st Store, liveOrg store.Organization, opts ...Option) error {
	if auth.IsSandboxOrgID(liveOrg.ID) {
		return fmt.Errorf("sandbox: seed %q: %w organization: it is a sandbox already", liveOrg.ID, store.ErrInvalid)
	}
	c := newConfig(opts)
	org := liveOrg
	org.ID = auth.SandboxOrgID(liveOrg.ID)
	org.Name = liveOrg.Name + " (sandbox)"
	if err := st.PutOrganization(ctx, org); err != nil {
		return fmt.Errorf("sandbox: seed %q: %w", org.ID, err)
	}
	page, err := st.ListProjects(ctx, org.ID, store.ProjectQuery{PageRequest: store.PageRequest{Page: 1, Limit: 1}})
	if err != nil {
		return fmt.Errorf("sandbox: seed %q: %w", org.ID, err)
	}
	if len(page.Items) > 0 {
		return nil
	}
	if err := demo(org.ID, c.now().UTC().Truncate(time.Second)).put(ctx, st); err != nil {
		return fmt.Errorf("sandbox: seed %q: %w", org.ID, err)
	}
	return nil
}

// data is a sandbox's demo data, in the order it is put.
type data struct {
	projects     []store.Project
	milestones   []store.Milestone
	deliverables []store.Deliverable
	invoices     []store.Invoice
	threads      []store.Thread
	messages     []store.Message
}

func (d data) put(ctx context.Context, st Store) error {
	for _, p := range d.projects {
		if err := st.PutProject(ctx, p); err != nil {
			return err
		}
	}
	for _, m := range d.milestones {
		if err := st.PutMilestone(ctx, m); err != nil {
			return err
		}
	}
	for _, x := range d.deliverables {
		if err := st.PutDeliverable(ctx, x); err != nil {
			return err
		}
	}
	for _, i := range d.invoices {
		if err := st.PutInvoice(ctx, i); err != nil {
			return err
		}
	}
	for _, t := range d.threads {
		if err := st.PutThread(ctx, t); err != nil {
			return err
		}
	}
	for _, m := range d.messages {
		if err := st.PutMessage(ctx, m); err != nil {
			return err
		}
	}
	return nil
}

// Ids of the demo data, fixed: every sandbox is another organization, and
// ids are unique within one.
const (
	projectWebsite = "prj_sandbox_website"
	projectApp     = "prj_sandbox_app"
)

// demo returns the demo data of the sandbox org, dated from now.
func demo(org string, now time.Time) data {
	day := 24 * time.Hour
	at := func(days int) time.Time { return now.Add(time.Duration(days) * day) }
	ptr := func(t time.Time) *time.Time { return &t }
	str := func(s string) *string { return &s }
	website, app := str(projectWebsite), str(projectApp)
	withFile := func(d store.Deliverable, key string) store.Deliverable {
		f := demoFiles[key]
		size := int64(len(f.content))
		d.FileName, d.ContentType, d.SizeBytes, d.FileKey = str(f.name), str(f.contentType), &size, f.key
		return d
	}
	agency := store.Author{Name: "Sam (agency)", Side: store.SideAgency}
	client := store.Author{Name: "Alex (client)", Side: store.SideClient}
	notes := demoFiles[filePrefix+"review-notes.txt"]
	return data{
		projects: []store.Project{
			{ID: projectWebsite, OrgID: org, Name: "Website redesign", Status: store.ProjectInProgress, StartedAt: ptr(at(-60)), DueAt: ptr(at(30))},
			{ID: projectApp, OrgID: org, Name: "Mobile app", Status: store.ProjectPlanned, DueAt: ptr(at(120))},
		},
		milestones: []store.Milestone{
			{ID: "ms_sandbox_discovery", OrgID: org, ProjectID: projectWebsite, Name: "Discovery", Status: store.MilestoneCompleted, DueAt: at(-40), CompletedAt: ptr(at(-42))},
			{ID: "ms_sandbox_design", OrgID: org, ProjectID: projectWebsite, Name: "Design", Status: store.MilestoneInProgress, DueAt: at(7)},
			{ID: "ms_sandbox_build", OrgID: org, ProjectID: projectWebsite, Name: "Build", Status: store.MilestonePending, DueAt: at(21)},
			{ID: "ms_sandbox_launch", OrgID: org, ProjectID: projectWebsite, Name: "Launch", Status: store.MilestonePending, DueAt: at(30)},
			{ID: "ms_sandbox_prototype", OrgID: org, ProjectID: projectApp, Name: "Prototype", Status: store.MilestonePending, DueAt: at(60)},
		},
		deliverables: []store.Deliverable{
			withFile(store.Deliverable{ID: "dlv_sandbox_brand", OrgID: org, ProjectID: projectWebsite, Name: "Brand guidelines", Status: store.DeliverableApproved, CreatedAt: at(-50)}, filePrefix+"brand-guidelines.txt"),
			withFile(store.Deliverable{ID: "dlv_sandbox_mockup", OrgID: org, ProjectID: projectWebsite, Name: "Homepage mockup", Status: store.DeliverableInReview, CreatedAt: at(-10)}, filePrefix+"homepage-mockup.txt"),
			withFile(store.Deliverable{ID: "dlv_sandbox_wireframes", OrgID: org, ProjectID: projectApp, Name: "App wireframes", Status: store.DeliverableRejected, CreatedAt: at(-5)}, filePrefix+"wireframes.txt"),
			{ID: "dlv_sandbox_copy", OrgID: org, ProjectID: projectWebsite, Name: "Homepage copy", Status: store.DeliverablePending, CreatedAt: at(-2)},
		},
		invoices: []store.Invoice{
			{ID: "inv_sandbox_0001", OrgID: org, Number: "SBX-0001", ProjectID: website, Status: store.InvoicePaid, Currency: "USD", Total: 450000, AmountDue: 0, IssuedAt: at(-45), DueAt: at(-15), PaidAt: ptr(at(-20)), DocumentKey: filePrefix + "invoice-SBX-0001.pdf"},
			{ID: "inv_sandbox_0002", OrgID: org, Number: "SBX-0002", ProjectID: website, Status: store.InvoiceOpen, Currency: "USD", Total: 300000, AmountDue: 300000, IssuedAt: at(-5), DueAt: at(25), DocumentKey: filePrefix + "invoice-SBX-0002.pdf"},
			{ID: "inv_sandbox_0003", OrgID: org, Number: "SBX-0003", Status: store.InvoiceOpen, Currency: "USD", Total: 120000, AmountDue: 120000, IssuedAt: at(-1), DueAt: at(29)},
			{ID: "inv_sandbox_0004", OrgID: org, Number: "SBX-0004", ProjectID: app, Status: store.InvoiceDraft, Currency: "USD", Total: 250000, AmountDue: 250000, IssuedAt: now, DueAt: at(30)},
		},
		threads: []store.Thread{
			{ID: "thr_sandbox_mockup", OrgID: org, ProjectID: website, Subject: "Feedback on the homepage mockup", Status: store.ThreadOpen, About: &store.Ref{Kind: store.KindDeliverable, ID: "dlv_sandbox_mockup"}, CreatedAt: at(-9)},
			{ID: "thr_sandbox_kickoff", OrgID: org, Subject: "Welcome to your sandbox", Status: store.ThreadResolved, CreatedAt: at(-60), ResolvedAt: ptr(at(-59))},
		},
		messages: []store.Message{
			{ID: "msg_sandbox_1", OrgID: org, ThreadID: "thr_sandbox_kickoff", Author: agency, Body: "This is sandbox data: it changes by itself, and never touches your live account.", CreatedAt: at(-60)},
			{ID: "msg_sandbox_2", OrgID: org, ThreadID: "thr_sandbox_mockup", Author: agency, Body: "The homepage mockup is ready for your review.", CreatedAt: at(-9),
				Attachments: []store.Attachment{{ID: "att_sandbox_notes", FileName: notes.name, ContentType: notes.contentType, SizeBytes: int64(len(notes.content)), FileKey: notes.key}}},
			{ID: "msg_sandbox_3", OrgID: org, ThreadID: "thr_sandbox_mockup", Author: client, Body: "Thanks, we will look at it this week.", CreatedAt: at(-8)},
		},
	}
}
