package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"runtime/pprof"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/clientstatus/clientstatus/store"
	"github.com/clientstatus/clientstatus/tools/internal/loadgen"
)

// The production-like workload: many small organizations
// polling, a few large ones, writes all day. It has a schema of its own
// (<schema>_prod) and is measured on three servers in one process, in
// interleaved rounds: the library with its response cache, the library
// without it, and a hand-written handler (net/http + pgx). It runs only
// when -run names it (it seeds 300,000 invoices the first time).

// The shape of the workload.
const (
	prodOrgs    = 1000    // organizations, one key each
	prodLarge   = 54      // of which large: 2,000 to 10,000 invoices
	prodTotal   = 300_000 // invoices in all, about
	prodClients = 32      // concurrent clients
	prodWrites  = 20      // commits a second
	// zipfS and zipfV shape the popularity of organizations: the weight
	// of rank k (from 0) is 1/(k+zipfV)^zipfS, with which the top 1 %
	// send a third of the requests (TestZipfShare).
	zipfS, zipfV = 1.0, 1.6
)

// prodName names the production run for -run.
const prodName = "production"

// prodOrg is an organization of the workload and its key.
type prodOrg struct {
	id   string
	n    int // invoices seeded
	key  string
	hash keyHash
}

// prodSizes are the invoice counts of the organizations, by index: most
// 5 to 50, prodLarge of them (at indexes a fixed shuffle picks) 2,000 to
// about 8,000, so that the sum is about prodTotal.
func prodSizes() []int {
	sizes := make([]int, prodOrgs)
	small := 0
	for i := range sizes {
		sizes[i] = 5 + (i*37)%46
	}
	r := rand.New(rand.NewPCG(25, 1))
	large := r.Perm(prodOrgs)[:prodLarge]
	for i := range sizes {
		if !slices.Contains(large, i) {
			small += sizes[i]
		}
	}
	// Large sizes rise linearly from 2,000 so that they make up the rest.
	rest := prodTotal - small
	mean := rest / prodLarge
	top := 2*mean - 2000
	for k, i := range large {
		sizes[i] = 2000 + k*(top-2000)/(prodLarge-1)
	}
	return sizes
}

// zipf draws ranks 0..n-1 with weights 1/(k+v)^s.
type zipf struct{ cdf []float64 }

// newZipf returns the sampler of n ranks.
func newZipf(n int, s, v float64) *zipf {
	z := &zipf{cdf: make([]float64, n)}
	sum := 0.0
	for k := range n {
		sum += 1 / math.Pow(float64(k)+v, s)
		z.cdf[k] = sum
	}
	for k := range z.cdf {
		z.cdf[k] /= sum
	}
	return z
}

// rank draws a rank.
func (z *zipf) rank(r *rand.Rand) int {
	return min(sort.SearchFloat64s(z.cdf, r.Float64()), len(z.cdf)-1)
}

// prodEnv is the workload's schema, organizations and servers.
type prodEnv struct {
	pg   *pgEnv
	pool *pgxpool.Pool
	orgs []prodOrg // by popularity rank: orgs[0] is the most polled
	z    *zipf
	// writing holds a mutex per organization (id), which the writer
	// holds from a probe's first read to its last.
	writing sync.Map
}

