package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/internal/test/testenv"
	"github.com/clientstatus/clientstatus/store"
	"github.com/clientstatus/clientstatus/tools/internal/pgtemp"
)

// replica is one replica of the API on PostgreSQL: a store with its own
// pool and listening connection, and a handler served on a loopback port.
type replica struct {
	db   *bun.DB
	st   *bunstore.Store
	addr string
	stop func()
}

// openReplica opens a replica on the schema of dsn's search_path.
func openReplica(ctx context.Context, dsn string) (*replica, error) {
	db, err := bunstore.Open(ctx, dsn)
	if err != nil {
		return nil, err
	}
	// Warnings (a stream that ends on a failed read) go to stderr.
	quiet := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	st := bunstore.New(db, bunstore.WithLogger(quiet))
	keys := auth.NewKeys(st)
	resolver := auth.NewCache(keys)
	srv, addr, err := serve(st, resolver, quiet)
	if err != nil {
		db.Close()
		return nil, err
	}
	return &replica{db: db, st: st, addr: addr, stop: func() {
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shut)
		_ = resolver.Close()
		_ = keys.Close()
		db.Close()
	}}, nil
}

// runPostgres measures the latency from a commit to its event on a live
// stream of another replica: two replicas (A and B) on one PostgreSQL
// database, in a schema of their own (dropped after); a stream open on
// B; writes committed through A's store (the library's writer) and as
// plain SQL on A's pool, one at a time, gap apart. It reports, for each
// way of writing, p50 and max of the time from the write's commit
// returning to its event's frame read on B's stream.
func runPostgres(ctx context.Context, dsn string, writes int, gap, foreign time.Duration, out io.Writer) error {
	schema, schemaDSN, drop, err := pgtemp.Schema(ctx, dsn, "clientstatus_streams_")
	if err != nil {
		return fmt.Errorf("-pg: %w", err)
	}
	defer drop()
	a, err := openReplica(ctx, schemaDSN)
	if err != nil {
		return err
	}
	defer a.stop()
	b, err := openReplica(ctx, schemaDSN)
	if err != nil {
		return err
	}
	defer b.stop()
	org := store.Organization{ID: "org_a", Name: "A", Plan: store.PlanEnterprise, RetainerActive: true, APIEnabled: true}
	if err := a.st.PutOrganization(ctx, org); err != nil {
		return err
	}
	key, _, err := auth.NewKeys(a.st).Mint(ctx, org.ID, "streams", nil)
	if err != nil {
		return err
	}

	// The stream on B; its reader notes when each item's event arrives.
	c, br, err := openStream(b.addr, key)
	if err != nil {
		return fmt.Errorf("stream: %w", err)
	}
	defer c.Close()
	var mu sync.Mutex
	arrived := map[string]time.Time{}
	go func() {
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			if _, data, ok := strings.Cut(line, "data: "); ok {
				var e struct {
					Data struct{ ID string } `json:"data"`
				}
				if json.Unmarshal([]byte(data), &e) == nil {
					mu.Lock()
					arrived[e.Data.ID] = time.Now()
					mu.Unlock()
				}
			}
		}
	}()
	time.Sleep(500 * time.Millisecond) // the stream's headers and listener up

	if foreign > 0 {
		stop, err := holdForeign(ctx, a.db, dsn, foreign)
		if err != nil {
			return err
		}
		defer stop()
		fmt.Fprintf(out, "a transaction holding an id in another database of the server stays open for %v\n", foreign)
	}
	issued := time.Now().UTC().Truncate(time.Second)
	ways := []struct {
		name  string
		write func(id string) error
	}{
		{"library writer (replica A's store)", func(id string) error {
			return a.st.PutInvoice(ctx, store.Invoice{ID: id, OrgID: org.ID, Number: id, Status: store.InvoiceOpen,
				Currency: "EUR", Total: 100, AmountDue: 100, IssuedAt: issued, DueAt: issued.AddDate(0, 1, 0)})
		}},
		{"plain SQL (replica A's pool)", func(id string) error {
			tx, err := a.db.BeginTx(ctx, nil)
			if err != nil {
				return err
			}
			defer func() { _ = tx.Rollback() }()
			_, err = tx.ExecContext(ctx, `INSERT INTO invoices (org_id, id, number, status, currency, total, amount_due, issued_at, due_at)
				VALUES (?, ?, ?, 'open', 'EUR', 100, 100, ?, ?)`, org.ID, id, id, issued, issued.AddDate(0, 1, 0))
			if err != nil {
				return err
			}
			return tx.Commit()
		}},
	}
	fmt.Fprintf(out, "two replicas on PostgreSQL (schema %s), a stream open on B; %d writes each way, %v apart\n", schema, writes, gap)
	for w, way := range ways {
		committed := map[string]time.Time{}
		for i := range writes {
			id := fmt.Sprintf("w%d_%03d", w, i)
			if err := way.write(id); err != nil {
				return err
			}
			committed[id] = time.Now()
			time.Sleep(gap)
		}
		testenv.Until(10*time.Second, func() bool {
			mu.Lock()
			defer mu.Unlock()
			for id := range committed {
				if _, ok := arrived[id]; !ok {
					return false
				}
			}
			return true
		})
		var lat []time.Duration
		mu.Lock()
		for id, at := range committed {
			if t, ok := arrived[id]; ok {
				lat = append(lat, t.Sub(at))
			}
		}
		mu.Unlock()
		if len(lat) < writes {
			return fmt.Errorf("%s: %d of %d events reached the stream on B within 10 s", way.name, len(lat), writes)
		}
		slices.Sort(lat)
		fmt.Fprintf(out, "%s: commit to event on B: min %v, p50 %v, p90 %v, p99 %v, max %v\n", way.name,
			lat[0].Round(time.Microsecond), lat[len(lat)/2].Round(time.Microsecond), lat[len(lat)*9/10].Round(time.Microsecond),
			lat[len(lat)*99/100].Round(time.Microsecond), lat[len(lat)-1].Round(time.Microsecond))
	}
	return nil
}

