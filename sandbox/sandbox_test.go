package sandbox_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/internal/test/apitest"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/sandbox"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/store"
)

var (
	acme   = store.Organization{ID: "org_acme", Name: "Acme", Plan: store.PlanStarter, RetainerActive: true, APIEnabled: true}
	moment = time.Date(2026, 10, 5, 9, 0, 0, 0, time.UTC)
	clock  = func() time.Time { return moment }
)

// newWorld returns a store with a live organization with one project and
// one invoice of its own, its sandbox seeded, a live and a sandbox key,
// and a GET on the API.
func newWorld(t *testing.T) (*memstore.Store, func(key, path string) *httptest.ResponseRecorder, string, string) {
	t.Helper()
	st := memstore.New()
	get, live, sbx := newWorldOn(t, st, auth.NewMemoryKeyStore(st))
	return st, get, live, sbx
}

// newWorldOn is newWorld on any store and its key store.
func newWorldOn(t *testing.T, st sandbox.Store, ks auth.KeyStore) (func(key, path string) *httptest.ResponseRecorder, string, string) {
	t.Helper()
	is := is.New(t)
	ctx := context.Background()
	is.NoErr(st.PutOrganization(ctx, acme))
	is.NoErr(st.PutProject(ctx, store.Project{ID: "prj_live", OrgID: acme.ID, Name: "Live project", Status: store.ProjectInProgress}))
	is.NoErr(st.PutInvoice(ctx, store.Invoice{ID: "inv_live", OrgID: acme.ID, Number: "L-1", Status: store.InvoiceOpen, Currency: "USD", Total: 1, AmountDue: 1, IssuedAt: moment, DueAt: moment}))
	is.NoErr(sandbox.Seed(ctx, st, acme, sandbox.WithClock(clock)))
	keys := auth.NewKeys(ks)
	t.Cleanup(func() { keys.Close() })
	live, _, err := keys.Mint(ctx, acme.ID, "live", nil)
	is.NoErr(err)
	sbx, rec, err := keys.MintSandbox(ctx, acme.ID, "sandbox", nil)
	is.NoErr(err)
	is.True(rec.Sandbox)
	api := apitest.Handler(st, keys, nil, statusapi.WithFiles(sandbox.Files()))
	get := func(key, path string) *httptest.ResponseRecorder {
		res := httptest.NewRecorder()
		api.ServeHTTP(res, apitest.NewRequest("GET", path, key))
		return res
	}
	return get, live, sbx
}

// ids returns the ids of a list answer's data.
func ids(t *testing.T, res *httptest.ResponseRecorder) []string {
	t.Helper()
	var body struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(res.Body.Bytes(), &body); err != nil {
		t.Fatalf("%s: %v", res.Body, err)
	}
	var out []string
	for _, d := range body.Data {
		out = append(out, d.ID)
	}
	slices.Sort(out)
	return out
}

func TestSandboxAndLiveNeverMix(t *testing.T) {
	_, get, live, sbx := newWorld(t)
	checkNeverMix(t, get, live, sbx)
}

