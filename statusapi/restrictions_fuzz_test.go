package statusapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/internal/test/apitest"
	"github.com/clientstatus/clientstatus/internal/test/testenv"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/store"
)

// The property of restricted keys, over random data: a key restricted to
// some projects (and some scopes) never sees an item outside them, in a
// list, a total, a get, a download link or the deletion records, on any
// route; and sees every item inside them. Each world is generated from a
// seed: projects, milestones, deliverables (with and without files) and
// invoices (some retainer) of the caller's organization, a second
// organization whose ids collide with it, then random deletes, one of a
// whole project among them; the key's restriction is a random set of ids
// (live, deleted or unknown) and a random set of scopes, or none.
//
// FuzzRestrictedKey explores seeds on the in-memory store (go test -run
// '^$' -fuzz FuzzRestrictedKey ./statusapi); TestRestrictedKeyProperty
// runs fixed seeds on memory and on PostgreSQL.

// FuzzRestrictedKey checks the property for any seed, on memstore.Store.
func FuzzRestrictedKey(f *testing.F) {
	for seed := range uint64(8) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		checkRestrictedWorld(t, memoryWorld(t), seed)
	})
}

// TestRestrictedKeyProperty checks the property on the same 30 seeds in
// memory and on PostgreSQL (bunstore, in a schema of its own); the fuzz
// target explores further.
func TestRestrictedKeyProperty(t *testing.T) {
	const seeds = 30
	t.Run("memory", func(t *testing.T) {
		t.Parallel()
		for seed := range uint64(seeds) {
			checkRestrictedWorld(t, memoryWorld(t), 1000+seed)
		}
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		open := postgresWorlds(t)
		for seed := range uint64(seeds) {
			checkRestrictedWorld(t, open(), 1000+seed)
		}
	})
}

// world is a store to generate a world into: its organizations are org
// and other; deletions made after beforeDeletes returns are at or after
// since.
type world struct {
	st            store.Store
	w             store.Writer
	d             store.Deleter
	org, other    string
	since         time.Time
	beforeDeletes func()
}

// memoryWorld is a fresh memstore.Store on a clock of the test's: items are
// put at t0 and deleted from a second later.
func memoryWorld(t *testing.T) world {
	clock := testenv.NewClock(t0)
	m := memstore.New(memstore.WithClock(clock.Now))
	return world{st: m, w: m, d: m, org: "org_a", other: "org_b", since: t0.Add(time.Second),
		beforeDeletes: func() { clock.Set(t0.Add(time.Second)) }}
}

// postgresWorlds returns a function that gives each world organizations of
// its own in one migrated schema, dropped when t ends, on a store whose
// clock the test moves: items are put after the migration, and deleted at
// the first whole second after it, since.
func postgresWorlds(t *testing.T) func() world {
	db, _, schema := migratedSchema(t, "statusapi_fuzz")
	clock := testenv.NewClock(time.Now()) // after the migration, which dates the start of deletion records
	st := bunstore.New(db, schema, bunstore.WithClock(clock.Now))
	since := clock.Now().Truncate(time.Second).Add(time.Second)
	n := 0
	return func() world {
		n++
		return world{st: st, w: st, d: st, org: fmt.Sprintf("org_a%d", n), other: fmt.Sprintf("org_b%d", n),
			since: since, beforeDeletes: func() { clock.Set(since) }}
	}
}

// truth is what the caller's organization holds once the world is made,
// and what was deleted, each item with its project ("" for none).
type truth struct {
	projects     map[string]bool   // live project ids
	gone         []string          // deleted project ids
	milestones   map[string]string // id to project
	deliverables map[string]string
	withFile     map[string]bool
	invoices     map[string]string // "" for a retainer invoice
	deletions    map[string]string // "kind id" to project
}

