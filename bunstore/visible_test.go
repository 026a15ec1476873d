package bunstore_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"
	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/internal/test/testenv"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/store"
)

// foreignTx opens a transaction that holds a transaction id, and rolls it
// back when the test ends: in a database of its own on the same server
// (otherDB) or in db's database, on a scratch table of a schema of its
// own.
func foreignTx(t *testing.T, db *bun.DB, otherDB bool) {
	t.Helper()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "bunstore_foreign_" + hex.EncodeToString(b)
	dsn := testenv.PostgresURL(t)
	if otherDB {
		// CREATE and DROP DATABASE checkpoint: no statement timeout.
		untimed := func(ctx context.Context, query string) error {
			conn, err := db.Conn(ctx)
			if err != nil {
				return err
			}
			defer conn.Close()
			if _, err := conn.ExecContext(ctx, "SET statement_timeout = 0"); err != nil {
				return err
			}
			defer func() { _, _ = conn.ExecContext(ctx, "RESET statement_timeout") }()
			_, err = conn.ExecContext(ctx, query, bun.Ident(name))
			return err
		}
		if err := untimed(ctx, "CREATE DATABASE ?"); err != nil {
			t.Fatalf("create database: %v", err)
		}
		t.Cleanup(func() {
			if err := untimed(context.Background(), "DROP DATABASE IF EXISTS ? WITH (FORCE)"); err != nil {
				t.Errorf("drop database %s: %v", name, err)
			}
		})
		u, err := url.Parse(dsn)
		if err != nil {
			t.Skipf("TEST_DATABASE_URL is not a URL: %v", err)
		}
		u.Path = "/" + name
		dsn = u.String()
	}
	other, err := bunstore.Open(ctx, dsn)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	if !otherDB {
		if _, err := other.ExecContext(ctx, "CREATE SCHEMA ?; CREATE TABLE ?.scratch (n int)", bun.Ident(name), bun.Ident(name)); err != nil {
			t.Fatalf("scratch table: %v", err)
		}
		t.Cleanup(func() {
			_, _ = db.ExecContext(context.Background(), "DROP SCHEMA IF EXISTS ? CASCADE", bun.Ident(name))
		})
	}
	tx, err := other.BeginTx(ctx, &sql.TxOptions{})
	if err != nil {
		t.Fatalf("begin: %v", err)
	}
	t.Cleanup(func() { _ = tx.Rollback(); other.Close() })
	if otherDB {
		_, err = tx.ExecContext(ctx, "SELECT pg_current_xact_id()")
	} else {
		_, err = tx.ExecContext(ctx, "INSERT INTO ?.scratch VALUES (1)", bun.Ident(name))
	}
	if err != nil {
		t.Fatalf("foreign write: %v", err)
	}
}

// TestEventsForeignTransaction: a transaction held open in another
// database of the server, or in this one on a table that is not the
// store's, delays no event: the first read after a commit has it, and
// SyncedThrough is the current second (or the one before).
func TestEventsForeignTransaction(t *testing.T) {
	t.Parallel()
	for _, otherDB := range []bool{true, false} {
		t.Run(map[bool]string{true: "other database", false: "scratch table"}[otherDB], func(t *testing.T) {
			t.Parallel()
			is := is.New(t)
			db := migrated(t)
			st := bunstore.New(db)
			is.NoErr(st.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "A", Plan: "growth"}))
			foreignTx(t, db, otherDB)
			last := ""
			for i := range 3 {
				id := fmt.Sprint("p", i)
				is.NoErr(st.PutProject(ctx, store.Project{ID: id, OrgID: "org_a", Name: "P", Status: store.ProjectPlanned}))
				page, err := st.ListEvents(ctx, "org_a", store.EventQuery{After: last, Limit: 10})
				is.NoErr(err)
				is.Equal(len(page.Events), 1) // readable at once, the foreign transaction open
				is.Equal(page.Events[0].ItemID, id)
				last = page.Last
				latest, err := st.LatestEvent(ctx, "org_a")
				is.NoErr(err)
				is.Equal(latest, last)
			}
			before := time.Now().Truncate(time.Second).Add(-time.Second)
			page, err := st.ListProjects(ctx, "org_a", store.ProjectQuery{PageRequest: all, ListFilter: store.ListFilter{UpdatedSince: time.Unix(1, 0)}})
			is.NoErr(err)
			is.True(!page.SyncedThrough.Before(before)) // not held back by the foreign transaction
		})
	}
}

