package bunstore_test

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/matryer/is"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/internal/test/revoketest"
	"github.com/clientstatus/clientstatus/store"
)

// TestPgdriverSeesRevocations runs two replicas on one schema, a on pgx
// (Open's) and b on Bun's own pgdriver: a key revoked on either is
// refused by the other within a second, although its cache would
// remember it for an hour.
func TestPgdriverSeesRevocations(t *testing.T) {
	t.Parallel()
	schema, dsn := newSchema(t)
	dsn = withParams(dsn, map[string]string{"search_path": schema})
	pgxDB, err := bunstore.Open(ctx, dsn)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { pgxDB.Close() })
	if err := bunstore.Migrate(ctx, pgxDB); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	pgDB := bun.NewDB(sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dsn))), pgdialect.New())
	t.Cleanup(func() { pgDB.Close() })

	stA := bunstore.New(pgxDB, bunstore.WithLogger(quietLog))
	stB := bunstore.New(pgDB, bunstore.WithLogger(quietLog))
	org := store.Organization{ID: newOrgID(), Name: "Acme", Plan: store.PlanStarter, RetainerActive: true, APIEnabled: true}
	if err := stB.PutOrganization(ctx, org); err != nil {
		t.Fatalf("put organization through pgdriver: %v", err)
	}
	revoketest.Listening(t, stA)
	revoketest.Listening(t, stB) // pgdriver listens
	a := revoketest.NewReplica(t, stA, stA, nil)
	b := revoketest.NewReplica(t, stB, stB, nil)

	for _, tc := range []struct {
		name          string
		revoker, peer *revoketest.Replica
	}{{"revoked on pgx, refused on pgdriver", a, b}, {"revoked on pgdriver, refused on pgx", b, a}} {
		t.Run(tc.name, func(t *testing.T) {
			key, id := tc.revoker.Mint(t, org.ID)
			revoketest.Want(t, tc.revoker, key, 200, "the revoker serves the key")
			revoketest.Want(t, tc.peer, key, 200, "the peer serves the key, and caches it for an hour")
			tc.revoker.Revoke(t, org.ID, id)
			took := revoketest.Within(t, revoketest.Across, tc.peer, key, 401, "the peer hears of the revocation through PostgreSQL")
			t.Logf("refused %v after the revocation", took)
		})
	}
}

// fakeDriver is a database/sql driver that is neither pgx nor pgdriver.
type fakeDriver struct{}

func (fakeDriver) Open(string) (driver.Conn, error) { return nil, errors.New("never connected") }

func init() { sql.Register("bunstore-test-fake", fakeDriver{}) }

func TestNewRefusesADriverItCannotListenThrough(t *testing.T) {
	is := is.New(t)
	sqldb, err := sql.Open("bunstore-test-fake", "")
	is.NoErr(err)
	db := bun.NewDB(sqldb, pgdialect.New())
	t.Cleanup(func() { db.Close() })

	msg := func(opts ...bunstore.Option) (msg string) {
		defer func() { msg = fmt.Sprint(recover()) }()
		bunstore.New(db, opts...)
		return ""
	}
	got := msg()
	is.True(strings.Contains(got, "bunstore_test.fakeDriver")) // names the driver
	is.True(strings.Contains(got, "pgx"))                      // and the ones to use
	is.True(strings.Contains(got, "pgdriver"))
	is.True(strings.Contains(got, "WithListenConfig"))

	cfg, err := pgx.ParseConfig("postgres://u@127.0.0.1:1/x")
	is.NoErr(err)
	is.Equal(msg(bunstore.WithListenConfig(cfg)), "<nil>") // listening through pgx elsewhere: accepted

	for _, open := range []func() *sql.DB{
		func() *sql.DB { d, _ := sql.Open("pgx", "postgres://u@127.0.0.1:1/x"); return d },
		func() *sql.DB {
			return sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN("postgres://u@127.0.0.1:1/x")))
		},
	} {
		db := bun.NewDB(open(), pgdialect.New())
		t.Cleanup(func() { db.Close() })
		func() {
			defer func() { is.Equal(recover(), nil) }() // pgx and pgdriver: accepted, never connected
			bunstore.New(db)
		}()
	}
}