// generate puts a random world of org into w from r, with ids that
// another organization may share, deletes some of it and returns what
// org holds.
func generate(t *testing.T, wd world, org string, r *rand.Rand, deletes bool) truth {
	t.Helper()
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	tr := truth{projects: map[string]bool{}, milestones: map[string]string{}, deliverables: map[string]string{},
		withFile: map[string]bool{}, invoices: map[string]string{}, deletions: map[string]string{}}
	must(wd.w.PutOrganization(ctx, store.Organization{ID: org, Name: org, Plan: store.PlanGrowth, RetainerActive: true, APIEnabled: true}))
	var projects []string
	for i := range 1 + r.IntN(5) {
		id := fmt.Sprintf("p%d", i)
		projects = append(projects, id)
		tr.projects[id] = true
		must(wd.w.PutProject(ctx, store.Project{ID: id, OrgID: org, Name: id, Status: store.ProjectStatuses[r.IntN(5)],
			StartedAt: ptr(t0.AddDate(0, 0, -r.IntN(3)))}))
	}
	pick := func() string { return projects[r.IntN(len(projects))] }
	day := func() time.Time { return t0.AddDate(0, 0, -r.IntN(4)) } // ties, broken by id
	for i := range r.IntN(8) {
		id, p := fmt.Sprintf("m%d", i), pick()
		tr.milestones[id] = p
		must(wd.w.PutMilestone(ctx, store.Milestone{ID: id, OrgID: org, ProjectID: p, Name: id, Status: store.MilestonePending, DueAt: day()}))
	}
	for i := range r.IntN(10) {
		id, p := fmt.Sprintf("d%d", i), pick()
		d := store.Deliverable{ID: id, OrgID: org, ProjectID: p, Name: id, Status: store.DeliverablePending, CreatedAt: day()}
		if r.IntN(2) == 0 {
			d.FileName, d.ContentType, d.SizeBytes, d.FileKey = ptr("f.txt"), ptr("text/plain"), ptr(int64(1)), org+"/"+id
			tr.withFile[id] = true
		}
		tr.deliverables[id] = p
		must(wd.w.PutDeliverable(ctx, d))
	}
	for i := range r.IntN(12) {
		id := fmt.Sprintf("i%d", i)
		inv := store.Invoice{ID: id, OrgID: org, Number: id, Status: store.InvoiceOpen, Currency: "EUR", IssuedAt: day(), DueAt: day()}
		tr.invoices[id] = ""
		if r.IntN(3) > 0 {
			p := pick()
			inv.ProjectID, tr.invoices[id] = &p, p
		}
		must(wd.w.PutInvoice(ctx, inv))
	}
	if !deletes {
		return tr
	}
	wd.beforeDeletes()
	record := func(kind, id, project string) { tr.deletions[kind+" "+id] = project }
	for _, id := range sortedKeys(tr.milestones) {
		if r.IntN(4) == 0 {
			must(wd.d.DeleteMilestone(ctx, org, id))
			record("milestone", id, tr.milestones[id])
			delete(tr.milestones, id)
		}
	}
	for _, id := range sortedKeys(tr.deliverables) {
		if r.IntN(4) == 0 {
			must(wd.d.DeleteDeliverable(ctx, org, id))
			record("deliverable", id, tr.deliverables[id])
			delete(tr.deliverables, id)
		}
	}
	for _, id := range sortedKeys(tr.invoices) {
		if r.IntN(4) == 0 {
			must(wd.d.DeleteInvoice(ctx, org, id))
			record("invoice", id, tr.invoices[id])
			delete(tr.invoices, id)
		}
	}
	if r.IntN(2) == 0 {
		p := pick()
		must(wd.d.DeleteProject(ctx, org, p))
		record("project", p, p)
		delete(tr.projects, p)
		tr.gone = append(tr.gone, p)
		for _, items := range []struct {
			kind  string
			items map[string]string
		}{{"milestone", tr.milestones}, {"deliverable", tr.deliverables}} {
			for id, q := range items.items {
				if q == p {
					record(items.kind, id, p)
					delete(items.items, id)
				}
			}
		}
		for id, q := range tr.invoices {
			if q == p {
				tr.invoices[id] = ""     // stays, without its project
				record("invoice", id, p) // which a key of p sees it leave
			}
		}
	}
	return tr
}