// TestEventsOpenWriter: a transaction that wrote the store's data and
// stays open delays its own events only: others' are read at once, and
// its own come after them once it commits, nothing lost; a rolled-back
// one's never come.
func TestEventsOpenWriter(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db := migrated(t)
	st := bunstore.New(db)
	is.NoErr(st.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "A", Plan: "growth"}))
	held, err := db.BeginTx(ctx, &sql.TxOptions{})
	is.NoErr(err)
	defer func() { _ = held.Rollback() }()
	is.NoErr(st.WithTx(held).PutProject(ctx, store.Project{ID: "held", OrgID: "org_a", Name: "Held", Status: store.ProjectPlanned}))
	gone, err := db.BeginTx(ctx, &sql.TxOptions{})
	is.NoErr(err)
	defer func() { _ = gone.Rollback() }()
	is.NoErr(st.WithTx(gone).PutProject(ctx, store.Project{ID: "gone", OrgID: "org_a", Name: "Gone", Status: store.ProjectPlanned}))
	// The open writer reads its own store's events: no wait, no lock kept.
	inside, err := st.WithTx(held).ListEvents(ctx, "org_a", store.EventQuery{Limit: 10})
	is.NoErr(err)
	is.Equal(len(inside.Events), 0)

	is.NoErr(st.PutProject(ctx, store.Project{ID: "other", OrgID: "org_a", Name: "Other", Status: store.ProjectPlanned}))
	during, err := st.ListEvents(ctx, "org_a", store.EventQuery{Limit: 10})
	is.NoErr(err)
	is.Equal(len(during.Events), 1) // the open writer holds back only its own
	is.Equal(during.Events[0].ItemID, "other")
	is.Equal(during.Total, 1)

	is.NoErr(gone.Rollback())
	is.NoErr(held.Commit())
	after, err := st.ListEvents(ctx, "org_a", store.EventQuery{After: during.Last, Limit: 10})
	is.NoErr(err)
	is.Equal(len(after.Events), 1)
	is.Equal(after.Events[0].ItemID, "held") // after the others, once committed
	full, err := st.ListEvents(ctx, "org_a", store.EventQuery{Limit: 10})
	is.NoErr(err)
	is.Equal(full.Events, append(during.Events, after.Events...))
}

// TestEventsVisibleOrderInterleavings is the feed's property on
// PostgreSQL and memory: writers whose transactions stay open across the
// others' writes, commit or roll back in random order; transactions
// outside the store stay open meanwhile; a reader reads pages of random
// sizes, each resuming from the last id it saw. Every committed write's
// event is seen exactly once, none of a rolled-back one, and the order
// the reader saw is the order a full read gives at the end. Each seed is
// an organization of its own in one schema; nothing waits for time.
func TestEventsVisibleOrderInterleavings(t *testing.T) {
	t.Parallel()
	db := migrated(t)
	db.SetMaxOpenConns(10)
	pg := bunstore.New(db)
	foreign, err := bunstore.Open(ctx, testenv.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { foreign.Close() })
	mem := memstore.New()
	for seed := range 120 {
		for _, onPG := range []bool{true, false} {
			name := fmt.Sprintf("seed %d memory", seed)
			if onPG {
				name = fmt.Sprintf("seed %d postgres", seed)
			}
			if !t.Run(name, func(t *testing.T) { interleave(t, uint64(seed), onPG, db, pg, foreign, mem) }) {
				return
			}
		}
	}
}

// pendingWriter is interleave's writer: its transaction (on PostgreSQL)
// or the writes it will apply at commit (memory).
type pendingWriter struct {
	tx  *bun.Tx
	ids []string
}