// production opens (and seeds, the first time) the workload's schema and
// mints a key per organization.
func (b *bench) production(ctx context.Context) (*prodEnv, error) {
	pg, err := b.postgres(ctx, &b.prod, "_prod")
	if err != nil {
		return nil, err
	}
	pool, err := pg.pgxPool(ctx)
	if err != nil {
		return nil, err
	}
	sizes := prodSizes()
	ids := make([]string, prodOrgs)
	for i := range ids {
		ids[i] = fmt.Sprintf("prod_%04d", i)
	}
	var orgs, invs int
	if err := pool.QueryRow(ctx, "SELECT (SELECT count(*) FROM "+pg.table("organizations")+"), (SELECT count(*) FROM "+pg.table("invoices")+")").Scan(&orgs, &invs); err != nil {
		return nil, err
	}
	seeded := 0
	for _, n := range sizes {
		seeded += n
	}
	if orgs == prodOrgs && invs >= seeded {
		fmt.Fprintf(b.progress, "postgres: %s: reusing %s organizations, %s invoices\n", pg.schema, thousands(float64(orgs)), thousands(float64(invs)))
	} else {
		if err := b.seedProduction(ctx, pg, ids, sizes); err != nil {
			return nil, err
		}
	}
	e := &prodEnv{pg: pg, pool: pool, z: newZipf(prodOrgs, zipfS, zipfV)}
	// Popularity ranks are a fixed shuffle of the organizations, so that
	// the large ones are spread over them.
	r := rand.New(rand.NewPCG(25, 2))
	start := time.Now()
	for _, i := range r.Perm(prodOrgs) {
		k, err := mint(ctx, pg.keys, ids[i])
		if err != nil {
			return nil, err
		}
		e.orgs = append(e.orgs, prodOrg{id: ids[i], n: sizes[i], key: k.key, hash: k.hash})
	}
	fmt.Fprintf(b.progress, "postgres: %s: minted %d keys in %s\n", pg.schema, len(e.orgs), time.Since(start).Round(time.Millisecond))
	return e, nil
}

// seedProduction drops the schema and seeds it: the organizations and
// their projects through the store, the invoices in one INSERT ... SELECT.
func (b *bench) seedProduction(ctx context.Context, pg *pgEnv, ids []string, sizes []int) error {
	if err := pg.dropSchema(ctx); err != nil {
		return err
	}
	if err := pg.migrate(ctx); err != nil {
		return err
	}
	start := time.Now()
	fmt.Fprintf(b.progress, "postgres: %s: seeding %d organizations\n", pg.schema, prodOrgs)
	os := make([]store.Organization, len(ids))
	var ps []store.Project
	for i, id := range ids {
		os[i] = organization(id)
		ps = append(ps, projects(id)...)
	}
	if err := pg.st.PutOrganizations(ctx, os); err != nil {
		return err
	}
	if err := pg.st.PutProjects(ctx, ps); err != nil {
		return err
	}
	ns := make([]int32, len(sizes))
	total := 0
	for i, n := range sizes {
		ns[i], total = int32(n), total+n
	}
	fmt.Fprintf(b.progress, "postgres: %s: seeding %s invoices\n", pg.schema, thousands(float64(total)))
	if err := pg.seedInvoices(ctx, ids, ns, true); err != nil {
		return err
	}
	if err := pg.vacuum(ctx); err != nil {
		return err
	}
	fmt.Fprintf(b.progress, "postgres: %s: seeded in %s\n", pg.schema, time.Since(start).Round(time.Second))
	return nil
}

// prodSide is one server of the workload and what its clients remember:
// the last ETag of each URL.
type prodSide struct {
	name  string
	url   string
	etags sync.Map // URL -> ETag
}

// prodStats are one measurement of a side.
type prodStats struct {
	rps           float64
	ok, notMod    int64
	p99           time.Duration
	cpu           float64 // µs per request, this process
	otherCPU      float64 // µs per request, the rest of the machine (PostgreSQL)
	probes, stale int64
	commits       int64
}

// prodQuery is a request of the loader: an organization's page of
// invoices, as a portal's traffic looks.
func prodQuery(r *rand.Rand) string {
	q := "/v1/invoices?limit=20"
	if r.IntN(2) == 0 {
		q = "/v1/invoices?limit=100"
	}
	if r.IntN(10) >= 7 {
		q += "&page=" + strconv.Itoa(2+r.IntN(4))
	}
	if r.IntN(2) == 0 {
		q += "&status=" + []string{"open", "paid", "void", "draft"}[r.IntN(4)]
	}
	return q
}

