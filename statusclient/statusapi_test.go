package statusclient_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/files"
	"github.com/clientstatus/clientstatus/internal/test/apitest"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/statusclient"
	"github.com/clientstatus/clientstatus/store"
)

// The tests in this file run the client against the real handler,
// statusapi.New on the in-memory store, key store and limiter, through
// httptest: what the client decodes is what the server really sends.

// realAPI is a running handler, mounted under /api, and what it was built
// on (internal/test/apitest): the store and the handler date things by the
// harness's clock, now.
type realAPI struct {
	*apitest.API
	srv      *httptest.Server
	st       *memstore.Store
	keys     *auth.Keys
	files    *files.Memory
	requests atomic.Int64
	now      time.Time
}

// newRealAPI starts the handler with the given limiter options.
func newRealAPI(t *testing.T, limOpts ...ratelimit.Option) *realAPI {
	t.Helper()
	api := apitest.New(t, apitest.WithLimiterOptions(limOpts...))
	a := &realAPI{API: api, st: api.Store, keys: api.Keys, files: api.Files, now: api.Clock.Now()}
	a.srv = api.Server("/api", func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			a.requests.Add(1)
			h.ServeHTTP(w, r)
		})
	})
	return a
}

// org puts an organization on plan, able to use the API, and returns a
// client with a fresh key of it.
func (a *realAPI) org(t *testing.T, id string, plan store.Plan, opts ...statusclient.Option) *statusclient.Client {
	t.Helper()
	ctx := context.Background()
	must(t, a.st.PutOrganization(ctx, store.Organization{ID: id, Name: id, Plan: plan, RetainerActive: true, APIEnabled: true}))
	key, _, err := a.keys.Mint(ctx, id, "test", nil)
	must(t, err)
	return statusclient.New(a.srv.URL+"/api/v1", key, opts...)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// seedInvoices puts n invoices of org, with ties on IssuedAt, a third of
// them retainer invoices, and returns their ids in the contract's order.
func seedInvoices(t *testing.T, st store.Writer, org string, n int) []string {
	t.Helper()
	must(t, st.PutProject(context.Background(), store.Project{ID: "p1", OrgID: org, Name: "Site", Status: store.ProjectInProgress}))
	base := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	var all []store.Invoice
	for i := range n {
		inv := store.Invoice{
			ID:        fmt.Sprintf("%s_inv_%04d", org, (i*7919)%n), // not inserted in order
			OrgID:     org,
			Number:    fmt.Sprintf("INV-%04d", i),
			Status:    store.InvoiceStatuses[i%4],
			Currency:  "EUR",
			Total:     int64(10000 + i),
			AmountDue: int64(i % 3 * 5000),
			IssuedAt:  base.Add(-time.Duration(i/5) * 24 * time.Hour), // five a day
			DueAt:     base.Add(30 * 24 * time.Hour),
		}
		if i%3 != 0 {
			pid := "p1"
			inv.ProjectID = &pid
		}
		must(t, st.PutInvoice(context.Background(), inv))
		all = append(all, inv)
	}
	slices.SortFunc(all, func(a, b store.Invoice) int {
		return cmp.Or(b.IssuedAt.Compare(a.IssuedAt), cmp.Compare(a.ID, b.ID))
	})
	ids := make([]string, len(all))
	for i, inv := range all {
		ids[i] = inv.ID
	}
	return ids
}

func TestRealHandlerWalksEveryInvoiceExactlyOnce(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	a := newRealAPI(t)
	c := a.org(t, "org_e", store.PlanEnterprise)
	_ = a.org(t, "org_other", store.PlanEnterprise)
	want := seedInvoices(t, a.st, "org_e", 1000)
	_ = seedInvoices(t, a.st, "org_other", 30) // never seen by org_e

	var got []string
	for inv, err := range c.AllInvoices(ctx, statusclient.InvoiceListOptions{}) {
		is.NoErr(err)
		got = append(got, inv.ID)
	}
	is.Equal(len(got), 1000)               // every invoice of the organization
	is.Equal(got, want)                    // each once, in the contract's order
	is.Equal(a.requests.Load(), int64(10)) // ten pages of 100, no request past the end

	var open []string
	for inv, err := range c.AllInvoices(ctx, statusclient.InvoiceListOptions{ListOptions: statusclient.ListOptions{Limit: 33}, Status: statusclient.InvoiceOpen}) {
		is.NoErr(err)
		is.Equal(inv.Status, statusclient.InvoiceOpen) // the filter is applied
		open = append(open, inv.ID)
	}
	is.Equal(len(open), 250)
	is.Equal(len(slices.Compact(slices.Clone(open))), 250) // no duplicate across pages
}

func TestRealHandlerFields(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	a := newRealAPI(t)
	c := a.org(t, "org_a", store.PlanGrowth)
	started := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	due := time.Date(2026, 6, 30, 17, 0, 0, 0, time.UTC)
	done := time.Date(2026, 1, 30, 16, 0, 0, 0, time.UTC)
	paid := time.Date(2026, 2, 10, 12, 0, 0, 0, time.UTC)
	pid := "p1"
	fileName, contentType, size := "mockups.pdf", "application/pdf", int64(11)
	must(t, a.st.PutProject(ctx, store.Project{ID: "p1", OrgID: "org_a", Name: "Site", Status: store.ProjectInProgress, StartedAt: &started, DueAt: &due, UpdatedAt: started}))
	must(t, a.st.PutProject(ctx, store.Project{ID: "p/2 ü", OrgID: "org_a", Name: "Retainer", Status: store.ProjectPlanned, UpdatedAt: started}))
	must(t, a.st.PutMilestone(ctx, store.Milestone{ID: "m1", OrgID: "org_a", ProjectID: "p1", Name: "Design", Status: store.MilestoneCompleted, DueAt: due, CompletedAt: &done}))
	must(t, a.st.PutMilestone(ctx, store.Milestone{ID: "m2", OrgID: "org_a", ProjectID: "p1", Name: "Build", Status: store.MilestonePending, DueAt: due}))
	must(t, a.st.PutDeliverable(ctx, store.Deliverable{ID: "d1", OrgID: "org_a", ProjectID: "p1", Name: "Mockups", Status: store.DeliverableApproved,
		FileName: &fileName, ContentType: &contentType, SizeBytes: &size, FileKey: "org_a/d1.pdf", CreatedAt: done, UpdatedAt: done}))
	must(t, a.st.PutDeliverable(ctx, store.Deliverable{ID: "d2", OrgID: "org_a", ProjectID: "p1", Name: "Copy", Status: store.DeliverablePending, CreatedAt: started, UpdatedAt: started}))
	must(t, a.st.PutInvoice(ctx, store.Invoice{ID: "i1", OrgID: "org_a", Number: "INV-1", ProjectID: &pid, Status: store.InvoicePaid, Currency: "EUR", Total: 123456, IssuedAt: started, DueAt: due, PaidAt: &paid}))
	must(t, a.st.PutInvoice(ctx, store.Invoice{ID: "i2", OrgID: "org_a", Number: "INV-2", Status: store.InvoiceOpen, Currency: "USD", Total: 500, AmountDue: 500, IssuedAt: done, DueAt: due}))
	a.files.Put("org_a/d1.pdf", []byte("PDF content"))

	projects, resp, err := c.ListProjects(ctx, statusclient.ProjectListOptions{})
	is.NoErr(err)
	is.Equal(resp.Meta, statusclient.Meta{Page: 1, PerPage: 20, Total: 2})
	is.Equal(resp.NextPage, 0)
	is.Equal(projects, []statusclient.Project{
		{ID: "p1", Name: "Site", Status: statusclient.ProjectInProgress, StartedAt: &started, DueAt: &due, UpdatedAt: a.now},
		{ID: "p/2 ü", Name: "Retainer", Status: statusclient.ProjectPlanned, UpdatedAt: a.now}, // not started: last
	})

	p, _, err := c.GetProject(ctx, "p/2 ü")
	is.NoErr(err) // an id with a slash, a space and a non-ASCII letter reaches the server whole
	is.Equal(p.Name, "Retainer")

	milestones, _, err := c.ListMilestones(ctx, "p1", statusclient.MilestoneListOptions{})
	is.NoErr(err)
	is.Equal(milestones, []statusclient.Milestone{
		{ID: "m1", ProjectID: "p1", Name: "Design", Status: statusclient.MilestoneCompleted, DueAt: due, CompletedAt: &done, UpdatedAt: a.now},
		{ID: "m2", ProjectID: "p1", Name: "Build", Status: statusclient.MilestonePending, DueAt: due, UpdatedAt: a.now},
	})

	deliverables, _, err := c.ListDeliverables(ctx, statusclient.DeliverableListOptions{ProjectID: "p1"})
	is.NoErr(err)
	is.Equal(deliverables, []statusclient.Deliverable{
		{ID: "d1", ProjectID: "p1", Name: "Mockups", Status: statusclient.DeliverableApproved, FileName: &fileName, ContentType: &contentType, SizeBytes: &size, CreatedAt: done, UpdatedAt: a.now},
		{ID: "d2", ProjectID: "p1", Name: "Copy", Status: statusclient.DeliverablePending, CreatedAt: started, UpdatedAt: a.now},
	})

	invoices, _, err := c.ListInvoices(ctx, statusclient.InvoiceListOptions{})
	is.NoErr(err)
	is.Equal(invoices, []statusclient.Invoice{ // issued last, listed first
		{ID: "i2", Number: "INV-2", Status: statusclient.InvoiceOpen, Currency: "USD", Total: 500, AmountDue: 500, IssuedAt: done, DueAt: due, UpdatedAt: a.now},
		{ID: "i1", Number: "INV-1", ProjectID: &pid, Status: statusclient.InvoicePaid, Currency: "EUR", Total: 123456, IssuedAt: started, DueAt: due, PaidAt: &paid, UpdatedAt: a.now},
	})

	link, _, err := c.DownloadDeliverable(ctx, "d1")
	is.NoErr(err)
	is.Equal(link.ExpiresAt, a.now.Add(15*time.Minute)) // valid for 15 minutes
	res, err := http.Get(link.URL)                      // no API key needed
	is.NoErr(err)
	body, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	is.Equal(res.StatusCode, http.StatusOK)
	is.Equal(string(body), "PDF content")

	_, _, err = c.DownloadDeliverable(ctx, "d2")
	var apiErr *statusclient.Error
	is.True(errors.As(err, &apiErr))
	is.Equal(apiErr.StatusCode, http.StatusConflict)
	is.Equal(apiErr.Code, statusclient.CodeFileNotAvailable) // no file attached yet
}

func TestRealHandlerErrors(t *testing.T) {
	ctx := context.Background()
	a := newRealAPI(t)
	c := a.org(t, "org_a", store.PlanGrowth)
	other := a.org(t, "org_b", store.PlanGrowth)
	must(t, a.st.PutProject(ctx, store.Project{ID: "p_b", OrgID: "org_b", Name: "B's", Status: store.ProjectPlanned}))
	_, _, err := other.GetProject(ctx, "p_b")
	must(t, err)
	must(t, a.st.PutOrganization(ctx, store.Organization{ID: "org_b", Name: "org_b", Plan: store.PlanGrowth, RetainerActive: false, APIEnabled: true}))

	tests := []struct {
		name   string
		call   func() error
		status int
		code   statusclient.ErrorCode
		param  string
	}{
		{"unknown key", func() error {
			_, _, err := statusclient.New(a.srv.URL+"/api/v1", "csk_not_a_key").ListProjects(ctx, statusclient.ProjectListOptions{})
			return err
		}, 401, statusclient.CodeUnauthorized, ""},
		{"retainer ended", func() error {
			_, _, err := other.ListProjects(ctx, statusclient.ProjectListOptions{})
			return err
		}, 403, statusclient.CodeForbidden, ""},
		{"another organization's project", func() error {
			_, _, err := c.GetProject(ctx, "p_b")
			return err
		}, 404, statusclient.CodeNotFound, ""},
		{"milestones of an unknown project", func() error {
			_, _, err := c.ListMilestones(ctx, "nope", statusclient.MilestoneListOptions{})
			return err
		}, 404, statusclient.CodeNotFound, ""},
		{"limit over 100", func() error {
			_, _, err := c.ListInvoices(ctx, statusclient.InvoiceListOptions{ListOptions: statusclient.ListOptions{Limit: 101}})
			return err
		}, 400, statusclient.CodeInvalidParameter, "limit"},
		{"status not of the resource", func() error {
			_, _, err := c.ListInvoices(ctx, statusclient.InvoiceListOptions{Status: "PAID"})
			return err
		}, 400, statusclient.CodeInvalidParameter, "status"},
		{"unknown deliverable", func() error {
			_, _, err := c.DownloadDeliverable(ctx, "nope")
			return err
		}, 404, statusclient.CodeNotFound, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			err := tt.call()
			var apiErr *statusclient.Error
			is.True(errors.As(err, &apiErr)) // an *Error
			is.Equal(apiErr.StatusCode, tt.status)
			is.Equal(apiErr.Code, tt.code)
			is.Equal(apiErr.Param, tt.param)
			is.True(apiErr.Message != "")
			is.True(apiErr.RequestID != "") // to quote to the operator
		})
	}
}

