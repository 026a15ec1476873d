package statusclient_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/statusclient"
)

var t0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// seed puts two projects and something of every kind in f.
func seed(f *changeAPI) {
	p1, p2 := "p1", "p2"
	f.put(
		statusclient.Project{ID: "p1", Name: "Site", Status: statusclient.ProjectInProgress, StartedAt: ptr(t0.AddDate(0, -2, 0))},
		statusclient.Project{ID: "p2", Name: "App", Status: statusclient.ProjectPlanned},
		statusclient.Milestone{ID: "m1", ProjectID: "p1", Name: "Design", Status: statusclient.MilestoneCompleted, DueAt: t0.AddDate(0, -1, 0), CompletedAt: ptr(t0.AddDate(0, -1, -2))},
		statusclient.Milestone{ID: "m2", ProjectID: "p1", Name: "Build", Status: statusclient.MilestoneInProgress, DueAt: t0.AddDate(0, 1, 0)},
		statusclient.Milestone{ID: "m3", ProjectID: "p2", Name: "Scope", Status: statusclient.MilestonePending, DueAt: t0.AddDate(0, 2, 0)},
		statusclient.Deliverable{ID: "d1", ProjectID: "p1", Name: "Mockups", Status: statusclient.DeliverableInReview, CreatedAt: t0.AddDate(0, -1, 0)},
		statusclient.Deliverable{ID: "d2", ProjectID: "p2", Name: "Brief", Status: statusclient.DeliverablePending, CreatedAt: t0.AddDate(0, 0, -3)},
		statusclient.Invoice{ID: "i1", Number: "INV-1", ProjectID: &p1, Status: statusclient.InvoiceOpen, Currency: "EUR", Total: 1000, AmountDue: 1000, IssuedAt: t0.AddDate(0, -1, 0), DueAt: t0},
		statusclient.Invoice{ID: "i2", Number: "INV-2", ProjectID: &p2, Status: statusclient.InvoiceDraft, Currency: "EUR", Total: 500, AmountDue: 500, IssuedAt: t0, DueAt: t0.AddDate(0, 1, 0)},
		statusclient.Invoice{ID: "i3", Number: "R-1", Status: statusclient.InvoicePaid, Currency: "EUR", Total: 300, IssuedAt: t0.AddDate(0, -2, 0), DueAt: t0.AddDate(0, -1, 0), PaidAt: ptr(t0.AddDate(0, -1, -5))},
		statusclient.Thread{ID: "t1", ProjectID: &p1, Subject: "Launch date", Status: statusclient.ThreadOpen, About: &statusclient.About{Type: statusclient.AboutMilestone, ID: "m2"}, CreatedAt: t0.AddDate(0, 0, -7)},
		statusclient.Thread{ID: "t2", Subject: "Billing contact", Status: statusclient.ThreadOpen, CreatedAt: t0.AddDate(0, 0, -6)},
		statusclient.Message{ID: "msg1", ThreadID: "t1", Author: statusclient.Author{Name: "Ana", Side: statusclient.SideAgency}, Body: "March?",
			Attachments: []statusclient.Attachment{{ID: "att1", FileName: "plan.txt", ContentType: "text/plain", SizeBytes: 42}}, CreatedAt: t0.AddDate(0, 0, -7)},
		statusclient.Message{ID: "msg2", ThreadID: "t1", Author: statusclient.Author{Name: "Bo", Side: statusclient.SideClient}, Body: "Yes.", CreatedAt: t0.AddDate(0, 0, -6)},
		statusclient.Message{ID: "msg3", ThreadID: "t2", Author: statusclient.Author{Name: "Bo", Side: statusclient.SideClient}, Body: "Who gets the invoices?", CreatedAt: t0.AddDate(0, 0, -6)},
	)
}

func syncServer(t *testing.T, f *changeAPI) *statusclient.Client {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return statusclient.New(srv.URL+"/v1", "k")
}