// load runs the loader and the writer against s for d and returns what it
// measured. An answer other than 200 or 304 fails it.
func (e *prodEnv) load(ctx context.Context, client *http.Client, s *prodSide, d time.Duration, seed uint64, write bool) (prodStats, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var (
		st      prodStats
		okN     atomic.Int64
		notMod  atomic.Int64
		lats    = make([][]time.Duration, prodClients)
		rs      = make([]*rand.Rand, prodClients)
		ekeys   = make([]string, prodClients) // each client's request in flight, as s.etags knows it
		writer  sync.WaitGroup
		probes  atomic.Int64
		stale   atomic.Int64
		commits atomic.Int64
	)
	for c := range rs {
		rs[c] = rand.New(rand.NewPCG(seed, uint64(c)))
	}
	before, machineBefore := usage(), machineCPU()
	if write {
		// One write (and its probe) a tick, each in a goroutine of its
		// own so that a slow probe does not slow the writer; writes into
		// one organization wait for each other, so that a probe sees
		// only its own change move the page.
		writer.Go(func() {
			r := rand.New(rand.NewPCG(seed, 1<<32))
			tick := time.NewTicker(time.Second / prodWrites)
			defer tick.Stop()
			var writes sync.WaitGroup
			defer writes.Wait()
			for n := 0; ctx.Err() == nil; n++ {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
				}
				o := e.orgs[e.z.rank(r)]
				offset := r.IntN(min(o.n, 20))
				writes.Go(func() {
					fresh, err := e.writeAndProbe(ctx, o, offset, s, n%2 == 0)
					switch {
					case ctx.Err() != nil:
						return
					case err != nil:
						cancel(fmt.Errorf("%s: writer: %w", s.name, err))
						return
					}
					commits.Add(1)
					probes.Add(1)
					if !fresh {
						stale.Add(1)
					}
				})
			}
		})
	}
	elapsed, err := loadgen.Run(ctx, client, prodClients, d, func(c int) (*http.Request, error) {
		r := rs[c]
		o := e.orgs[e.z.rank(r)]
		u := s.url + prodQuery(r)
		req, err := loadgen.Get(u, o.key)
		ekeys[c] = o.id + " " + u
		if r.IntN(10) < 6 && err == nil {
			if tag, ok := s.etags.Load(ekeys[c]); ok {
				req.Header.Set("If-None-Match", tag.(string))
			}
		}
		return req, err
	}, func(c int, resp *http.Response, took time.Duration, err error) error {
		if err != nil {
			return err
		}
		lats[c] = append(lats[c], took)
		switch resp.StatusCode {
		case http.StatusOK:
			okN.Add(1)
			if tag := resp.Header.Get("ETag"); tag != "" {
				s.etags.Store(ekeys[c], tag)
			}
		case http.StatusNotModified:
			notMod.Add(1)
		default:
			return fmt.Errorf("%s: status %d from %s", s.name, resp.StatusCode, resp.Request.URL)
		}
		return nil
	})
	cancel(nil)
	writer.Wait()
	if err != nil {
		return st, err
	}
	all := slices.Concat(lats...)
	slices.Sort(all)
	st.ok, st.notMod = okN.Load(), notMod.Load()
	st.rps = float64(st.ok+st.notMod) / elapsed.Seconds()
	if len(all) > 0 {
		st.p99 = all[len(all)*99/100]
	}
	after := usage()
	st.cpu = after.perRequest(before)
	if n := after.requests - before.requests; n > 0 {
		other := machineCPU() - machineBefore - (after.cpu - before.cpu)
		st.otherCPU = max(0, float64(other)/float64(time.Microsecond)/float64(n))
	}
	st.probes, st.stale, st.commits = probes.Load(), stale.Load(), commits.Load()
	return st, nil
}

// probeClient sends the freshness probes, on connections of its own.
var probeClient = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 4, DisableCompression: true}}