func TestRealHandlerRateLimitRetry(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	a := newRealAPI(t, ratelimit.WithRate(store.PlanStarter, ratelimit.Rate{Limit: 2, Period: time.Minute}))
	rec := &recorder{}
	c := a.org(t, "org_s", store.PlanStarter, statusclient.WithRetry(3, 2*time.Minute), statusclient.WithSleep(rec.sleep))

	for range 2 {
		_, _, err := c.ListProjects(ctx, statusclient.ProjectListOptions{})
		is.NoErr(err) // within the budget
	}
	before := a.requests.Load()
	_, _, err := c.ListProjects(ctx, statusclient.ProjectListOptions{})
	var apiErr *statusclient.Error
	is.True(errors.As(err, &apiErr))
	is.Equal(apiErr.StatusCode, http.StatusTooManyRequests)
	is.Equal(apiErr.Code, statusclient.CodeRateLimited)
	is.True(apiErr.RequestID != "")
	is.True(apiErr.RetryAfter > 0 && apiErr.RetryAfter <= 61*time.Second) // the server's Retry-After: at most the window, rounded up
	is.Equal(a.requests.Load()-before, int64(3))                          // three attempts, no more
	is.Equal(len(rec.waits), 2)                                           // a wait before each retry
	for _, w := range rec.waits {
		is.True(w > 0 && w <= 61*time.Second) // each as long as Retry-After said
	}

	short := a.org(t, "org_s2", store.PlanStarter, statusclient.WithRetry(3, time.Millisecond), statusclient.WithSleep(rec.sleep))
	for range 2 {
		_, _, err := short.ListProjects(ctx, statusclient.ProjectListOptions{})
		is.NoErr(err)
	}
	before = a.requests.Load()
	_, _, err = short.ListProjects(ctx, statusclient.ProjectListOptions{})
	is.True(errors.As(err, &apiErr))
	is.Equal(apiErr.Code, statusclient.CodeRateLimited)
	is.Equal(a.requests.Load()-before, int64(1)) // Retry-After beyond maxWait: no retry
}

