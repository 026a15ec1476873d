package statusclient_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/statusclient"
	"github.com/clientstatus/clientstatus/store"
)

// TestRealHandlerSingleItemsAndExpand reads single items, an invoice's
// document and expanded projects from the real handler.
func TestRealHandlerSingleItemsAndExpand(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	a := newRealAPI(t)
	c := a.org(t, "org_e", store.PlanEnterprise)
	day := time.Date(2026, 2, 1, 9, 0, 0, 0, time.UTC)
	must(t, a.st.PutProject(ctx, store.Project{ID: "p1", OrgID: "org_e", Name: "Site", Status: store.ProjectInProgress}))
	must(t, a.st.PutMilestone(ctx, store.Milestone{ID: "m1", OrgID: "org_e", ProjectID: "p1", Name: "Design", Status: store.MilestonePending, DueAt: day}))
	must(t, a.st.PutDeliverable(ctx, store.Deliverable{ID: "d/1", OrgID: "org_e", ProjectID: "p1", Name: "Mockups", Status: store.DeliverablePending, CreatedAt: day}))
	pid := "p1"
	must(t, a.st.PutInvoice(ctx, store.Invoice{ID: "i1", OrgID: "org_e", Number: "INV-1", ProjectID: &pid, Status: store.InvoiceOpen, Currency: "EUR",
		Total: 100, AmountDue: 100, IssuedAt: day, DueAt: day, DocumentKey: "docs/i1.pdf"}))
	must(t, a.st.PutInvoice(ctx, store.Invoice{ID: "i2", OrgID: "org_e", Number: "INV-2", Status: store.InvoiceOpen, Currency: "EUR",
		Total: 100, AmountDue: 100, IssuedAt: day, DueAt: day}))
	a.files.Put("docs/i1.pdf", []byte("%PDF i1"))
	must(t, a.st.PutThread(ctx, store.Thread{ID: "t1", OrgID: "org_e", ProjectID: &pid, Subject: "Hi", Status: store.ThreadOpen, CreatedAt: day}))
	must(t, a.st.PutMessage(ctx, store.Message{ID: "msg1", OrgID: "org_e", ThreadID: "t1", Author: store.Author{Name: "Ana", Side: store.SideAgency}, Body: "Hello", CreatedAt: day}))

	m, _, err := c.GetMilestone(ctx, "m1")
	is.NoErr(err)
	is.Equal(m.Name, "Design")
	is.Equal(m.Project, nil) // not asked
	m, _, err = c.GetMilestone(ctx, "m1", statusclient.ItemOptions{Expand: statusclient.ExpandProject})
	is.NoErr(err)
	is.Equal(*m.Project, statusclient.ProjectRef{ID: "p1", Name: "Site", Status: statusclient.ProjectInProgress})

	d, resp, err := c.GetDeliverable(ctx, "d/1") // an id with a slash is escaped
	is.NoErr(err)
	is.Equal(d.Name, "Mockups")
	_, _, err = c.GetDeliverable(ctx, "d/1", statusclient.ItemOptions{IfNoneMatch: resp.ETag})
	is.True(errors.Is(err, statusclient.ErrNotModified)) // revalidated

	inv, _, err := c.GetInvoice(ctx, "i1", statusclient.ItemOptions{Expand: statusclient.ExpandProject})
	is.NoErr(err)
	is.True(inv.DocumentAvailable)
	is.Equal(inv.Project.Name, "Site")
	link, _, err := c.InvoiceDocument(ctx, "i1")
	is.NoErr(err)
	res, err := http.Get(link.URL)
	is.NoErr(err)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	is.Equal(string(body), "%PDF i1") // the document through the signed link
	_, _, err = c.InvoiceDocument(ctx, "i2")
	is.Equal(statusclient.ErrorCodeOf(err), statusclient.CodeFileNotAvailable)

	invs, _, err := c.ListInvoices(ctx, statusclient.InvoiceListOptions{Expand: statusclient.ExpandProject})
	is.NoErr(err)
	is.Equal(len(invs), 2)
	for _, i := range invs {
		is.Equal(i.Project != nil, i.ProjectID != nil) // a retainer invoice has no project
	}
	ths, _, err := c.ListThreads(ctx, statusclient.ThreadListOptions{Expand: statusclient.ExpandProject})
	is.NoErr(err)
	is.Equal(ths[0].Project.ID, "p1")
	th, _, err := c.GetThread(ctx, "t1", statusclient.ItemOptions{Expand: statusclient.ExpandProject})
	is.NoErr(err)
	is.Equal(th.Project.ID, "p1")
	ms, _, err := c.ListMilestones(ctx, "p1", statusclient.MilestoneListOptions{Expand: statusclient.ExpandProject})
	is.NoErr(err)
	is.Equal(ms[0].Project.ID, "p1")
	ds, _, err := c.ListDeliverables(ctx, statusclient.DeliverableListOptions{Expand: statusclient.ExpandProject})
	is.NoErr(err)
	is.Equal(ds[0].Project.ID, "p1")

	msg, _, err := c.GetMessage(ctx, "msg1")
	is.NoErr(err)
	is.Equal(msg.Body, "Hello")
	_, _, err = c.GetMessage(ctx, "nope")
	is.Equal(statusclient.ErrorCodeOf(err), statusclient.CodeNotFound)
	_, _, err = c.GetInvoice(ctx, "")
	is.True(err != nil) // an empty id is refused without a request
}
