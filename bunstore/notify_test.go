package bunstore_test

import (
	"crypto/rand"
	"encoding/hex"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/matryer/is"
	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/internal/test/revoketest"
	"github.com/clientstatus/clientstatus/internal/test/testenv"
	"github.com/clientstatus/clientstatus/store"
)

// newOrgID returns an organization id of its own: the channel is shared
// by every schema of the database, so tests running at once must not
// report each other's organizations.
func newOrgID() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return "org_" + hex.EncodeToString(b)
}

// deployment is two replicas of a portal on one PostgreSQL database of
// their own, each with its own pool, Store, Keys and Cache; b listens
// through a proxy that the test can cut, while its pool reaches the
// database directly. The notification channel is the database's, shared
// by its schemas: in a shared database another test's report of every
// organization (a TRUNCATE, an id too long for a payload) would make b
// forget what an outage test counts on it remembering.
type deployment struct {
	a, b  *revoketest.Replica
	db    *bun.DB // a's pool, for plain SQL
	proxy *testenv.Proxy
	org   store.Organization
}

func newDeployment(t *testing.T) *deployment {
	t.Helper()
	dsn := newDatabase(t)
	open := func() *bun.DB {
		db, err := bunstore.Open(ctx, dsn)
		if err != nil {
			t.Fatalf("open: %v", err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	d := &deployment{db: open()}
	if err := bunstore.Migrate(ctx, d.db); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	direct, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatalf("parse %s: %v", dsn, err)
	}
	d.proxy = testenv.NewProxy(t, net.JoinHostPort(direct.Host, strconv.Itoa(int(direct.Port))))
	host, port, _ := net.SplitHostPort(d.proxy.Addr())
	p, _ := strconv.Atoi(port)
	viaProxy := direct.Copy()
	viaProxy.Host, viaProxy.Port = host, uint16(p)

	stA := bunstore.New(d.db, bunstore.WithLogger(quietLog))
	stB := bunstore.New(open(), bunstore.WithLogger(quietLog), bunstore.WithListenConfig(viaProxy))
	d.org = store.Organization{ID: newOrgID(), Name: "Acme", Plan: store.PlanStarter, RetainerActive: true, APIEnabled: true}
	if err := stA.PutOrganization(ctx, d.org); err != nil {
		t.Fatalf("put organization: %v", err)
	}
	revoketest.Listening(t, stA)
	revoketest.Listening(t, stB)
	d.a = revoketest.NewReplica(t, stA, stA, nil)
	d.b = revoketest.NewReplica(t, stB, stB, nil)
	return d
}

// exec runs plain SQL, as a portal's own code would.
func (d *deployment) exec(t *testing.T, query string, args ...any) {
	t.Helper()
	if _, err := d.db.ExecContext(ctx, query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// TestReplicasSeeRevocations: a key revoked through one replica is refused
// by the other within a second, although its cache would remember it for
// an hour.
func TestReplicasSeeRevocations(t *testing.T) {
	t.Parallel()
	d := newDeployment(t)
	key, id := d.a.Mint(t, d.org.ID)
	revoketest.Want(t, d.a, key, 200, "a serves the key")
	revoketest.Want(t, d.b, key, 200, "b serves the key, and caches it for an hour")

	d.a.Revoke(t, d.org.ID, id)
	revoketest.Want(t, d.a, key, 401, "a refuses the key it revoked at once")
	took := revoketest.Within(t, revoketest.Across, d.b, key, 401, "b hears of the revocation through PostgreSQL")
	t.Logf("b refused the key %v after a revoked it", took)
}

// TestReplicasSeePlainSQL: changes a portal makes with its own SQL, to
// an organization or a key, reach both replicas' caches within a second.
func TestReplicasSeePlainSQL(t *testing.T) {
	t.Parallel()
	d := newDeployment(t)
	key, id := d.a.Mint(t, d.org.ID)
	for _, r := range []*revoketest.Replica{d.a, d.b} {
		revoketest.Want(t, r, key, 200, "the key is served, and cached for an hour")
	}

	d.exec(t, "UPDATE organizations SET retainer_active = false WHERE id = ?", d.org.ID)
	for _, r := range []*revoketest.Replica{d.a, d.b} {
		revoketest.Within(t, revoketest.Across, r, key, 403, "a retainer ended by SQL is seen")
	}
	d.exec(t, "UPDATE organizations SET retainer_active = true WHERE id = ?", d.org.ID)
	revoketest.Within(t, revoketest.Across, d.b, key, 200, "a retainer started again is seen too")

	d.exec(t, "UPDATE organizations SET api_enabled = false WHERE id = ?", d.org.ID)
	revoketest.Within(t, revoketest.Across, d.b, key, 403, "API access turned off by SQL is seen")
	d.exec(t, "UPDATE organizations SET api_enabled = true WHERE id = ?", d.org.ID)
	revoketest.Within(t, revoketest.Across, d.b, key, 200, "and turned on again")

	d.exec(t, "UPDATE api_keys SET revoked_at = now() WHERE id = ?", id)
	revoketest.Within(t, revoketest.Across, d.b, key, 401, "a key revoked by SQL is seen")

	other, _ := d.a.Mint(t, d.org.ID)
	revoketest.Want(t, d.b, other, 200, "another key is served, and cached")
	d.exec(t, "DELETE FROM api_keys WHERE org_id = ?", d.org.ID)
	d.exec(t, "DELETE FROM organizations WHERE id = ?", d.org.ID)
	revoketest.Within(t, revoketest.Across, d.b, other, 401, "an organization deleted by SQL is seen")
}

// TestReplicasOutage: while b's listening connection is cut, b serves what
// it cached for its ttl, and no longer; once it is back, b forgets what it
// may have missed and hears changes again.
func TestReplicasOutage(t *testing.T) {
	t.Parallel()
	d := newDeployment(t)
	revoketest.Outage(t, d.a, d.b, d.org.ID, d.proxy.Cut, d.proxy.Restore)
}

// TestPutOrganizationAtOnce: in the process that puts an organization,
// its caches see the change from the next request, without waiting for
// the NOTIFY (here it never comes: the listening connection is cut).
func TestPutOrganizationAtOnce(t *testing.T) {
	t.Parallel()
	schema, dsn := newSchema(t)
	db, err := bunstore.Open(ctx, withParams(dsn, map[string]string{"search_path": schema}))
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	if err := bunstore.Migrate(ctx, db); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	direct, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatalf("parse %s: %v", dsn, err)
	}
	proxy := testenv.NewProxy(t, net.JoinHostPort(direct.Host, strconv.Itoa(int(direct.Port))))
	proxy.Cut()
	host, port, _ := net.SplitHostPort(proxy.Addr())
	p, _ := strconv.Atoi(port)
	cut := direct.Copy()
	cut.Host, cut.Port = host, uint16(p)
	st := bunstore.New(db, bunstore.WithLogger(quietLog), bunstore.WithListenConfig(cut))
	acme := store.Organization{ID: newOrgID(), Plan: store.PlanStarter, RetainerActive: true, APIEnabled: true}
	if err := st.PutOrganization(ctx, acme); err != nil {
		t.Fatal(err)
	}
	r := revoketest.NewReplica(t, st, st, nil)
	key, _ := r.Mint(t, acme.ID)
	revoketest.Want(t, r, key, 200, "the key is served, and cached for an hour")
	acme.APIEnabled = false
	if err := st.PutOrganization(ctx, acme); err != nil {
		t.Fatal(err)
	}
	revoketest.Want(t, r, key, 403, "the next request sees the account switched off")
}

// TestSubscribeReports checks what the triggers report, in commit order:
// the changes that end a cached answer, and not the others (last-use
// times, a put that changes nothing). (TRUNCATE, reported as every
// organization, is left out: it waits for any ANALYZE of the database,
// which other tests run.)
func TestSubscribeReports(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	// A database of its own: the channel is the database's, and this test
	// reports every organization on it (the long id below), which no other
	// test's listener should hear, nor should it hear theirs.
	db, err := bunstore.Open(ctx, newDatabase(t))
	is.NoErr(err)
	t.Cleanup(func() { db.Close() })
	is.NoErr(bunstore.Migrate(ctx, db))
	// st writes, as another process would: what listener hears came
	// through PostgreSQL, not from st's reports to its own subscribers.
	st := bunstore.New(db)
	listener := bunstore.New(db, bunstore.WithLogger(quietLog))
	org1, org2 := newOrgID(), newOrgID()
	acme := store.Organization{ID: org1, Plan: store.PlanStarter, RetainerActive: true, APIEnabled: true}
	is.NoErr(st.PutOrganization(ctx, acme))
	is.NoErr(st.PutOrganization(ctx, store.Organization{ID: org2, Plan: store.PlanStarter}))
	keys := auth.NewKeys(st)
	_, rec, err := keys.Mint(ctx, org1, "ci", nil)
	is.NoErr(err)

	got := make(chan string, 100)
	stop := listener.Subscribe(func(orgID string) {
		if orgID == org1 || orgID == org2 || orgID == auth.AllOrganizations {
			got <- orgID
		}
	})
	defer stop()
	next := func() string {
		t.Helper()
		select {
		case org := <-got:
			return org
		case <-time.After(5 * time.Second):
			t.Fatal("nothing reported within 5s")
			return ""
		}
	}
	is.Equal(next(), auth.AllOrganizations) // listening: forget what may have been missed

	is.NoErr(st.MarkUsed(ctx, map[string]time.Time{rec.ID: time.Now()})) // not reported
	is.NoErr(st.PutOrganization(ctx, acme))                              // unchanged: not reported
	is.NoErr(st.PutOrganization(ctx, store.Organization{ID: org2, Plan: store.PlanGrowth}))
	is.Equal(next(), org2) // the first report is org2's: org1's last use and unchanged put sent nothing
	is.NoErr(keys.Revoke(ctx, org1, rec.ID))
	is.Equal(next(), org1) // a revocation
	acme.Plan = store.PlanGrowth
	is.NoErr(st.PutOrganization(ctx, acme))
	is.Equal(next(), org1) // a plan changed
	_, err = db.ExecContext(ctx, "UPDATE api_keys SET org_id = ? WHERE id = ?", org2, rec.ID)
	is.NoErr(err)
	is.Equal(next(), org1) // a key moved: both organizations
	is.Equal(next(), org2)

	long := store.Organization{ID: strings.Repeat("o", 8000), Plan: store.PlanStarter}
	is.NoErr(st.PutOrganization(ctx, long))
	long.Plan = store.PlanGrowth
	is.NoErr(st.PutOrganization(ctx, long)) // an id too long for a notification's payload does not fail the write...
	is.Equal(next(), auth.AllOrganizations) // ...it is reported as every organization
}

// TestMigrationIsRerunnable runs the notification migration's SQL again on
// a migrated schema, as Migrate would after a crash between running it and
// marking it applied.
func TestMigrationIsRerunnable(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db := migrated(t)
	up := migration(t, db, "20260402000001_auth_notify.tx.up.sql") // rendered for the schema, as Migrate does
	tx, err := db.BeginTx(ctx, nil)
	is.NoErr(err)
	defer tx.Rollback()
	_, err = tx.ExecContext(ctx, up)
	is.NoErr(err) // again, on a schema that has it
	var n int
	is.NoErr(tx.NewRaw("SELECT count(*) FROM pg_trigger WHERE tgname LIKE 'clientstatus_auth_notify%' AND tgrelid IN (?::regclass, ?::regclass)",
		"organizations", "api_keys").Scan(ctx, &n))
	is.Equal(n, 6) // each trigger once
}

// quietLog keeps the listening connection's reports out of the test's
// output.
var quietLog = slog.New(slog.NewTextHandler(io.Discard, nil))