// TestRealHandlerPollingUnchangedListIsFree polls an unchanged list with
// the ETag of the first answer, more often than a starter budget allows:
// every poll is answered 304 (ErrNotModified) and none spends the budget.
// A change is then seen at once.
func TestRealHandlerPollingUnchangedListIsFree(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	a := newRealAPI(t)
	c := a.org(t, "org_a", store.PlanStarter, statusclient.WithRetry(1, time.Second))
	seedInvoices(t, a.st, "org_a", 30)

	firstItems, first, err := c.ListInvoices(ctx, statusclient.InvoiceListOptions{Status: statusclient.InvoiceOpen})
	is.NoErr(err)
	is.True(first.ETag != "") // the handler tags the page
	for range 100 {
		_, _, err := c.ListInvoices(ctx, statusclient.InvoiceListOptions{Status: statusclient.InvoiceOpen, IfNoneMatch: first.ETag})
		is.True(errors.Is(err, statusclient.ErrNotModified)) // unchanged, and never refused: 100 polls > 60 a minute
	}

	pid := "p1"
	must(t, a.st.PutInvoice(ctx, store.Invoice{ID: "new", OrgID: "org_a", Number: "INV-NEW", ProjectID: &pid,
		Status: store.InvoiceOpen, Currency: "EUR", Total: 1, AmountDue: 1,
		IssuedAt: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), DueAt: time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)}))
	changedItems, changed, err := c.ListInvoices(ctx, statusclient.InvoiceListOptions{Status: statusclient.InvoiceOpen, IfNoneMatch: first.ETag})
	is.NoErr(err)                       // a change is served
	is.Equal(changedItems[0].ID, "new") // newest first
	is.Equal(len(changedItems), len(firstItems)+1)
	is.True(changed.ETag != first.ETag) // with a new tag
	is.Equal(changed.Meta.Total, first.Meta.Total+1)
}