// TestSyncKeepsAnExactCopy runs a script of changes on the fake; after
// each, one Sync must make the replica equal to the fake's data.
func TestSyncKeepsAnExactCopy(t *testing.T) {
	f := newChangeAPI(t0)
	c := syncServer(t, f)
	seed(f)
	var r statusclient.Replica
	p2 := "p2"

	steps := []struct {
		name   string
		change func()
		check  func(is *is.I, st statusclient.SyncStats, log []string)
	}{
		{"the first Sync loads everything", func() {}, func(is *is.I, st statusclient.SyncStats, log []string) {
			is.True(st.Full)
			is.Equal(st.Upserted, 2+3+2+3+2+3) // every item once
			is.Equal(st.Deleted, 0)
			is.Equal(len(log), 6+1) // a page of each list, the deletions made meanwhile
			loadedFromEpoch(is, log)
		}},
		{"nothing changed", func() {}, func(is *is.I, st statusclient.SyncStats, log []string) {
			is.True(!st.Full)
			is.Equal(st.Deleted, 0)
			is.Equal(len(log), 7)                                // the deletions, the lists
			is.True(strings.HasPrefix(log[0], "/v1/deletions?")) // deletions first
		}},
		{"nothing changed again: every answer is 304", func() {}, func(is *is.I, st statusclient.SyncStats, log []string) {
			is.Equal(st.Requests, 7)
			is.Equal(st.NotModified, st.Requests-1) // but the deletions feed's: its syncedThrough moved with the clock
			is.Equal(st.Upserted, 0)
		}},
		{"adds", func() {
			f.put(
				statusclient.Project{ID: "p3", Name: "Shop", Status: statusclient.ProjectPlanned},
				statusclient.Milestone{ID: "m4", ProjectID: "p3", Name: "Kickoff", Status: statusclient.MilestonePending, DueAt: t0.AddDate(0, 3, 0)},
				statusclient.Invoice{ID: "i4", Number: "INV-4", Status: statusclient.InvoiceOpen, Currency: "USD", Total: 1, AmountDue: 1, IssuedAt: t0, DueAt: t0},
				statusclient.Message{ID: "msg4", ThreadID: "t2", Author: statusclient.Author{Name: "Ana", Side: statusclient.SideAgency}, Body: "Finance.", CreatedAt: t0.Add(time.Hour)},
			)
		}, nil},
		{"a milestone changes, its project does not", func() {
			m := f.milestones["m3"]
			m.Status = statusclient.MilestoneInProgress
			f.put(m)
		}, nil},
		{"edits", func() {
			d, i, th, m := f.deliverables["d1"], f.invoices["i1"], f.threads["t1"], f.messages["msg1"]
			d.Status, d.FileName, d.ContentType, d.SizeBytes = statusclient.DeliverableApproved, ptr("mockups.pdf"), ptr("application/pdf"), ptr(int64(5))
			i.Status, i.AmountDue, i.PaidAt = statusclient.InvoicePaid, 0, ptr(t0)
			th.Status, th.ResolvedAt = statusclient.ThreadResolved, ptr(t0)
			m.Body, m.EditedAt = "March, then.", ptr(t0)
			f.put(d, i, th, m)
		}, nil},
		{"a write that changes nothing", func() {
			f.put(f.projects["p1"], f.invoices["i2"])
		}, func(is *is.I, st statusclient.SyncStats, log []string) {
			is.Equal(st.Deleted, 0)
		}},
		{"deletes", func() {
			f.del(statusclient.DeletionDeliverable, "d2")
			f.del(statusclient.DeletionMessage, "msg2") // its thread changes
			f.del(statusclient.DeletionMilestone, "m1")
			f.del(statusclient.DeletionInvoice, "i3")
		}, func(is *is.I, st statusclient.SyncStats, log []string) {
			is.Equal(st.Deleted, 4)
		}},
		{"a project deleted with all it holds", func() {
			f.del(statusclient.DeletionProject, "p1") // m2, d1, t1 with msg1; i1 stays, with no project
		}, func(is *is.I, st statusclient.SyncStats, log []string) {
			is.Equal(st.Deleted, 5)
		}},
		{"an id comes back", func() {
			f.put(
				statusclient.Project{ID: "p1", Name: "Site, again", Status: statusclient.ProjectPlanned},
				statusclient.Milestone{ID: "m1", ProjectID: "p1", Name: "Design", Status: statusclient.MilestonePending, DueAt: t0.AddDate(0, 4, 0)},
			)
		}, nil},
		{"hundreds of changes in one second", func() {
			for i := range 250 {
				f.put(statusclient.Invoice{ID: fmt.Sprintf("bulk%03d", i), Number: fmt.Sprint(i), ProjectID: &p2, Status: statusclient.InvoiceOpen, Currency: "EUR", IssuedAt: t0, DueAt: t0})
			}
			for i := range 150 {
				f.put(statusclient.Milestone{ID: fmt.Sprintf("bulk%03d", i), ProjectID: "p2", Status: statusclient.MilestonePending, DueAt: t0})
			}
		}, func(is *is.I, st statusclient.SyncStats, log []string) {
			is.True(!st.Full)
			is.True(st.Upserted >= 400)
		}},
		{"more deletions than a page", func() {
			for i := range 120 {
				f.del(statusclient.DeletionInvoice, fmt.Sprintf("bulk%03d", i))
			}
		}, func(is *is.I, st statusclient.SyncStats, log []string) {
			is.Equal(st.Deleted, 120)
		}},
		{"a Sync after the deletions kept: a full load", func() {
			f.tick(31 * 24 * time.Hour)
			f.del(statusclient.DeletionMilestone, "m4") // to be seen by the load
		}, func(is *is.I, st statusclient.SyncStats, log []string) {
			is.True(st.Full)                                     // the server no longer knew since
			is.Equal(st.Deleted, 1)                              // m4, found missing by the load
			is.True(strings.HasPrefix(log[0], "/v1/deletions?")) // the feed that answered 400 on since
			loadedFromEpoch(is, log[1:])
		}},
		{"nothing changed for 30 days", func() {}, func(is *is.I, st statusclient.SyncStats, log []string) {
			is.True(!st.Full) // the deletions feed's cursor moved with its syncedThrough
		}},
		{"a change at last", func() {
			f.put(statusclient.Invoice{ID: "i5", Number: "INV-5", Status: statusclient.InvoiceDraft, Currency: "EUR", IssuedAt: t0, DueAt: t0})
		}, func(is *is.I, st statusclient.SyncStats, log []string) {
			is.True(!st.Full)
		}},
		{"then changes again", func() {
			f.del(statusclient.DeletionInvoice, "i5")
		}, func(is *is.I, st statusclient.SyncStats, log []string) {
			is.True(!st.Full) // from the new one
			is.Equal(st.Deleted, 1)
		}},
	}
	for _, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			is := is.New(t)
			f.tick(time.Minute)
			step.change()
			f.requestLog()
			st, err := c.Sync(context.Background(), &r)
			is.NoErr(err)
			f.equal(t, &r)
			if step.check != nil {
				step.check(is, st, f.requestLog())
			}
		})
	}
}