// checkRestrictedWorld generates the world of seed into wd and reads every
// route with a key restricted at random, checking what it sees against
// the world's truth.
func checkRestrictedWorld(t *testing.T, wd world, seed uint64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	tr := generate(t, wd, wd.org, r, true)
	generate(t, wd, wd.other, rand.New(rand.NewPCG(seed+1, 0x0b)), false) // the same ids, in another organization

	// The key's restriction: ids live, deleted or unknown; scopes, or none.
	var candidates []string
	candidates = append(append(append(candidates, sortedKeys(tr.projects)...), tr.gone...), "p_unknown", "p9")
	restriction := auth.Restriction{ProjectIDs: []string{}}
	for _, id := range candidates {
		if r.IntN(2) == 0 {
			restriction.ProjectIDs = append(restriction.ProjectIDs, id)
		}
	}
	if r.IntN(2) == 0 {
		restriction.Scopes = []auth.Scope{}
		for _, s := range auth.AllScopes {
			if r.IntN(3) > 0 {
				restriction.Scopes = append(restriction.Scopes, s)
			}
		}
	}
	org, err := wd.st.(store.Organizations).Organization(context.Background(), wd.org)
	if err != nil {
		t.Fatal(err)
	}
	resolver := auth.ResolverFunc(func(_ context.Context, cred string) (auth.Principal, error) {
		if cred != "restricted" {
			return auth.Principal{}, auth.ErrInvalidKey
		}
		return auth.Principal{Org: org, KeyID: "key_restricted", Restriction: restriction}, nil
	})
	h := apitest.Handler(wd.st, resolver, ratelimit.NewMemory(ratelimit.WithRate(store.PlanGrowth, ratelimit.Unlimited)))
	c := restrictedClient{t: t, h: h, limit: 1 + r.IntN(4), desc: fmt.Sprintf("seed %d, %+v", seed, restriction)}

	sees := func(project string) bool { return project != "" && slices.Contains(restriction.ProjectIDs, project) }
	visible := func(items map[string]string) []string {
		var out []string
		for id, p := range items {
			if sees(p) {
				out = append(out, id)
			}
		}
		slices.Sort(out)
		return out
	}
	projectSet := map[string]string{}
	for id := range tr.projects {
		projectSet[id] = id
	}

	// Lists and totals.
	c.list("/v1/projects", auth.ScopeProjects, restriction, visible(projectSet))
	c.list("/v1/deliverables", auth.ScopeDeliverables, restriction, visible(tr.deliverables))
	c.list("/v1/invoices", auth.ScopeInvoices, restriction, visible(tr.invoices))
	filter := candidates[r.IntN(len(candidates))]
	c.list("/v1/deliverables?projectId="+filter, auth.ScopeDeliverables, restriction,
		visible(only(tr.deliverables, filter)))
	c.list("/v1/invoices?projectId="+filter, auth.ScopeInvoices, restriction, visible(only(tr.invoices, filter)))

	// Gets, milestones and links, of live, deleted and unknown ids.
	for _, id := range candidates {
		c.item("/v1/projects/"+url.PathEscape(id), auth.ScopeProjects, restriction, tr.projects[id] && sees(id), http.StatusOK)
		var milestones []string
		if tr.projects[id] && sees(id) {
			milestones = sortedKeys(only(tr.milestones, id))
		}
		if restriction.Allows(auth.ScopeProjects) && tr.projects[id] && sees(id) {
			c.list("/v1/projects/"+url.PathEscape(id)+"/milestones", auth.ScopeProjects, restriction, milestones)
		} else {
			c.item("/v1/projects/"+url.PathEscape(id)+"/milestones", auth.ScopeProjects, restriction, false, 0)
		}
	}
	for i := range 12 {
		id := fmt.Sprintf("d%d", i)
		p, live := tr.deliverables[id]
		status := http.StatusOK
		if !tr.withFile[id] {
			status = http.StatusConflict
		}
		c.item("/v1/deliverables/"+id+"/download", auth.ScopeDeliverables, restriction, live && sees(p), status)
	}

	// Deletions: only the records of the key's projects, and of the kinds
	// its scopes read.
	kinds := map[string]auth.Scope{"project": auth.ScopeProjects, "milestone": auth.ScopeProjects,
		"deliverable": auth.ScopeDeliverables, "invoice": auth.ScopeInvoices}
	var want []string
	for rec, p := range tr.deletions {
		kind, _, _ := strings.Cut(rec, " ")
		if sees(p) && restriction.Allows(kinds[kind]) {
			want = append(want, rec)
		}
	}
	slices.Sort(want)
	got, total := c.walk("/v1/deletions?since=" + at(wd.since))
	c.equal(got, want, total, "/v1/deletions")
}

