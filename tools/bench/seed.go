package main

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/store"
)

// The data: organizations named after their invoice count (bench_137,
// bench_100000), enterprise plan, each with a few projects and invoices
// of a realistic shape, spread over three years, newest first. Both
// stores get the same items from the same functions; the other
// organizations of the "others" schema get the same shape from SQL.

// benchEpoch is when the newest invoice of every organization was issued.
var benchEpoch = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// invoiceSpan is how far back an organization's invoices go.
const invoiceSpan = 3 * 365 * 24 * time.Hour

// projectsPerOrg is how many projects an organization's invoices name.
const projectsPerOrg = 4

// othersPerOrg is how many invoices each of the other organizations holds.
const othersPerOrg = 1000

// orgID names the organization with n invoices.
func orgID(n int) string { return fmt.Sprintf("bench_%d", n) }

// organization is an enterprise organization that may use the API.
func organization(id string) store.Organization {
	return store.Organization{ID: id, Name: "Bench " + id, Plan: store.PlanEnterprise, RetainerActive: true, APIEnabled: true}
}

// projects are the organization's projects, which a third of its invoices
// name.
func projects(org string) []store.Project {
	ps := make([]store.Project, projectsPerOrg)
	for i := range ps {
		started := benchEpoch.AddDate(0, -6*i, 0)
		ps[i] = store.Project{ID: fmt.Sprintf("prj_%d", i+1), OrgID: org, Name: fmt.Sprintf("Project %d", i+1),
			Status: store.ProjectInProgress, StartedAt: &started}
	}
	return ps
}

// step is the time between two of n invoices, in whole seconds.
func step(n int) time.Duration {
	return (invoiceSpan / time.Duration(max(n, 1))).Truncate(time.Second)
}

// invoiceStatus is the status of the j-th newest of an organization's n
// invoices: the newest twentieth and every tenth open, one in 25 void,
// one in 50 a draft, the rest paid. seedSQL says the same in SQL.
func invoiceStatus(j, n int) store.InvoiceStatus {
	switch {
	case j%25 == 0:
		return store.InvoiceVoid
	case j%50 == 7:
		return store.InvoiceDraft
	case j < n/20 || j%10 == 3:
		return store.InvoiceOpen
	}
	return store.InvoicePaid
}

// invoices are the organization's n invoices in list order (newest
// first), so that memstore.Store appends each at the end of its list.
func invoices(org string, n int) []store.Invoice {
	ps := projects(org)
	out := make([]store.Invoice, n)
	for j := range out {
		issued := benchEpoch.Add(-time.Duration(j) * step(n))
		inv := store.Invoice{
			ID:       fmt.Sprintf("inv_%06d", j),
			OrgID:    org,
			Number:   fmt.Sprintf("INV-%06d", n-j),
			Status:   invoiceStatus(j, n),
			Currency: "EUR",
			Total:    50_000 + int64(j*7919)%950_000,
			IssuedAt: issued,
			DueAt:    issued.AddDate(0, 0, 30),
		}
		if j%9 == 0 {
			inv.Currency = "USD"
		}
		if j%3 == 0 {
			inv.ProjectID = &ps[j%len(ps)].ID
		}
		switch inv.Status {
		case store.InvoiceOpen, store.InvoiceDraft:
			inv.AmountDue = inv.Total
		case store.InvoicePaid:
			paid := issued.AddDate(0, 0, j%20+1)
			inv.PaidAt = &paid
		}
		out[j] = inv
	}
	return out
}

// seedSQL inserts the invoices of the organizations $1 (ids), $2
// (counts) in the shape invoices gives, in one statement; $3 is the epoch,
// and the invoices name projects (those projects gives) only when $4.
// %[1]s is the schema, %[2]d invoiceSpan in seconds.
const seedSQL = `
INSERT INTO %[1]s.invoices (org_id, id, number, project_id, status, currency, total, amount_due, issued_at, due_at, paid_at)
SELECT o.id, 'inv_' || lpad(j::text, 6, '0'), 'INV-' || lpad((o.n - j)::text, 6, '0'),
	CASE WHEN $4::bool AND j %% 3 = 0 THEN 'prj_' || (j %% 4 + 1) END,
	g.st, CASE WHEN j %% 9 = 0 THEN 'USD' ELSE 'EUR' END, g.tot,
	CASE WHEN g.st IN ('open', 'draft') THEN g.tot ELSE 0 END,
	g.iss, g.iss + interval '30 days',
	CASE WHEN g.st = 'paid' THEN g.iss + (j %% 20 + 1) * interval '1 day' END
FROM unnest($1::text[], $2::int[]) AS o(id, n)
CROSS JOIN LATERAL generate_series(0, o.n - 1) AS j
CROSS JOIN LATERAL (SELECT
	CASE WHEN j %% 25 = 0 THEN 'void' WHEN j %% 50 = 7 THEN 'draft' WHEN j < o.n / 20 OR j %% 10 = 3 THEN 'open' ELSE 'paid' END AS st,
	50000 + (j * 7919) %% 950000 AS tot,
	$3::timestamptz - j * (%[2]d / o.n) * interval '1 second' AS iss) AS g`

