package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/internal/test/testenv"
)

// TestReloadPostgres is testReload on PostgreSQL, where a reload is one
// transaction.
func TestReloadPostgres(t *testing.T) {
	testReload(t, "-database-url", testSchema(t, testenv.PostgresURL(t)))
}

// TestReloadIsAtomicPostgres is testReloadIsAtomic on PostgreSQL, with
// fewer rounds: each reload is a transaction of some hundred statements.
func TestReloadIsAtomicPostgres(t *testing.T) {
	testReloadIsAtomic(t, 3, "-database-url", testSchema(t, testenv.PostgresURL(t)))
}

// TestReloadRollsBackPostgres makes the database refuse the change
// half-way (a trigger of the test's refuses invoice i4, the last item
// written) and checks that the reload fails, logs why, and leaves every
// answer as it was: the change is one transaction. Once the database takes
// it, the same file applies.
func TestReloadRollsBackPostgres(t *testing.T) {
	is := is.New(t)
	dsn := testSchema(t, testenv.PostgresURL(t))
	name := filepath.Join(t.TempDir(), "data.json")
	beforeReload().write(t, name)
	s := startServer(t, nil, "-data", name, "-database-url", dsn)
	paths := []struct{ path, key string }{
		{"/v1/projects", keyA}, {"/v1/projects/p2", keyA}, {"/v1/projects/p3", keyA},
		{"/v1/invoices", keyA}, {"/v1/projects", keyAOld}, {"/v1/projects", keyB},
	}
	answers := func() []string {
		var out []string
		for _, p := range paths {
			res := read(t, s, p.path, p.key)
			out = append(out, fmt.Sprintf("%s %s -> %d %s", p.key, p.path, res.status, res.body))
		}
		return append(out, "d1: "+download(t, s, "d1", keyA))
	}
	want := answers()

	db, err := bunstore.Open(context.Background(), dsn)
	is.NoErr(err)
	defer db.Close()
	_, err = db.ExecContext(context.Background(), `
		CREATE FUNCTION refuse_i4() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			IF NEW.id = 'i4' THEN RAISE EXCEPTION 'the test refuses invoice i4'; END IF;
			RETURN NEW;
		END $$;
		CREATE TRIGGER refuse_i4 BEFORE INSERT OR UPDATE ON invoices FOR EACH ROW EXECUTE FUNCTION refuse_i4()`)
	is.NoErr(err)

	afterReload().write(t, name)
	logged := len(s.stderr.String())
	err = s.reload(t)
	is.True(err != nil) // the database refused the change
	t.Log(err)
	log := s.stderr.String()[logged:]
	is.True(strings.Contains(log, "the data file does not load"))
	is.True(strings.Contains(log, `invoices[2] (id \"i4\")`)) // naming the item
	is.Equal(answers(), want)                                 // nothing of the change is served

	_, err = db.ExecContext(context.Background(), "DROP TRIGGER refuse_i4 ON invoices")
	is.NoErr(err)
	is.NoErr(s.reload(t))
	is.Equal(read(t, s, "/v1/projects/p3", keyA).status, 404)
	is.Equal(read(t, s, "/v1/projects", keyAOld).status, 401)
	is.Equal(download(t, s, "d1", keyA), "second bytes")
}