// only returns the items of project.
func only(items map[string]string, project string) map[string]string {
	out := map[string]string{}
	for id, p := range items {
		if p == project {
			out[id] = p
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// restrictedClient reads a handler with the restricted key.
type restrictedClient struct {
	t     *testing.T
	h     http.Handler
	limit int    // the page size of the walks
	desc  string // the seed and restriction, for failures
}

func (c restrictedClient) get(target string) *httptest.ResponseRecorder {
	c.t.Helper()
	req := httptest.NewRequest("GET", target, nil)
	req.Header.Set("Authorization", "Bearer restricted")
	return serveWith(c.t, c.h, req)
}

// list walks a list route and checks that it holds exactly want (ids,
// any order: nothing outside the key's projects, nothing of theirs
// missing), with the true total on every page; or 403 INSUFFICIENT_SCOPE
// without the scope.
func (c restrictedClient) list(target string, scope auth.Scope, r auth.Restriction, want []string) {
	c.t.Helper()
	if !r.Allows(scope) {
		c.scopeRefused(target)
		return
	}
	got, total := c.walk(target)
	c.equal(got, want, total, target)
}

// walk reads every page of a list, and returns the ids (or, for deletion
// records, "type id") sorted and the total, failing on a page whose total
// differs or an item seen twice.
func (c restrictedClient) walk(target string) ([]string, int) {
	c.t.Helper()
	sep := "?"
	if strings.Contains(target, "?") {
		sep = "&"
	}
	var ids []string
	total := -1
	for page := 1; ; page++ {
		res := c.get(fmt.Sprintf("%s%slimit=%d&page=%d", target, sep, c.limit, page))
		if res.Code != http.StatusOK {
			c.t.Fatalf("%s: GET %s: %d %s", c.desc, target, res.Code, res.Body)
		}
		var l struct {
			Data []map[string]any    `json:"data"`
			Meta struct{ Total int } `json:"meta"`
		}
		if err := json.Unmarshal(res.Body.Bytes(), &l); err != nil {
			c.t.Fatal(err)
		}
		if total >= 0 && l.Meta.Total != total {
			c.t.Fatalf("%s: %s: total %d on page %d, %d before", c.desc, target, l.Meta.Total, page, total)
		}
		total = l.Meta.Total
		if len(l.Data) == 0 {
			break
		}
		for _, it := range l.Data {
			id := it["id"].(string)
			if typ, ok := it["type"].(string); ok {
				id = typ + " " + id
			}
			if slices.Contains(ids, id) {
				c.t.Fatalf("%s: %s: %s listed twice", c.desc, target, id)
			}
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, total
}

// equal checks a walked list against want.
func (c restrictedClient) equal(got, want []string, total int, target string) {
	c.t.Helper()
	if want == nil {
		want = []string{}
	}
	if got == nil {
		got = []string{}
	}
	if !slices.Equal(got, want) || total != len(want) {
		c.t.Fatalf("%s: %s: got %v (total %d), want %v", c.desc, target, got, total, want)
	}
}

// item checks a route of one item: 403 INSUFFICIENT_SCOPE without the
// scope; ok (200, or the status given) when the key may see it; else 404
// NOT_FOUND, as an unknown id.
func (c restrictedClient) item(target string, scope auth.Scope, r auth.Restriction, visible bool, ok int) {
	c.t.Helper()
	if !r.Allows(scope) {
		c.scopeRefused(target)
		return
	}
	res := c.get(target)
	want := http.StatusNotFound
	if visible {
		want = ok
	}
	if res.Code != want {
		c.t.Fatalf("%s: GET %s: %d, want %d: %s", c.desc, target, res.Code, want, res.Body)
	}
}

func (c restrictedClient) scopeRefused(target string) {
	c.t.Helper()
	res := c.get(target)
	if res.Code != http.StatusForbidden || !strings.Contains(res.Body.String(), "INSUFFICIENT_SCOPE") {
		c.t.Fatalf("%s: GET %s without its scope: %d %s", c.desc, target, res.Code, res.Body)
	}
}