// loadedFromEpoch checks the requests of a full load against the
// contract's starting point: every list walked from
// updatedSince=1970-01-01T00:00:00Z, no deletions read before the lists,
// and after them only those made while the load ran (from its pages'
// syncedThrough, not the epoch).
func loadedFromEpoch(is *is.I, log []string) {
	lists := map[string]bool{}
	for i, uri := range log {
		u, err := url.ParseRequestURI(uri)
		is.NoErr(err)
		if u.Path == "/v1/deletions" {
			is.Equal(i, len(log)-1)                                   // deletions only after every list
			is.True(u.Query().Get("since") != "1970-01-01T00:00:00Z") // those made while the load ran
			continue
		}
		lists[u.Path] = true
		is.Equal(u.Query().Get("updatedSince"), "1970-01-01T00:00:00Z") // every page of every list from the epoch
	}
	is.Equal(len(lists), 6) // every list walked
}

// TestSyncWhileTheDataChanges changes the data in the middle of a load:
// an edit while the invoices are walked, which moves an item already read
// to the end of the list (a walk of fixed pages would then skip one), and
// the deletion of a project already read, followed by a newer change in a
// list read later (the newest stamp seen is then no safe start for the
// deletions).
func TestSyncWhileTheDataChanges(t *testing.T) {
	is := is.New(t)
	f := newChangeAPI(t0)
	c := syncServer(t, f)
	f.put(statusclient.Project{ID: "p1", Status: statusclient.ProjectPlanned}, statusclient.Project{ID: "p2", Status: statusclient.ProjectPlanned})
	for i := range 250 {
		f.put(statusclient.Invoice{ID: fmt.Sprintf("i%03d", i), Status: statusclient.InvoiceOpen, IssuedAt: t0, DueAt: t0})
		f.tick(time.Second) // each its own second
	}
	var edited, deleted atomic.Bool
	f.after = func(uri string) {
		if strings.HasPrefix(uri, "/v1/projects?") && !deleted.Swap(true) {
			f.tick(time.Second)
			f.del(statusclient.DeletionProject, "p2")
		}
		if strings.HasPrefix(uri, "/v1/invoices?") && !edited.Swap(true) {
			f.tick(time.Second)
			inv := f.invoices["i000"] // on the first page: moves to the end
			inv.Status = statusclient.InvoicePaid
			f.put(inv)
		}
	}
	var r statusclient.Replica
	_, err := c.Sync(context.Background(), &r)
	is.NoErr(err)
	is.True(edited.Load() && deleted.Load())
	is.Equal(len(r.Invoices), 250)                                // no invoice skipped by the shift
	is.Equal(r.Invoices["i000"].Status, statusclient.InvoicePaid) // and the edit seen
	f.equal(t, &r)                                                // p2, read before it went, dropped by the load's last read

	f.after = nil
	st, err := c.Sync(context.Background(), &r)
	is.NoErr(err)
	is.True(!st.Full)
	f.equal(t, &r)
}

