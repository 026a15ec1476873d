package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"time"

	"github.com/clientstatus/clientstatus/tools/internal/loadgen"
)

// path is the request every measurement sends.
const path = "/v1/invoices?limit=20"

// Organization sizes that are not flags.
const (
	ownInvoices   = 137 // the organization of runs 1, 2 and 6
	smallInvoices = 100 // the small organization of the flatness runs
)

// side is one server and organization measured: the URL of the request
// and a key. label, when set, says in the table which it is.
type side struct {
	label string
	url   string
	key   string
}

// goal is a run's target: the ratio at least x (the library against a
// yardstick) or at most x (how much slower a bigger case is).
type goal struct {
	atLeast bool
	x       float64
}

// ratio is subject/reference for an at-least goal, reference/subject for
// an at-most one: in both, how the subject compares to what it is held
// against, the way the target reads.
func (g goal) ratio(subject, reference float64) float64 {
	if g.atLeast {
		return subject / reference
	}
	return reference / subject
}

// met reports whether ratio r meets the goal.
func (g goal) met(r float64) bool {
	if g.atLeast {
		return r >= g.x
	}
	return r <= g.x
}

// String is the target as the table shows it.
func (g goal) String() string {
	if g.atLeast {
		return fmt.Sprintf(">= %.1fx", g.x)
	}
	return fmt.Sprintf("<= %.1fx", g.x)
}

// runDef is one row of the table: two sides measured in alternation,
// the subject (the "clientstatus" column) and the reference (the
// "yardstick" column).
type runDef struct {
	n       int
	name    string // what -run matches
	title   string
	db      bool // needs PostgreSQL
	others  bool // needs -others > 0
	goal    goal
	prepare func(ctx context.Context, b *bench) (subject, reference side, err error)
}

// runs are the runs of the issue, sized by cfg.
func runs(cfg config) []runDef {
	return []runDef{
		{n: 1, name: "memory-vs-static", goal: goal{true, 0.9},
			title: fmt.Sprintf("memory store, %d invoices, vs static bytes", ownInvoices),
			prepare: func(ctx context.Context, b *bench) (side, side, error) {
				return b.versusStatic(ctx, false)
			}},
		{n: 2, name: "postgres-vs-pgx", db: true, goal: goal{true, 1.0},
			title: fmt.Sprintf("PostgreSQL, %d invoices, vs pgx by hand", ownInvoices),
			prepare: func(ctx context.Context, b *bench) (side, side, error) {
				return b.versusPgx(ctx, ownInvoices)
			}},
		{n: 3, name: "postgres-medium-vs-pgx", db: true, goal: goal{true, 1.0},
			title: fmt.Sprintf("PostgreSQL, %s invoices, vs pgx by hand", thousands(float64(cfg.medium))),
			prepare: func(ctx context.Context, b *bench) (side, side, error) {
				return b.versusPgx(ctx, cfg.medium)
			}},
		{n: 4, name: "flat-memory", goal: goal{false, 1.5},
			title: fmt.Sprintf("page 1 flat, memory: %d vs %s invoices", smallInvoices, thousands(float64(cfg.large))),
			prepare: func(ctx context.Context, b *bench) (side, side, error) {
				return b.flat(ctx, false)
			}},
		{n: 5, name: "flat-postgres", db: true, goal: goal{false, 1.5},
			title: fmt.Sprintf("page 1 flat, PostgreSQL: %d vs %s invoices", smallInvoices, thousands(float64(cfg.large))),
			prepare: func(ctx context.Context, b *bench) (side, side, error) {
				return b.flat(ctx, true)
			}},
		{n: 6, name: "others-postgres", db: true, others: true, goal: goal{false, 1.5},
			title: fmt.Sprintf("PostgreSQL, %d own invoices among %s of others, vs run 2 (flat)", ownInvoices, thousands(float64(cfg.others))),
			prepare: func(ctx context.Context, b *bench) (side, side, error) {
				return b.amongOthers(ctx)
			}},
		{n: 7, name: "memory-vs-static-headers", goal: goal{true, 0.9},
			title: fmt.Sprintf("memory store, %d invoices, vs static bytes with the library's headers", ownInvoices),
			prepare: func(ctx context.Context, b *bench) (side, side, error) {
				return b.versusStatic(ctx, true)
			}},
	}
}

// libSide is the library's side for an organization's key on a server.
func libSide(s *server, k orgKey, label string) side {
	return side{label: label, url: s.url + path, key: k.key}
}

// versusStatic prepares runs 1 and 7: the library on memory, and the
// static yardstick serving the body the library answered once, and with
// withHeaders the library's headers too.
func (b *bench) versusStatic(ctx context.Context, withHeaders bool) (side, side, error) {
	mem, err := b.memory()
	if err != nil {
		return side{}, side{}, err
	}
	k, err := mem.org(ctx, ownInvoices)
	if err != nil {
		return side{}, side{}, err
	}
	lib := libSide(mem.lib, k, "")
	resp, body, err := get(ctx, fetchClient, lib.url, lib.key, "")
	if err != nil {
		return side{}, side{}, err
	}
	var hd http.Header
	if withHeaders {
		hd = resp.Header
	}
	st, err := b.serve(staticHandler(k.hash, body, hd))
	if err != nil {
		return side{}, side{}, err
	}
	ref := side{url: st.url + path, key: k.key}
	if got, err := fetch(ctx, ref); err != nil || !bytes.Equal(got, body) {
		return side{}, side{}, fmt.Errorf("the static yardstick does not answer the library's bytes (%v)", err)
	}
	return lib, ref, nil
}

