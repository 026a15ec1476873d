package statusclient_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/statusclient"
)

// manyInvoices returns n invoices in the contract's order (IssuedAt
// descending, then id), half of them open.
func manyInvoices(n int) []statusclient.Invoice {
	start := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	out := make([]statusclient.Invoice, n)
	for i := range out {
		status := statusclient.InvoicePaid
		if i%2 == 0 {
			status = statusclient.InvoiceOpen
		}
		out[i] = statusclient.Invoice{
			ID:       fmt.Sprintf("inv_%05d", i),
			Number:   fmt.Sprintf("INV-%05d", i),
			Status:   status,
			Currency: "EUR",
			Total:    int64(1000 + i),
			IssuedAt: start.Add(-time.Duration(i/3) * time.Hour), // ties, broken by id
			DueAt:    start.Add(30 * 24 * time.Hour),
		}
	}
	return out
}

func TestAllInvoicesWalksEveryPageExactlyOnce(t *testing.T) {
	tests := []struct {
		name      string
		n         int
		opts      statusclient.InvoiceListOptions
		wantItems int
		wantReqs  int
	}{
		{"1,234 items, default limit 100", 1234, statusclient.InvoiceListOptions{}, 1234, 13},
		{"exact multiple of the page", 1200, statusclient.InvoiceListOptions{}, 1200, 12},
		{"limit 7", 50, statusclient.InvoiceListOptions{ListOptions: statusclient.ListOptions{Limit: 7}}, 50, 8},
		{"filtered", 1234, statusclient.InvoiceListOptions{Status: statusclient.InvoiceOpen}, 617, 7},
		{"from page 3", 1234, statusclient.InvoiceListOptions{ListOptions: statusclient.ListOptions{Page: 3}}, 1034, 11},
		{"empty list", 0, statusclient.InvoiceListOptions{}, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			fake := &fakeAPI{key: "k", invoices: manyInvoices(tt.n)}
			srv := httptest.NewServer(fake)
			defer srv.Close()
			c := statusclient.New(srv.URL+"/v1", "k")

			var want []string
			for _, inv := range fake.invoices {
				if tt.opts.Status == "" || inv.Status == tt.opts.Status {
					want = append(want, inv.ID)
				}
			}
			if tt.opts.Page > 1 {
				want = want[(tt.opts.Page-1)*100:]
			}
			var got []string
			for inv, err := range c.AllInvoices(context.Background(), tt.opts) {
				is.NoErr(err)
				got = append(got, inv.ID)
			}
			is.Equal(len(got), tt.wantItems)              // every item
			is.Equal(got, want)                           // once each, in the server's order
			is.Equal(len(fake.requestLog()), tt.wantReqs) // no request past the last page
		})
	}
}

func TestAllIteratorsWalk(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	fake := &fakeAPI{key: "k", milestones: map[string][]statusclient.Milestone{"p1": nil}}
	for i := range 150 {
		id := fmt.Sprintf("%03d", i)
		fake.projects = append(fake.projects, statusclient.Project{ID: "p" + id})
		fake.milestones["p1"] = append(fake.milestones["p1"], statusclient.Milestone{ID: "m" + id, ProjectID: "p1"})
		fake.deliverables = append(fake.deliverables, statusclient.Deliverable{ID: "d" + id, ProjectID: "p1"})
	}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	c := statusclient.New(srv.URL+"/v1", "k")

	n := 0
	for p, err := range c.AllProjects(ctx, statusclient.ProjectListOptions{}) {
		is.NoErr(err)
		is.Equal(p.ID, fake.projects[n].ID)
		n++
	}
	is.Equal(n, 150) // every project
	n = 0
	for m, err := range c.AllMilestones(ctx, "p1", statusclient.MilestoneListOptions{}) {
		is.NoErr(err)
		is.Equal(m.ID, fake.milestones["p1"][n].ID)
		n++
	}
	is.Equal(n, 150) // every milestone
	n = 0
	for d, err := range c.AllDeliverables(ctx, statusclient.DeliverableListOptions{ProjectID: "p1"}) {
		is.NoErr(err)
		is.Equal(d.ID, fake.deliverables[n].ID)
		n++
	}
	is.Equal(n, 150)                    // every deliverable
	is.Equal(len(fake.requestLog()), 6) // two pages of 100 each
}