// TestSyncChangeToAListAlreadyRead changes a project after the projects
// were read, then an invoice, later, before the invoices are: one cursor
// for every list, at the newest stamp seen, would pass over the project.
func TestSyncChangeToAListAlreadyRead(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	f := newChangeAPI(t0)
	c := syncServer(t, f)
	seed(f)
	var r statusclient.Replica
	_, err := c.Sync(ctx, &r)
	is.NoErr(err)

	var once atomic.Bool
	f.after = func(uri string) {
		if strings.HasPrefix(uri, "/v1/projects?") && !once.Swap(true) {
			f.tick(time.Second)
			p := f.projects["p2"]
			p.Status = statusclient.ProjectOnHold
			f.put(p)
			f.tick(time.Second)
			i := f.invoices["i2"]
			i.Status = statusclient.InvoiceOpen
			f.put(i)
		}
	}
	f.tick(time.Minute)
	_, err = c.Sync(ctx, &r)
	is.NoErr(err)
	is.True(once.Load())
	is.Equal(r.Invoices["i2"].Status, statusclient.InvoiceOpen) // read after the change
	_, err = c.Sync(ctx, &r)
	is.NoErr(err)
	f.equal(t, &r) // and the project's change by the next Sync
}

// TestSyncQuietDeletionsFeed syncs every ten days for two months without
// a deletion: the lists' changes keep the deletions cursor within the 30
// days the server keeps, so no Sync after the first is a full load.
func TestSyncQuietDeletionsFeed(t *testing.T) {
	is := is.New(t)
	f := newChangeAPI(t0)
	c := syncServer(t, f)
	seed(f)
	var r statusclient.Replica
	for i := range 7 {
		f.tick(10 * 24 * time.Hour)
		inv := f.invoices["i2"]
		inv.AmountDue++
		f.put(inv)
		st, err := c.Sync(context.Background(), &r)
		is.NoErr(err)
		is.Equal(st.Full, i == 0) // only the first
		f.equal(t, &r)
	}
}

func TestSyncFailsAndRecovers(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	f := newChangeAPI(t0)
	c := syncServer(t, f)
	seed(f)
	var failing atomic.Bool
	f.fail = func(uri string) bool { return failing.Load() && strings.HasPrefix(uri, "/v1/invoices") }

	var r statusclient.Replica
	failing.Store(true)
	_, err := c.Sync(ctx, &r)
	is.Equal(statusclient.ErrorCodeOf(err), statusclient.CodeInternal) // the load failed
	is.Equal(len(r.Projects), 0)                                       // and left the replica as it was
	is.True(r.Cursor.Deletions.Since.IsZero())

	failing.Store(false)
	_, err = c.Sync(ctx, &r)
	is.NoErr(err)
	f.equal(t, &r)

	f.tick(time.Minute)
	f.del(statusclient.DeletionProject, "p1")
	failing.Store(true)
	_, err = c.Sync(ctx, &r)
	is.True(err != nil)
	is.True(strings.Contains(err.Error(), "invoices")) // says which list
	failing.Store(false)
	st, err := c.Sync(ctx, &r)
	is.NoErr(err)
	is.True(!st.Full) // the next Sync completes it
	f.equal(t, &r)
}

// TestSyncReplicaSurvivesJSON saves a replica and syncs the copy: a
// program can keep its replica across runs.
func TestSyncReplicaSurvivesJSON(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	f := newChangeAPI(t0)
	c := syncServer(t, f)
	seed(f)
	var r statusclient.Replica
	_, err := c.Sync(ctx, &r)
	is.NoErr(err)
	saved, err := json.Marshal(r)
	is.NoErr(err)

	var again statusclient.Replica
	is.NoErr(json.Unmarshal(saved, &again))
	f.tick(time.Minute)
	f.del(statusclient.DeletionThread, "t2")
	st, err := c.Sync(ctx, &again)
	is.NoErr(err)
	is.True(!st.Full) // the cursor came back whole
	f.equal(t, &again)
}

func TestSyncNilReplica(t *testing.T) {
	is := is.New(t)
	_, err := statusclient.New("http://localhost/v1", "k").Sync(context.Background(), nil)
	is.True(err != nil)
}