func interleave(t *testing.T, seed uint64, onPG bool, db *bun.DB, pg *bunstore.Store, foreign *bun.DB, mem *memstore.Store) {
	is := is.New(t)
	r := mrand.New(mrand.NewPCG(seed, 33))
	org := fmt.Sprintf("org_%d", seed)
	var ev store.Events = mem
	if onPG {
		ev = pg
	}
	put := func(st interface {
		PutProject(context.Context, store.Project) error
	}, id string) {
		is.NoErr(st.PutProject(ctx, store.Project{ID: id, OrgID: org, Name: id, Status: store.ProjectPlanned}))
	}
	if onPG {
		is.NoErr(pg.PutOrganization(ctx, store.Organization{ID: org, Name: "O", Plan: "growth"}))
	} else {
		is.NoErr(mem.PutOrganization(ctx, store.Organization{ID: org, Name: "O", Plan: "growth"}))
	}
	var writers []*pendingWriter
	var foreigns []bun.Tx
	defer func() {
		for _, w := range writers {
			if w.tx != nil {
				_ = w.tx.Rollback()
			}
		}
		for _, f := range foreigns {
			_ = f.Rollback()
		}
	}()
	committed := map[string]bool{}
	seen := []string{} // the reader's event ids, in the order read
	seenItems := map[string]int{}
	last := ""
	read := func(limit int) int {
		page, err := ev.ListEvents(ctx, org, store.EventQuery{After: last, Limit: limit})
		is.NoErr(err)
		for _, e := range page.Events {
			seen = append(seen, e.ID)
			seenItems[e.ItemID]++
		}
		last = page.Last
		return len(page.Events)
	}
	n := 0
	for range 12 + r.IntN(12) {
		switch op := r.IntN(6); {
		case op == 0 && len(writers) < 4: // a writer begins and writes
			w := &pendingWriter{}
			if onPG {
				tx, err := db.BeginTx(ctx, &sql.TxOptions{})
				is.NoErr(err)
				w.tx = &tx
			}
			writers = append(writers, w)
			fallthrough
		case op <= 1 && len(writers) > 0: // an open writer writes
			w := writers[r.IntN(len(writers))]
			n++
			id := fmt.Sprint("w", n)
			w.ids = append(w.ids, id)
			if onPG {
				put(pg.WithTx(*w.tx), id)
			}
		case op == 2 && len(writers) > 0: // a writer ends: commit, or now and then roll back
			i := r.IntN(len(writers))
			w := writers[i]
			writers = slices.Delete(writers, i, i+1)
			commit := r.IntN(5) > 0
			switch {
			case onPG && commit:
				is.NoErr(w.tx.Commit())
			case onPG:
				is.NoErr(w.tx.Rollback())
			case commit:
				for _, id := range w.ids {
					put(mem, id)
				}
			}
			if commit {
				for _, id := range w.ids {
					committed[id] = true
				}
			}
		case op == 3: // a write of its own, committed at once
			n++
			id := fmt.Sprint("w", n)
			if onPG {
				put(pg, id)
			} else {
				put(mem, id)
			}
			committed[id] = true
		case op == 4 && onPG && len(foreigns) < 2: // a transaction outside the store begins
			tx, err := foreign.BeginTx(ctx, &sql.TxOptions{})
			is.NoErr(err)
			_, err = tx.ExecContext(ctx, "SELECT pg_current_xact_id()")
			is.NoErr(err)
			foreigns = append(foreigns, tx)
		default: // the reader reads a page, and now and then to the end
			read(1 + r.IntN(3))
			if r.IntN(2) == 0 {
				for read(store.MaxLimit) > 0 {
				}
				for id := range committed {
					is.Equal(seenItems[id], 1) // committed, so read at once, the others still open
				}
			}
		}
	}
	for _, w := range writers {
		if onPG {
			is.NoErr(w.tx.Commit())
			w.tx = nil
		} else {
			for _, id := range w.ids {
				put(mem, id)
			}
		}
		for _, id := range w.ids {
			committed[id] = true
		}
	}
	for read(1+r.IntN(3)) > 0 {
	}
	for id, c := range seenItems {
		is.Equal(c, 1)         // each event once
		is.True(committed[id]) // never a rolled-back write's
	}
	is.Equal(len(seenItems), len(committed)) // every committed write's
	full, err := ev.ListEvents(ctx, org, store.EventQuery{Limit: store.MaxLimit})
	is.NoErr(err)
	ids := make([]string, len(full.Events))
	for i, e := range full.Events {
		ids[i] = e.ID
	}
	is.Equal(ids, seen) // the order read is the order kept
	is.Equal(full.Total, len(seen))
}

// TestEventsNeedReadCommittedWriter: on a connection that cannot number
// (read-only, or above READ COMMITTED), an event read fails with an error
// that names why, rather than serving a feed that never moves.
func TestEventsNeedReadCommittedWriter(t *testing.T) {
	t.Parallel()
	schema, dsn := newSchema(t)
	rw, err := bunstore.Open(ctx, withParams(dsn, map[string]string{"search_path": schema}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rw.Close() })
	is := is.New(t)
	is.NoErr(bunstore.Migrate(ctx, rw))
	st := bunstore.New(rw)
	is.NoErr(st.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "A", Plan: "growth"}))
	is.NoErr(st.PutProject(ctx, store.Project{ID: "p1", OrgID: "org_a", Name: "P", Status: store.ProjectPlanned}))
	for setting, says := range map[string]string{"default_transaction_read_only": "read-only", "default_transaction_isolation": "READ COMMITTED only"} {
		value := "on"
		if setting == "default_transaction_isolation" {
			value = "serializable"
		}
		db, err := bunstore.Open(ctx, withParams(dsn, map[string]string{"search_path": schema, setting: value}))
		is.NoErr(err)
		t.Cleanup(func() { db.Close() })
		_, err = bunstore.New(db).ListEvents(ctx, "org_a", store.EventQuery{Limit: 10})
		is.True(errors.Is(err, store.ErrUnavailable)) // a failure, not an empty feed
		is.True(strings.Contains(err.Error(), says))  // that says why
	}
}