// othersChunk is how many rows of the other organizations one statement
// inserts.
const othersChunk = 250_000

// orgKey is an organization and a key minted for it.
type orgKey struct {
	org  string
	key  string
	hash keyHash
}

// mint makes a key of the organization, valid for a day (the runs of
// PostgreSQL leave theirs behind; they expire).
func mint(ctx context.Context, keys *auth.Keys, org string) (orgKey, error) {
	exp := time.Now().Add(24 * time.Hour)
	key, _, err := keys.Mint(ctx, org, "tools/bench", &exp)
	return orgKey{org: org, key: key, hash: sha256.Sum256([]byte(key))}, err
}

// memoryEnv is the in-memory store, its keys and the library's server on
// it.
type memoryEnv struct {
	st    *memstore.Store
	keys  *auth.Keys
	cache *auth.Cache
	lib   *server
	orgs  map[int]orgKey
}

// newMemoryEnv returns an empty store and starts the library on it.
func newMemoryEnv(noCache bool) (*memoryEnv, error) {
	st := memstore.New()
	keys := auth.NewKeys(auth.NewMemoryKeyStore(st))
	cache := auth.NewCache(keys)
	lib, err := startServer(libraryHandler(st, cache, noCache))
	if err != nil {
		return nil, err
	}
	return &memoryEnv{st: st, keys: keys, cache: cache, lib: lib, orgs: map[int]orgKey{}}, nil
}

// org returns the organization with n invoices, put with them the first
// time it is asked for, and a key of it.
func (e *memoryEnv) org(ctx context.Context, n int) (orgKey, error) {
	if ok, done := e.orgs[n]; done {
		return ok, nil
	}
	id := orgID(n)
	if err := e.st.PutOrganization(ctx, organization(id)); err != nil {
		return orgKey{}, err
	}
	for _, p := range projects(id) {
		if err := e.st.PutProject(ctx, p); err != nil {
			return orgKey{}, err
		}
	}
	for _, inv := range invoices(id, n) {
		if err := e.st.PutInvoice(ctx, inv); err != nil {
			return orgKey{}, err
		}
	}
	k, err := mint(ctx, e.keys, id)
	if err != nil {
		return orgKey{}, err
	}
	e.orgs[n] = k
	return k, nil
}

// close stops the server and the keys.
func (e *memoryEnv) close() {
	e.lib.close()
	e.cache.Close()
	e.keys.Close()
}

// pgEnv is one schema of bunstore, its keys and the library's server on
// it; the main schema also has the pgx pool of the yardstick.
type pgEnv struct {
	dsn      string
	schema   string
	db       *bun.DB
	st       *bunstore.Store
	keys     *auth.Keys
	cache    *auth.Cache
	lib      *server
	pool     *pgxpool.Pool // opened by pgxPool
	orgs     map[int]orgKey
	progress io.Writer
}

// openPostgres migrates schema (after dropping it, with reseed) and starts
// the library on it.
func openPostgres(ctx context.Context, dsn, schema string, reseed, noCache bool, progress io.Writer) (*pgEnv, error) {
	db, err := bunstore.Open(ctx, dsn)
	if err != nil {
		return nil, err
	}
	e := &pgEnv{dsn: dsn, schema: schema, db: db, orgs: map[int]orgKey{}, progress: progress}
	if reseed {
		if err := e.dropSchema(ctx); err != nil {
			db.Close()
			return nil, err
		}
	}
	if err := e.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	e.st = bunstore.New(db, bunstore.WithSchema(schema))
	e.keys = auth.NewKeys(e.st)
	e.cache = auth.NewCache(e.keys)
	if e.lib, err = startServer(libraryHandler(e.st, e.cache, noCache)); err != nil {
		e.close()
		return nil, err
	}
	return e, nil
}

// migrate brings the schema up to date.
func (e *pgEnv) migrate(ctx context.Context) error {
	return bunstore.Migrate(ctx, e.db, bunstore.WithSchema(e.schema))
}