func TestThreadIteratorsWalk(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	fake := &fakeAPI{key: "k"}
	for i := range 150 {
		id := fmt.Sprintf("%03d", i)
		fake.threads = append(fake.threads, statusclient.Thread{ID: "t" + id, ProjectID: ptr("p1"), Status: statusclient.ThreadOpen})
		for _, th := range []string{"t000", "t001"} {
			fake.messages = append(fake.messages, statusclient.Message{ID: th + "-m" + id, ThreadID: th, Attachments: []statusclient.Attachment{}})
		}
	}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	c := statusclient.New(srv.URL+"/v1", "k")

	var threads []string
	for th, err := range c.AllThreads(ctx, statusclient.ThreadListOptions{ProjectID: "p1"}) {
		is.NoErr(err)
		threads = append(threads, th.ID)
	}
	is.Equal(len(threads), 150) // every thread
	is.Equal(threads[149], "t149")
	var ofThread []string
	for m, err := range c.AllThreadMessages(ctx, "t001", statusclient.ThreadMessageListOptions{}) {
		is.NoErr(err)
		is.Equal(m.ThreadID, "t001") // only the thread's own
		ofThread = append(ofThread, m.ID)
	}
	is.Equal(len(ofThread), 150)
	var all []string
	for m, err := range c.AllMessages(ctx, statusclient.MessageListOptions{ProjectID: "p1"}) {
		is.NoErr(err)
		all = append(all, m.ID)
	}
	is.Equal(len(all), 300)                                                      // every message of every thread
	is.Equal(len(fake.requestLog()), 2+2+3)                                      // pages of 100 each
	is.Equal(fake.requestLog()[2], "/v1/threads/t001/messages?limit=100&page=1") // the thread's own route
}

func TestThreadRoutesOfAServerWithoutThreads(t *testing.T) {
	is := is.New(t)
	srv := httptest.NewServer(&fakeAPI{key: "k"})
	defer srv.Close()
	_, resp, err := statusclient.New(srv.URL, "k").ListThreads(context.Background(), statusclient.ThreadListOptions{})
	is.Equal(statusclient.ErrorCodeOf(err), statusclient.CodeNotFound) // as an unknown path
	is.Equal(resp.StatusCode, http.StatusNotFound)
}

func TestAllStopsWhenTheConsumerBreaks(t *testing.T) {
	is := is.New(t)
	fake := &fakeAPI{key: "k", invoices: manyInvoices(1234)}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	c := statusclient.New(srv.URL+"/v1", "k")
	n := 0
	for _, err := range c.AllInvoices(context.Background(), statusclient.InvoiceListOptions{}) {
		is.NoErr(err)
		n++
		if n == 150 {
			break
		}
	}
	is.Equal(n, 150)
	is.Equal(fake.requestLog(), []string{"/v1/invoices?limit=100&page=1", "/v1/invoices?limit=100&page=2"}) // nothing fetched after the break
}

func TestAllYieldsAnErrorOnceAndStops(t *testing.T) {
	is := is.New(t)
	items := manyInvoices(250)
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		if r.URL.Query().Get("page") == "2" {
			writeError(w, http.StatusInternalServerError, "INTERNAL", "internal error", "")
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"data": items[:100], "meta": map[string]int{"page": 1, "per_page": 100, "total": 250}})
	}))
	defer srv.Close()
	c := statusclient.New(srv.URL, "k")
	var errs []error
	n := 0
	for inv, err := range c.AllInvoices(context.Background(), statusclient.InvoiceListOptions{}) {
		if err != nil {
			errs = append(errs, err)
			is.Equal(inv, statusclient.Invoice{}) // no item with the error
			continue                              // a consumer that ignores errors still ends
		}
		n++
	}
	is.Equal(n, 100)
	is.Equal(len(errs), 1) // the error once
	var apiErr *statusclient.Error
	is.True(errors.As(errs[0], &apiErr))
	is.Equal(apiErr.Code, statusclient.CodeInternal)
	is.Equal(calls, 2) // and nothing after it
}