// writeSeq makes the ids of new invoices unique across runs.
var writeSeq atomic.Int64

// writeAndProbe commits one change in plain SQL into a Zipf-chosen
// organization, a new invoice (insert) or a status change of one of its
// first 20 (offset), and probes s
// right after the commit: a page of the organization's invoices, read
// just before the commit, is asked again with its ETag; the answer must
// be a 200 that shows the change. It returns whether it was (false: a
// stale answer).
func (e *prodEnv) writeAndProbe(ctx context.Context, o prodOrg, offset int, s *prodSide, insert bool) (bool, error) {
	mu, _ := e.writing.LoadOrStore(o.id, new(sync.Mutex))
	mu.(*sync.Mutex).Lock()
	defer mu.(*sync.Mutex).Unlock()
	u := s.url + "/v1/invoices?limit=100"
	before, _, err := get(ctx, probeClient, u, o.key, "")
	if err != nil {
		return false, err
	}
	var id, status string
	inv := pgx.Identifier{e.pg.schema, "invoices"}.Sanitize()
	if insert {
		id = fmt.Sprintf("w_%x_%d", time.Now().UnixNano(), writeSeq.Add(1))
		status = "open"
		_, err = e.pool.Exec(ctx, "INSERT INTO "+inv+
			" (org_id, id, number, status, currency, total, amount_due, issued_at, due_at) VALUES ($1, $2, $3, 'open', 'EUR', 120000, 120000, now(), now() + interval '30 days')",
			o.id, id, "W-"+id)
	} else {
		err = e.pool.QueryRow(ctx, "UPDATE "+inv+` AS i SET
			status = CASE i.status WHEN 'open' THEN 'paid' ELSE 'open' END,
			paid_at = CASE i.status WHEN 'open' THEN now() END,
			amount_due = CASE i.status WHEN 'open' THEN 0 ELSE i.total END
			WHERE (i.org_id, i.id) = (SELECT t.org_id, t.id FROM `+inv+` AS t WHERE t.org_id = $1 ORDER BY t.issued_at DESC, t.id OFFSET $2 LIMIT 1)
			RETURNING i.id, i.status`, o.id, offset).Scan(&id, &status)
	}
	if err != nil {
		return false, err
	}
	after, body, err := get(ctx, probeClient, u, o.key, before.Header.Get("ETag"))
	if err != nil || after.StatusCode != http.StatusOK {
		return false, err
	}
	var page struct {
		Data []struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &page); err != nil {
		return false, fmt.Errorf("probe: %w", err)
	}
	for _, it := range page.Data {
		if it.ID == id {
			return it.Status == status, nil
		}
	}
	return false, nil
}

// prodReport is the workload's figures over the rounds.
type prodReport struct {
	on, off, hand []prodStats
}