// table is the schema's table name, quoted.
func (e *pgEnv) table(name string) string { return pgx.Identifier{e.schema, name}.Sanitize() }

// long runs query on a connection of its own without a statement
// timeout, for DROP SCHEMA and VACUUM.
func (e *pgEnv) long(ctx context.Context, query string) error {
	conn, err := e.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SET statement_timeout = 0"); err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, query)
	if _, rerr := conn.ExecContext(context.Background(), "RESET statement_timeout"); rerr != nil && err == nil {
		err = rerr
	}
	return err
}

// dropSchema drops the schema and all its data.
func (e *pgEnv) dropSchema(ctx context.Context) error {
	fmt.Fprintf(e.progress, "postgres: dropping schema %s\n", e.schema)
	return e.long(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{e.schema}.Sanitize()+" CASCADE")
}

// vacuum runs VACUUM ANALYZE on the tables seeding wrote, so that the
// planner knows them and the visibility map is set, as on a database in
// service.
func (e *pgEnv) vacuum(ctx context.Context) error {
	fmt.Fprintf(e.progress, "postgres: VACUUM ANALYZE %s\n", e.schema)
	return e.long(ctx, "VACUUM ANALYZE "+e.table("invoices")+", "+e.table("organizations")+", "+e.table("projects"))
}

// count returns the number of invoices of org, and whether org exists.
func (e *pgEnv) count(ctx context.Context, org string) (int, bool, error) {
	if _, err := e.st.Organization(ctx, org); errors.Is(err, store.ErrNotFound) {
		return 0, false, nil
	} else if err != nil {
		return 0, false, err
	}
	var n int
	err := e.db.NewRaw("SELECT count(*) FROM "+e.table("invoices")+" WHERE org_id = ?", org).Scan(ctx, &n)
	return n, true, err
}

// putOrg puts the organization, its projects and invs, its invoices.
func (e *pgEnv) putOrg(ctx context.Context, org string, invs []store.Invoice) error {
	if err := e.st.PutOrganization(ctx, organization(org)); err != nil {
		return err
	}
	if err := e.st.PutProjects(ctx, projects(org)); err != nil {
		return err
	}
	return e.putInvoices(ctx, org, invs)
}

// putInvoices puts invoices through the store's batch writer, 10,000 a
// call, saying how far it is.
func (e *pgEnv) putInvoices(ctx context.Context, org string, invs []store.Invoice) error {
	const batch = 10_000
	for lo := 0; lo < len(invs); lo += batch {
		if err := e.st.PutInvoices(ctx, invs[lo:min(lo+batch, len(invs))]); err != nil {
			return err
		}
		if len(invs) > batch {
			fmt.Fprintf(e.progress, "postgres: %s: %s of %s invoices\n", org, thousands(float64(min(lo+batch, len(invs)))), thousands(float64(len(invs))))
		}
	}
	return nil
}

// org returns the organization with n invoices in the schema, seeded
// unless it is there with exactly n already (else it is deleted and seeded
// again), and a key of it.
func (e *pgEnv) org(ctx context.Context, n int) (orgKey, error) {
	if ok, done := e.orgs[n]; done {
		return ok, nil
	}
	id := orgID(n)
	have, exists, err := e.count(ctx, id)
	if err != nil {
		return orgKey{}, err
	}
	switch {
	case exists && have == n:
		fmt.Fprintf(e.progress, "postgres: %s.%s: reusing its %s invoices\n", e.schema, id, thousands(float64(n)))
	default:
		if exists {
			fmt.Fprintf(e.progress, "postgres: %s.%s: %d invoices, not %d: seeding again\n", e.schema, id, have, n)
			if err := e.st.DeleteOrganization(ctx, id); err != nil {
				return orgKey{}, err
			}
		}
		fmt.Fprintf(e.progress, "postgres: %s.%s: seeding %s invoices\n", e.schema, id, thousands(float64(n)))
		if err := e.putOrg(ctx, id, invoices(id, n)); err != nil {
			return orgKey{}, err
		}
		if err := e.vacuum(ctx); err != nil {
			return orgKey{}, err
		}
	}
	k, err := mint(ctx, e.keys, id)
	if err != nil {
		return orgKey{}, err
	}
	e.orgs[n] = k
	return k, nil
}