// holdForeign creates a database of its own on dsn's server and holds a
// transaction with an id open there for d (or until stop): what stalled
// every event when readers waited for the cluster's oldest transaction.
func holdForeign(ctx context.Context, admin *bun.DB, dsn string, d time.Duration) (stop func(), err error) {
	name := "clientstatus_foreign_" + strings.ToLower(rand.Text()[:12])
	conn, err := admin.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SET statement_timeout = 0"); err != nil {
		return nil, err
	}
	if _, err := conn.ExecContext(ctx, "CREATE DATABASE ?", bun.Ident(name)); err != nil {
		return nil, err
	}
	drop := func() {
		conn, err := admin.Conn(context.Background())
		if err == nil {
			_, _ = conn.ExecContext(context.Background(), "SET statement_timeout = 0")
			_, _ = conn.ExecContext(context.Background(), "DROP DATABASE IF EXISTS ? WITH (FORCE)", bun.Ident(name))
			_, _ = conn.ExecContext(context.Background(), "RESET statement_timeout")
			conn.Close()
		}
	}
	_, _ = conn.ExecContext(ctx, "RESET statement_timeout")
	u, err := url.Parse(dsn)
	if err != nil {
		drop()
		return nil, err
	}
	u.Path = "/" + name
	other, err := bunstore.Open(ctx, u.String())
	if err != nil {
		drop()
		return nil, err
	}
	tx, err := other.BeginTx(ctx, nil)
	if err == nil {
		_, err = tx.ExecContext(ctx, "SELECT pg_current_xact_id()")
	}
	if err != nil {
		other.Close()
		drop()
		return nil, err
	}
	timer := time.AfterFunc(d, func() { _ = tx.Rollback() })
	return func() {
		timer.Stop()
		_ = tx.Rollback()
		other.Close()
		drop()
	}, nil
}