// checkNeverMix checks, through the API, that a sandbox key sees the
// seeded sandbox only, and a live key the live data only.
func checkNeverMix(t *testing.T, get func(key, path string) *httptest.ResponseRecorder, live, sbx string) {
	t.Helper()
	is := is.New(t)

	res := get(sbx, "/v1/projects")
	is.Equal(res.Code, 200)
	is.Equal(res.Header().Get("X-Sandbox"), "true")
	is.Equal(ids(t, res), []string{"prj_sandbox_app", "prj_sandbox_website"}) // the sandbox's projects only

	res = get(live, "/v1/projects")
	is.Equal(res.Code, 200)
	is.Equal(res.Header().Get("X-Sandbox"), "") // no header for a live key
	is.Equal(ids(t, res), []string{"prj_live"})

	is.Equal(ids(t, get(sbx, "/v1/invoices")), []string{"inv_sandbox_0001", "inv_sandbox_0002", "inv_sandbox_0003", "inv_sandbox_0004"})
	is.Equal(ids(t, get(live, "/v1/invoices")), []string{"inv_live"})
	is.Equal(ids(t, get(live, "/v1/deliverables")), []string(nil))
	is.Equal(len(ids(t, get(sbx, "/v1/deliverables"))), 4)
	is.Equal(ids(t, get(live, "/v1/threads")), []string(nil))
	is.Equal(len(ids(t, get(sbx, "/v1/threads"))), 2)

	// Single items: neither side sees the other's by id.
	is.Equal(get(sbx, "/v1/projects/prj_live").Code, 404)
	is.Equal(get(sbx, "/v1/invoices/inv_live").Code, 404)
	is.Equal(get(live, "/v1/projects/prj_sandbox_website").Code, 404)
	is.Equal(get(live, "/v1/invoices/inv_sandbox_0002").Code, 404)
	is.Equal(get(live, "/v1/deliverables/dlv_sandbox_mockup").Code, 404)
	res = get(sbx, "/v1/deliverables/dlv_sandbox_mockup")
	is.Equal(res.Code, 200)
	is.Equal(res.Header().Get("X-Sandbox"), "true")
	// An error to a sandbox key says it too.
	is.Equal(get(sbx, "/v1/projects/nope").Header().Get("X-Sandbox"), "true")

	// Events: the sandbox's writes are the sandbox key's events only.
	objects := func(res *httptest.ResponseRecorder) []string {
		t.Helper()
		is.Equal(res.Code, 200)
		var body struct {
			Data []struct {
				Data struct {
					ID string `json:"id"`
				} `json:"data"`
			} `json:"data"`
		}
		is.NoErr(json.Unmarshal(res.Body.Bytes(), &body))
		var out []string
		for _, e := range body.Data {
			out = append(out, e.Data.ID)
		}
		return out
	}
	sandboxEvents := objects(get(sbx, "/v1/events?limit=100"))
	is.True(len(sandboxEvents) > 0) // the seeding's writes
	for _, id := range sandboxEvents {
		is.True(strings.Contains(id, "_sandbox")) // only sandbox items
	}
	for _, id := range objects(get(live, "/v1/events?limit=100")) {
		is.True(!strings.Contains(id, "_sandbox")) // never a sandbox item
	}

	// The demo files are served through a signed link, as live ones.
	res = get(sbx, "/v1/deliverables/dlv_sandbox_mockup/download")
	is.Equal(res.Code, 200)
	var link struct {
		Data struct {
			URL string `json:"url"`
		} `json:"data"`
	}
	is.NoErr(json.Unmarshal(res.Body.Bytes(), &link))
	is.True(link.Data.URL != "")
	res = get(sbx, "/v1/invoices/inv_sandbox_0002/document")
	is.Equal(res.Code, 200)
	is.Equal(get(sbx, "/v1/invoices/inv_sandbox_0003/document").Code, 409) // no document
}