func TestRealHandlerRateLimit(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	a := newRealAPI(t)
	c := a.org(t, "org_s", store.PlanStarter)
	_, _, err := c.ListProjects(ctx, statusclient.ProjectListOptions{})
	is.NoErr(err)
	u, resp, err := c.RateLimit(ctx)
	is.NoErr(err)
	is.Equal(u.Plan, "starter")
	is.True(u.Limit != nil && *u.Limit == 60)
	is.True(u.Remaining != nil && *u.Remaining == 59) // what the list left
	is.True(u.ResetAt != nil && u.ResetAt.After(time.Now()))
	is.True(!resp.Rate.Limited) // reading the budget is not rate limited
	u, _, err = c.RateLimit(ctx)
	is.NoErr(err)
	is.Equal(*u.Remaining, 59) // and spends nothing

	e := a.org(t, "org_e", store.PlanEnterprise)
	u, _, err = e.RateLimit(ctx)
	is.NoErr(err)
	is.Equal(u, statusclient.Usage{Plan: "enterprise"}) // no figures on an unlimited plan
}

func TestRealHandlerInsufficientScope(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	a := newRealAPI(t)
	a.org(t, "org_a", store.PlanGrowth)
	key, _, err := a.keys.MintRestricted(ctx, "org_a", "invoices", nil, auth.Restriction{Scopes: []auth.Scope{auth.ScopeInvoices}})
	is.NoErr(err)
	c := statusclient.New(a.srv.URL+"/api/v1", key)
	_, _, err = c.ListInvoices(ctx, statusclient.InvoiceListOptions{})
	is.NoErr(err) // its scope
	_, _, err = c.ListProjects(ctx, statusclient.ProjectListOptions{})
	is.Equal(statusclient.ErrorCodeOf(err), statusclient.CodeInsufficientScope) // not its scope
	var apiErr *statusclient.Error
	is.True(errors.As(err, &apiErr))
	is.Equal(apiErr.StatusCode, http.StatusForbidden)
	is.Equal(apiErr.Response.Header.Get("WWW-Authenticate"), `Bearer error="insufficient_scope", scope="projects:read"`)
}