// measureProduction runs the workload: the three servers, -rounds rounds
// of -d each after a -warmup, in an order that rotates, the writer and
// its probes running throughout each measurement.
func (b *bench) measureProduction(ctx context.Context, out io.Writer) error {
	e, err := b.production(ctx)
	if err != nil {
		return err
	}
	on, err := b.serve(labelled("cache on", libraryHandler(e.pg.st, e.pg.cache, false)))
	if err != nil {
		return err
	}
	off, err := b.serve(labelled("cache off", libraryHandler(e.pg.st, e.pg.cache, true)))
	if err != nil {
		return err
	}
	byHash := make(map[keyHash]string, len(e.orgs))
	for _, o := range e.orgs {
		byHash[o.hash] = o.id
	}
	hand, err := b.serve(labelled("hand-written", pgxHandler(e.pool, e.pg.schema, true, func(credential string) (string, bool) {
		org, ok := byHash[sha256.Sum256([]byte(credential))]
		return org, ok
	})))
	if err != nil {
		return err
	}
	sides := []*prodSide{{name: "cache on", url: on.url}, {name: "cache off", url: off.url}, {name: "hand-written", url: hand.url}}
	// The library and the hand-written handler must agree on a page.
	for _, q := range []string{"/v1/invoices?limit=20", "/v1/invoices?limit=100&page=2&status=paid"} {
		o := e.orgs[0]
		if err := sameJSON(ctx, side{url: on.url + q, key: o.key}, side{url: hand.url + q, key: o.key}); err != nil {
			return err
		}
	}
	tr := &http.Transport{MaxIdleConnsPerHost: prodClients, MaxConnsPerHost: prodClients, DisableCompression: true}
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	defer tr.CloseIdleConnections()
	loadBefore := loadAvg()
	var rep prodReport
	for round := range b.cfg.rounds {
		got := map[*prodSide]prodStats{}
		for k := range sides {
			s := sides[(round+k)%len(sides)]
			if b.cfg.warmup > 0 {
				if _, err := e.load(ctx, client, s, b.cfg.warmup, uint64(round*10+k+100), false); err != nil {
					return fmt.Errorf("warm-up of %s: %w", s.name, err)
				}
			}
			st, err := e.load(ctx, client, s, b.cfg.d, uint64(round*10+k), true)
			if err != nil {
				return err
			}
			got[s] = st
			fmt.Fprintf(b.progress, "production round %d: %s: %s req/s (%.0f%% 304), p99 %s, %.1f µs CPU each (the rest of the machine %.1f), %d commits, %d stale of %d probes\n",
				round+1, s.name, thousands(st.rps), 100*float64(st.notMod)/float64(max(1, st.ok+st.notMod)), st.p99.Round(100*time.Microsecond), st.cpu, st.otherCPU, st.commits, st.stale, st.probes)
		}
		rep.on, rep.off, rep.hand = append(rep.on, got[sides[0]]), append(rep.off, got[sides[1]]), append(rep.hand, got[sides[2]])
	}
	rep.print(out, b.cfg, loadBefore, loadAvg())
	if stale := rep.stale(); stale > 0 {
		return fmt.Errorf("production: %d stale answers", stale)
	}
	return nil
}

// stale is the stale answers of every side and round.
func (r prodReport) stale() int64 {
	var n int64
	for _, st := range slices.Concat(r.on, r.off, r.hand) {
		n += st.stale
	}
	return n
}