func TestSimulatorMovesTheSandboxDeterministically(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	run := func() ([]store.Invoice, []store.Deliverable, []store.Milestone, []store.Message) {
		st, _, _, _ := newWorld(t)
		sim := sandbox.New(st, sandbox.WithSeed(42), sandbox.WithClock(clock), sandbox.WithChanges(3))
		sim.Add(acme.ID)
		for range 4 {
			is.NoErr(sim.Step(ctx))
		}
		org := auth.SandboxOrgID(acme.ID)
		all := store.PageRequest{Page: 1, Limit: 100}
		inv, err := st.ListInvoices(ctx, org, store.InvoiceQuery{PageRequest: all})
		is.NoErr(err)
		dlv, err := st.ListDeliverables(ctx, org, store.DeliverableQuery{PageRequest: all})
		is.NoErr(err)
		ms, err := st.ListMilestones(ctx, org, "prj_sandbox_website", store.MilestoneQuery{PageRequest: all})
		is.NoErr(err)
		msg, err := st.ListMessages(ctx, org, store.MessageQuery{PageRequest: all})
		is.NoErr(err)
		// Live data is untouched.
		live, err := st.ListInvoices(ctx, acme.ID, store.InvoiceQuery{PageRequest: all})
		is.NoErr(err)
		is.Equal(len(live.Items), 1)
		is.Equal(live.Items[0].Status, store.InvoiceOpen)
		return inv.Items, dlv.Items, ms.Items, msg.Items
	}
	inv1, dlv1, ms1, msg1 := run()
	inv2, dlv2, ms2, msg2 := run()
	is.Equal(inv1, inv2) // same seed, same clock: same changes
	is.Equal(dlv1, dlv2)
	is.Equal(ms1, ms2)
	is.Equal(msg1, msg2)

	// Twelve changes moved something away from the seeded statuses.
	seeded := map[string]string{
		"inv_sandbox_0001": "paid", "inv_sandbox_0002": "open", "inv_sandbox_0003": "open", "inv_sandbox_0004": "draft",
		"dlv_sandbox_brand": "approved", "dlv_sandbox_mockup": "in_review", "dlv_sandbox_wireframes": "rejected", "dlv_sandbox_copy": "pending",
		"ms_sandbox_discovery": "completed", "ms_sandbox_design": "in_progress", "ms_sandbox_build": "pending", "ms_sandbox_launch": "pending",
	}
	changed := 0
	for _, i := range inv1 {
		if s, ok := seeded[i.ID]; !ok || s != string(i.Status) {
			changed++
		}
		if i.Status == store.InvoicePaid {
			is.True(i.PaidAt != nil)
		}
	}
	for _, d := range dlv1 {
		if s, ok := seeded[d.ID]; !ok || s != string(d.Status) {
			changed++
		}
	}
	for _, m := range ms1 {
		if s, ok := seeded[m.ID]; !ok || s != string(m.Status) {
			changed++
		}
	}
	changed += len(msg1) - 3
	is.True(changed >= 6) // most of the twelve changes show
}

func TestSeedKeepsTheSimulatorsWork(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	st, _, _, _ := newWorld(t)
	org := auth.SandboxOrgID(acme.ID)
	sim := sandbox.New(st, sandbox.WithSeed(1), sandbox.WithClock(clock), sandbox.WithChanges(5))
	sim.Add(acme.ID)
	is.NoErr(sim.Step(ctx))
	before, err := st.ListInvoices(ctx, org, store.InvoiceQuery{PageRequest: store.PageRequest{Page: 1, Limit: 100}})
	is.NoErr(err)
	growth := acme
	growth.Plan = store.PlanGrowth
	is.NoErr(sandbox.Seed(ctx, st, growth, sandbox.WithClock(clock)))
	after, err := st.ListInvoices(ctx, org, store.InvoiceQuery{PageRequest: store.PageRequest{Page: 1, Limit: 100}})
	is.NoErr(err)
	is.Equal(before.Items, after.Items) // the demo data stays as the simulator left it
	is.Equal(before.Total, after.Total)
	o, err := st.Organization(ctx, org)
	is.NoErr(err)
	is.Equal(o.Plan, store.PlanGrowth)       // the organization follows the live one
	is.True(sandbox.Seed(ctx, st, o) != nil) // a sandbox has no sandbox
}

func TestRunStepsEveryInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		is := is.New(t)
		ctx := context.Background()
		st, _, _, _ := newWorld(t)
		org := auth.SandboxOrgID(acme.ID)
		sim := sandbox.New(st, sandbox.WithSeed(7), sandbox.WithInterval(time.Minute))
		sim.Add(acme.ID)
		count := func() int {
			p, err := st.ListMessages(ctx, org, store.MessageQuery{PageRequest: store.PageRequest{Page: 1, Limit: 100}})
			is.NoErr(err)
			return p.Total
		}
		version := func() []store.Invoice {
			p, err := st.ListInvoices(ctx, org, store.InvoiceQuery{PageRequest: store.PageRequest{Page: 1, Limit: 100}})
			is.NoErr(err)
			return p.Items
		}
		start := version()
		done := make(chan error)
		runCtx, cancel := context.WithCancel(ctx)
		go func() { done <- sim.Run(runCtx) }()
		time.Sleep(59 * time.Second) // fake time (synctest)
		synctest.Wait()
		is.Equal(version(), start) // nothing before the interval
		for range 10 {
			time.Sleep(time.Minute) // fake time (synctest)
			synctest.Wait()
		}
		cancel()
		is.NoErr(<-done)
		is.True(!slices.EqualFunc(version(), start, func(a, b store.Invoice) bool { return a.Status == b.Status }) || count() > 3)
	})
}