func TestAllStopsOnAShortOrEmptyPage(t *testing.T) {
	// A server whose total overstates the items (a list that shrank during
	// the walk) must not send the iterator into an endless walk.
	tests := []struct {
		name     string
		perPage  int
		pageSize func(page int) int
		wantReqs int
		wantN    int
	}{
		{"short page", 100, func(page int) int { return map[int]int{1: 100, 2: 40}[page] }, 2, 140},
		{"empty page", 100, func(page int) int { return map[int]int{1: 100}[page] }, 2, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			items := manyInvoices(100)
			calls := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls++
				var page int
				_, _ = fmt.Sscan(r.URL.Query().Get("page"), &page)
				writeJSON(w, http.StatusOK, map[string]any{
					"data": items[:tt.pageSize(page)],
					"meta": map[string]int{"page": page, "per_page": tt.perPage, "total": 1_000_000},
				})
			}))
			defer srv.Close()
			n := 0
			for _, err := range statusclient.New(srv.URL, "k").AllInvoices(context.Background(), statusclient.InvoiceListOptions{}) {
				is.NoErr(err)
				n++
			}
			is.Equal(n, tt.wantN)
			is.Equal(calls, tt.wantReqs) // no request after a short or empty page
		})
	}
}

func TestResponseNextPage(t *testing.T) {
	tests := []struct {
		items    int
		meta     statusclient.Meta
		nextPage int
	}{
		{20, statusclient.Meta{Page: 1, PerPage: 20, Total: 45}, 2},
		{20, statusclient.Meta{Page: 2, PerPage: 20, Total: 45}, 3},
		{5, statusclient.Meta{Page: 3, PerPage: 20, Total: 45}, 0},
		{20, statusclient.Meta{Page: 2, PerPage: 20, Total: 40}, 0},
		{0, statusclient.Meta{Page: 9, PerPage: 20, Total: 40}, 0},
		{3, statusclient.Meta{}, 0}, // a body without meta is the last page
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.meta), func(t *testing.T) {
			is := is.New(t)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body := map[string]any{"data": manyInvoices(tt.items)}
				if tt.meta != (statusclient.Meta{}) {
					body["meta"] = map[string]int{"page": tt.meta.Page, "per_page": tt.meta.PerPage, "total": tt.meta.Total}
				}
				writeJSON(w, http.StatusOK, body)
			}))
			defer srv.Close()
			items, resp, err := statusclient.New(srv.URL, "k").ListInvoices(context.Background(), statusclient.InvoiceListOptions{})
			is.NoErr(err)
			is.Equal(len(items), tt.items)
			is.Equal(resp.Meta, tt.meta)
			is.Equal(resp.NextPage, tt.nextPage)
		})
	}
}

func TestAllStopsWhenThePageDoesNotMove(t *testing.T) {
	// A server that ignores ?page= and always serves page 1 must not send
	// the iterator into an endless walk.
	is := is.New(t)
	items := manyInvoices(100)
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		writeJSON(w, http.StatusOK, map[string]any{"data": items, "meta": map[string]int{"page": 1, "per_page": 100, "total": 1000}})
	}))
	defer srv.Close()
	n := 0
	for _, err := range statusclient.New(srv.URL, "k").AllInvoices(context.Background(), statusclient.InvoiceListOptions{ListOptions: statusclient.ListOptions{Page: 2}}) {
		is.NoErr(err)
		n++
	}
	is.Equal(calls, 1) // page 2 answered as page 1: no page 2 to follow
	is.Equal(n, 100)
}

func TestAllCanBeRangedAgain(t *testing.T) {
	is := is.New(t)
	fake := &fakeAPI{key: "k", invoices: manyInvoices(250)}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	seq := statusclient.New(srv.URL, "k").AllInvoices(context.Background(), statusclient.InvoiceListOptions{ListOptions: statusclient.ListOptions{Page: 2}})
	count := func() int {
		n := 0
		for _, err := range seq {
			is.NoErr(err)
			n++
		}
		return n
	}
	is.Equal(count(), 150)
	is.Equal(count(), 150) // a second range starts again at opts.Page
	is.Equal(len(fake.requestLog()), 4)
}

func TestAllSendsABadPageToTheServer(t *testing.T) {
	is := is.New(t)
	fake := &fakeAPI{key: "k", invoices: manyInvoices(10)}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	n := 0
	for _, err := range statusclient.New(srv.URL, "k").AllInvoices(context.Background(), statusclient.InvoiceListOptions{ListOptions: statusclient.ListOptions{Page: -1}}) {
		is.Equal(statusclient.ErrorCodeOf(err), statusclient.CodeInvalidParameter) // refused, not quietly walked from page 1
		n++
	}
	is.Equal(n, 1)
}