// print writes the workload's table.
func (r prodReport) print(out io.Writer, cfg config, loadBefore, loadAfter string) {
	rps := func(s []prodStats) float64 { return median(mapStats(s, func(st prodStats) float64 { return st.rps })) }
	p99 := func(s []prodStats) float64 {
		return median(mapStats(s, func(st prodStats) float64 { return float64(st.p99) / float64(time.Millisecond) }))
	}
	cpu := func(s []prodStats) float64 { return median(mapStats(s, func(st prodStats) float64 { return st.cpu })) }
	otherCPU := func(s []prodStats) float64 {
		return median(mapStats(s, func(st prodStats) float64 { return st.otherCPU }))
	}
	ratio := func(a, b []prodStats) float64 {
		var rs []float64
		for i := range a {
			rs = append(rs, a[i].rps/b[i].rps)
		}
		return median(rs)
	}
	sum := func(s []prodStats, f func(prodStats) int64) int64 {
		var n int64
		for _, st := range s {
			n += f(st)
		}
		return n
	}
	share304 := func(s []prodStats) float64 {
		return 100 * float64(sum(s, func(st prodStats) int64 { return st.notMod })) / float64(max(1, sum(s, func(st prodStats) int64 { return st.ok + st.notMod })))
	}
	yes := func(ok bool) string {
		if ok {
			return "yes"
		}
		return "no"
	}
	fmt.Fprintln(out)
	fmt.Fprintln(out, "### production-like polling")
	fmt.Fprintln(out)
	fmt.Fprintf(out, "- %d organizations (most 5-50 invoices, %d with 2,000-8,000; about %s in all), one key each; popularity Zipf (s %.1f, v %.1f: the top 1%% send %.0f%% of the requests)\n",
		prodOrgs, prodLarge, thousands(prodTotal), zipfS, zipfV, 100*newZipf(prodOrgs, zipfS, zipfV).cdf[prodOrgs/100-1])
	fmt.Fprintf(out, "- %d clients in this process, GET /v1/invoices: status filter on half, limit 20 or 100, page 1 70%%, If-None-Match with the URL's last ETag on 60%%; a writer commits %d plain-SQL changes a second (half new invoices, half status changes) into Zipf-chosen organizations, each followed by a freshness probe\n", prodClients, prodWrites)
	fmt.Fprintf(out, "- %d rounds of %s per side after a %s warm-up, the order rotating; figures are medians, ratios the median of the rounds' ratios\n", cfg.rounds, cfg.d, cfg.warmup)
	fmt.Fprintf(out, "- load average before / after: %s / %s\n", loadBefore, loadAfter)
	fmt.Fprintf(out, "- 304 share: cache on %.0f%%, cache off %.0f%%, hand-written %.0f%%; CPU µs/request, this process (servers, loader, writer) + the rest of the machine (PostgreSQL): cache on %.1f + %.1f, cache off %.1f + %.1f, hand-written %.1f + %.1f\n",
		share304(r.on), share304(r.off), share304(r.hand), cpu(r.on), otherCPU(r.on), cpu(r.off), otherCPU(r.off), cpu(r.hand), otherCPU(r.hand))
	fmt.Fprintln(out)
	fmt.Fprintln(out, "| Workload | clientstatus | hand-written (net/http + pgx) | ratio | target | met |")
	fmt.Fprintln(out, "|---|---|---|---|---|---|")
	on, off := ratio(r.on, r.hand), ratio(r.off, r.hand)
	fmt.Fprintf(out, "| production-like polling, PostgreSQL, response cache on | %s req/s | %s | %.2fx | >= 2.0x | %s |\n", thousands(rps(r.on)), thousands(rps(r.hand)), on, yes(on >= 2))
	fmt.Fprintf(out, "| the same, response cache off (every request a miss) | %s req/s | %s | %.2fx | >= 1.0x | %s |\n", thousands(rps(r.off)), thousands(rps(r.hand)), off, yes(off >= 1))
	fmt.Fprintf(out, "| p99 latency, cache on / hand-written | %.1f ms | %.1f ms | | no worse | %s |\n", p99(r.on), p99(r.hand), yes(p99(r.on) <= p99(r.hand)))
	fmt.Fprintf(out, "| p99 latency, cache off / hand-written | %.1f ms | %.1f ms | | | |\n", p99(r.off), p99(r.hand))
	probes := func(s []prodStats) string {
		return fmt.Sprintf("%d of %d", sum(s, func(st prodStats) int64 { return st.stale }), sum(s, func(st prodStats) int64 { return st.probes }))
	}
	fmt.Fprintf(out, "| stale answers (freshness probes) | on %s, off %s | %s | | 0 | %s |\n", probes(r.on), probes(r.off), probes(r.hand), yes(r.stale() == 0))
}

// mapStats applies f to each of s.
func mapStats(s []prodStats, f func(prodStats) float64) []float64 {
	out := make([]float64, len(s))
	for i, st := range s {
		out[i] = f(st)
	}
	return out
}

// labelled runs h with the profiler label side=name, so that a CPU
// profile (-cpuprofile) tells the sides apart: go tool pprof
// -tagfocus 'side=cache off'.
func labelled(name string, h http.Handler) http.Handler {
	labels := pprof.Labels("side", name)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pprof.Do(r.Context(), labels, func(ctx context.Context) { h.ServeHTTP(w, r.WithContext(ctx)) })
	})
}

// loadAvg is the machine's load average (1, 5, 15 minutes), or "?".
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
