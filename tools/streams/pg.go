package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/store"
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
	stop, endStreams := context.WithCancel(ctx)
	h := statusapi.New(st, resolver, ratelimit.NewMemory(), statusapi.WithShutdown(stop),
		statusapi.WithSigningKey([]byte("0123456789abcdef0123456789abcdef")), statusapi.WithLogger(quiet))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		endStreams()
		db.Close()
		return nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	srv.RegisterOnShutdown(endStreams)
	go func() { _ = srv.Serve(ln) }()
	return &replica{db: db, st: st, addr: ln.Addr().String(), stop: func() {
		endStreams()
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
	admin, err := bunstore.Open(ctx, dsn)
	if err != nil {
		return fmt.Errorf("-pg: %w", err)
	}
	defer admin.Close()
	r := make([]byte, 6)
	_, _ = rand.Read(r)
	schema := "clientstatus_streams_" + hex.EncodeToString(r)
	if _, err := admin.ExecContext(ctx, "CREATE SCHEMA ?", bun.Ident(schema)); err != nil {
		return err
	}
	defer func() { _, _ = admin.ExecContext(context.Background(), "DROP SCHEMA ? CASCADE", bun.Ident(schema)) }()
	u, err := url.Parse(dsn)
	if err != nil {
		return fmt.Errorf("-pg: not a URL")
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	mdb, err := bunstore.Open(ctx, u.String())
	if err != nil {
		return err
	}
	err = bunstore.Migrate(ctx, mdb)
	mdb.Close()
	if err != nil {
		return err
	}
	a, err := openReplica(ctx, u.String())
	if err != nil {
		return err
	}
	defer a.stop()
	b, err := openReplica(ctx, u.String())
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
	c, err := net.Dial("tcp", b.addr)
	if err != nil {
		return err
	}
	defer c.Close()
	fmt.Fprintf(c, "GET /v1/events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\nAuthorization: Bearer %s\r\n\r\n", key)
	br := bufio.NewReader(c)
	status, err := br.ReadString('\n')
	if err != nil || !strings.Contains(status, " 200 ") {
		return fmt.Errorf("stream: %q %v", status, err)
	}
	var mu sync.Mutex
	arrived := map[string]time.Time{}
	got := make(chan struct{}, 1)
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
					select {
					case got <- struct{}{}:
					default:
					}
				}
			}
		}
	}()
	time.Sleep(500 * time.Millisecond) // the stream's headers and listener up

	if foreign > 0 {
		stop, err := holdForeign(ctx, admin, dsn, foreign)
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
		deadline := time.Now().Add(10 * time.Second)
		for {
			mu.Lock()
			n := 0
			for id := range committed {
				if _, ok := arrived[id]; ok {
					n++
				}
			}
			mu.Unlock()
			if n == writes || time.Now().After(deadline) {
				break
			}
			select {
			case <-got:
			case <-time.After(100 * time.Millisecond):
			}
		}
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
	r := make([]byte, 6)
	_, _ = rand.Read(r)
	name := "clientstatus_foreign_" + hex.EncodeToString(r)
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