// versusPgx prepares runs 2 and 3: the library on PostgreSQL and the pgx
// yardstick, for the organization with n invoices. Both must answer the
// same JSON value.
func (b *bench) versusPgx(ctx context.Context, n int) (side, side, error) {
	pg, err := b.postgres(ctx, &b.pg, "")
	if err != nil {
		return side{}, side{}, err
	}
	k, err := pg.org(ctx, n)
	if err != nil {
		return side{}, side{}, err
	}
	pool, err := pg.pgxPool(ctx)
	if err != nil {
		return side{}, side{}, err
	}
	srv, err := b.serve(pgxHandler(pool, pg.schema, false, func(credential string) (string, bool) {
		return k.org, sameKey(credential, k.hash)
	}))
	if err != nil {
		return side{}, side{}, err
	}
	lib, ref := libSide(pg.lib, k, ""), side{url: srv.url + path, key: k.key}
	if err := sameJSON(ctx, lib, ref); err != nil {
		return side{}, side{}, err
	}
	return lib, ref, nil
}

// flat prepares runs 4 and 5: the library for the large organization (the
// subject) and the small one (the reference), on memory or PostgreSQL.
func (b *bench) flat(ctx context.Context, postgres bool) (side, side, error) {
	var (
		srv          *server
		small, large orgKey
		err          error
	)
	if postgres {
		var pg *pgEnv
		if pg, err = b.postgres(ctx, &b.pg, ""); err != nil {
			return side{}, side{}, err
		}
		srv = pg.lib
		if small, err = pg.org(ctx, smallInvoices); err == nil {
			large, err = pg.org(ctx, b.cfg.large)
		}
	} else {
		var mem *memoryEnv
		if mem, err = b.memory(); err != nil {
			return side{}, side{}, err
		}
		srv = mem.lib
		if small, err = mem.org(ctx, smallInvoices); err == nil {
			large, err = mem.org(ctx, b.cfg.large)
		}
	}
	if err != nil {
		return side{}, side{}, err
	}
	subject := libSide(srv, large, thousands(float64(b.cfg.large))+" invoices")
	reference := libSide(srv, small, fmt.Sprintf("%d invoices", smallInvoices))
	for _, s := range []side{subject, reference} {
		if _, err := fetch(ctx, s); err != nil {
			return side{}, side{}, err
		}
	}
	return subject, reference, nil
}

// amongOthers prepares run 6: the library for the organization with 137
// invoices in the schema where others hold -others rows (the subject),
// and run 2's library side, measured again in alternation (the reference).
func (b *bench) amongOthers(ctx context.Context) (side, side, error) {
	pg, err := b.postgres(ctx, &b.pg, "")
	if err != nil {
		return side{}, side{}, err
	}
	own, err := pg.org(ctx, ownInvoices)
	if err != nil {
		return side{}, side{}, err
	}
	others, err := b.postgres(ctx, &b.others, "_others")
	if err != nil {
		return side{}, side{}, err
	}
	k, err := others.withOthers(ctx, ownInvoices, b.cfg.others)
	if err != nil {
		return side{}, side{}, err
	}
	subject := libSide(others.lib, k, "+"+thousands(float64(b.cfg.others))+" others")
	reference := libSide(pg.lib, own, "run 2's side")
	for _, s := range []side{subject, reference} {
		if _, err := fetch(ctx, s); err != nil {
			return side{}, side{}, err
		}
	}
	return subject, reference, nil
}

// fetch sends the side's request once and returns the body of its 200.
func fetch(ctx context.Context, s side) ([]byte, error) {
	_, body, err := get(ctx, fetchClient, s.url, s.key, "")
	return body, err
}

// fetchClient sends the requests that check a run's sides.
var fetchClient = &http.Client{Timeout: 30 * time.Second}

// get sends GET url with key and, when etag is not "", If-None-Match:
// etag, on client, and returns the answer and its body. An answer other
// than 200, or 304 to an If-None-Match, is an error.
func get(ctx context.Context, client *http.Client, url, key, etag string) (*http.Response, []byte, error) {
	req, err := loadgen.Get(url, key)
	if err != nil {
		return nil, nil, err
	}
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	resp, err := client.Do(req.WithContext(ctx))
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK && (etag == "" || resp.StatusCode != http.StatusNotModified) {
		err = fmt.Errorf("GET %s: status %d: %.400s", url, resp.StatusCode, body)
	}
	return resp, body, err
}

// sameJSON checks that two sides answer the same JSON value (the bytes
// may differ in layout).
func sameJSON(ctx context.Context, a, b side) error {
	ab, err := fetch(ctx, a)
	if err != nil {
		return err
	}
	bb, err := fetch(ctx, b)
	if err != nil {
		return err
	}
	var av, bv any
	if err := json.Unmarshal(ab, &av); err != nil {
		return err
	}
	if err := json.Unmarshal(bb, &bv); err != nil {
		return err
	}
	if !reflect.DeepEqual(av, bv) {
		return fmt.Errorf("the yardstick's answer differs from the library's:\nlibrary:   %.400s\nyardstick: %.400s", ab, bb)
	}
	return nil
}