// withOthers returns the organization with n invoices in a schema where
// other organizations hold others invoices (othersPerOrg each), and a key
// of it. The data is reused when both counts match; otherwise the schema
// is dropped and seeded again: the others with INSERT ... SELECT
// generate_series, othersChunk rows a statement, and between the chunks a
// share of the organization's own invoices, through the store's batch
// writer, so that its rows are spread over the table as they would be in
// a database that grew with time. VACUUM ANALYZE ends it.
func (e *pgEnv) withOthers(ctx context.Context, n, others int) (orgKey, error) {
	id := orgID(n)
	have, exists, err := e.count(ctx, id)
	if err != nil {
		return orgKey{}, err
	}
	var haveOthers int
	if exists {
		if err := e.db.NewRaw("SELECT count(*) FROM "+e.table("invoices")+" WHERE org_id <> ?", id).Scan(ctx, &haveOthers); err != nil {
			return orgKey{}, err
		}
	}
	if exists && have == n && haveOthers == others {
		fmt.Fprintf(e.progress, "postgres: %s: reusing %s's %s invoices among %s of others\n", e.schema, id, thousands(float64(n)), thousands(float64(others)))
	} else {
		if err := e.seedOthers(ctx, id, n, others); err != nil {
			return orgKey{}, err
		}
	}
	return mint(ctx, e.keys, id)
}

// seedOthers drops the schema and seeds it, as withOthers says.
func (e *pgEnv) seedOthers(ctx context.Context, id string, n, others int) error {
	if err := e.dropSchema(ctx); err != nil {
		return err
	}
	if err := e.migrate(ctx); err != nil {
		return err
	}
	fmt.Fprintf(e.progress, "postgres: %s: seeding %s invoices of %s other organizations, and %s's %d\n",
		e.schema, thousands(float64(others)), thousands(float64((others+othersPerOrg-1)/othersPerOrg)), id, n)
	if err := e.putOrg(ctx, id, nil); err != nil {
		return err
	}
	orgs := make([]store.Organization, (others+othersPerOrg-1)/othersPerOrg)
	for i := range orgs {
		orgs[i] = organization(fmt.Sprintf("other_%06d", i))
	}
	if err := e.st.PutOrganizations(ctx, orgs); err != nil {
		return err
	}
	own := invoices(id, n)
	chunks := (others + othersChunk - 1) / othersChunk
	start := time.Now()
	for c := range chunks {
		lo, hi := c*othersChunk, min((c+1)*othersChunk, others)
		var ids []string
		var counts []int32
		for k := lo; k < hi; k += othersPerOrg {
			ids = append(ids, orgs[k/othersPerOrg].ID)
			counts = append(counts, int32(min(othersPerOrg, hi-k)))
		}
		if err := e.seedInvoices(ctx, ids, counts, false); err != nil {
			return err
		}
		if err := e.st.PutInvoices(ctx, own[c*n/chunks:(c+1)*n/chunks]); err != nil {
			return err
		}
		fmt.Fprintf(e.progress, "postgres: %s: %s of %s rows of others (%.0f%%), %s\n", e.schema,
			thousands(float64(hi)), thousands(float64(others)), 100*float64(hi)/float64(others), time.Since(start).Round(time.Second))
	}
	return e.vacuum(ctx)
}

// seedInvoices inserts the invoices of the organizations ids, counts[i]
// of ids[i], in one statement of seedSQL on the pgx pool.
func (e *pgEnv) seedInvoices(ctx context.Context, ids []string, counts []int32, withProjects bool) error {
	pool, err := e.pgxPool(ctx)
	if err != nil {
		return err
	}
	_, err = pool.Exec(ctx, fmt.Sprintf(seedSQL, pgx.Identifier{e.schema}.Sanitize(), int64(invoiceSpan/time.Second)), ids, counts, benchEpoch, withProjects)
	return err
}

// pgxPool returns the yardstick's pool, opened the first time: pgx's
// defaults, as many connections as bunstore.Open's pool keeps.
func (e *pgEnv) pgxPool(ctx context.Context) (*pgxpool.Pool, error) {
	if e.pool != nil {
		return e.pool, nil
	}
	cfg, err := pgxpool.ParseConfig(e.dsn)
	if err != nil {
		return nil, errors.New("the database URL does not parse for pgxpool")
	}
	cfg.MaxConns = int32(4 * runtime.GOMAXPROCS(0))
	if e.pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		return nil, err
	}
	return e.pool, e.pool.Ping(ctx)
}

// close stops the server, the keys and the pools.
func (e *pgEnv) close() {
	if e.lib != nil {
		e.lib.close()
	}
	if e.cache != nil {
		e.cache.Close()
	}
	if e.keys != nil {
		e.keys.Close()
	}
	if e.pool != nil {
		e.pool.Close()
	}
	e.db.Close()
}
