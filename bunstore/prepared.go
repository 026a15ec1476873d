package bunstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/store"
)

// The hot reads of a polling client, the data version (the response
// cache's check) and a page of invoices, skip Bun on a Store whose db is
// a *bun.DB on the pgx driver (Open's): they run through pgx as statements
// prepared once per connection, planned once under Open's plan_cache_mode
// (TestPreparedListPlans checks the generic plans), and scan their rows
// without reflection. Their answers are those of Bun's queries, which
// remain for any other db and any other list. A statement whose tables a
// migration changed fails once, is dropped from pgx's cache, and onPgx
// runs the read again at once: no request fails for it.

// onPgx runs fn on a pgx connection of the store's pool, and reports
// whether it could: false, without calling fn, when the store's db is not
// a *bun.DB on the pgx driver.
func (s *Store) onPgx(ctx context.Context, fn func(*pgx.Conn) error) (bool, error) {
	if !s.onPgxDB() {
		return false, nil
	}
	conn, err := s.db.(*bun.DB).DB.Conn(ctx)
	if err != nil {
		return true, err
	}
	defer conn.Close()
	return true, conn.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok { // a driver that embeds stdlib's: not this path's
			return errNotPgx
		}
		err := fn(c.Conn())
		if stalePlan(err) { // pgx has dropped the statement: prepared again
			err = fn(c.Conn())
		}
		return err
	})
}

// onPgxDB reports whether the store's db is a *bun.DB on the pgx driver.
func (s *Store) onPgxDB() bool {
	d, ok := s.db.(*bun.DB)
	if !ok {
		return false
	}
	_, ok = d.DB.Driver().(*stdlib.Driver)
	return ok
}

// stalePlan reports whether err is PostgreSQL's refusal
// (feature_not_supported) to run a statement prepared before a change to
// its result's columns.
func stalePlan(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "0A000" && strings.Contains(pe.Message, "cached plan must not change result type")
}

// errNotPgx is onPgx's error for a connection that is not pgx's.
var errNotPgx = errors.New("bunstore: not a pgx connection")

// statements are the texts of the prepared reads of a store, made once
// per shape (the schema is the store's, fixed).
type statements struct {
	mu    sync.Mutex
	texts map[string]string
}

// text returns the statement named key, made by make the first time.
func (st *statements) text(key string, make func() string) string {
	st.mu.Lock()
	defer st.mu.Unlock()
	if t, ok := st.texts[key]; ok {
		return t
	}
	if st.texts == nil {
		st.texts = map[string]string{}
	}
	t := make()
	st.texts[key] = t
	return t
}

// invoiceListColumns are the columns of a page of invoices, in the order
// preparedInvoices scans them.
const invoiceListColumns = "i.org_id, i.id, i.number, i.project_id, i.status, i.currency, i.total, i.amount_due, i.issued_at, i.due_at, i.paid_at, i.document_key, i.updated_at"

// invoicePageKey is one read of a page of invoices, as a batch asks it.
type invoicePageKey struct {
	org, status, project string
	limit                int
	offset               int64
}

// invoicePages are the batchers of the pages of invoices, one per shape
// of filter: [status][project].
type invoicePages [2][2]*batcher[invoicePageKey, store.Page[store.Invoice]]

func newInvoicePages(s *Store) *invoicePages {
	var p invoicePages
	for _, status := range []bool{false, true} {
		for _, project := range []bool{false, true} {
			p[b2i(status)][b2i(project)] = newBatcher(func(keys []invoicePageKey) (map[invoicePageKey]store.Page[store.Invoice], error) {
				return s.readInvoicePages(status, project, keys)
			}, s.timeout)
		}
	}
	return &p
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// preparedInvoices is ListInvoices' query on pgx for a list of no filter
// but status and project (any other declines: see beyond;
// TestPreparedDeclinesOtherFilters): the same page and total as
// selectPage's, with the organization's data version read in the same
// statement (one snapshot: Page.Version is the version of exactly these
// data), batched with concurrent pages of the same filters (batch.go).
// It reports false when the store is not on pgx, or the query is not of that
// kind. Its error is as list's (see batchError).
func (s *Store) preparedInvoices(ctx context.Context, orgID string, q store.InvoiceQuery) (store.Page[store.Invoice], bool, error) {
	if beyond(q.ListFilter, func(f *store.ListFilter) { f.ProjectID = "" }) || q.Page < 1 || q.Limit < 1 || !s.onPgxDB() {
		return store.Page[store.Invoice]{}, false, nil
	}
	k := invoicePageKey{org: orgID, status: string(q.Status), project: q.ProjectID, limit: q.Limit, offset: offset(q.PageRequest)}
	p, err := s.batches.invoices[b2i(q.Status != "")][b2i(q.ProjectID != "")].read(ctx, k)
	if err = batchError(ctx, func() string { return "list invoices" }, err); err != nil {
		return store.Page[store.Invoice]{}, true, err
	}
	p.Items = slices.Clone(p.Items) // a page that identical reads share
	return p, true, nil
}

// readInvoicePages is a batch of preparedInvoices' reads of one shape, in
// one statement (invoiceListText), under the store's query timeout and no
// reader's context.
func (s *Store) readInvoicePages(status, project bool, keys []invoicePageKey) (map[invoicePageKey]store.Page[store.Invoice], error) {
	ctx, cancel := s.query(context.Background())
	defer cancel()
	orgs, limits, offsets := make([]string, len(keys)), make([]int64, len(keys)), make([]int64, len(keys))
	for i, k := range keys {
		orgs[i], limits[i], offsets[i] = k.org, int64(k.limit), k.offset
	}
	args := []any{pgx.QueryExecModeCacheStatement, orgs, limits, offsets}
	if status {
		args = append(args, mapped(keys, func(k invoicePageKey) string { return k.status }))
	}
	if project {
		args = append(args, mapped(keys, func(k invoicePageKey) string { return k.project }))
	}
	pages := make([]store.Page[store.Invoice], len(keys))
	text := s.invoiceListText(status, project)
	_, err := s.onPgx(ctx, func(c *pgx.Conn) error {
		for i := range pages { // again, after a stale plan
			pages[i] = store.Page[store.Invoice]{Items: make([]store.Invoice, 0, min(keys[i].limit, store.MaxLimit))}
		}
		rows, err := c.Query(ctx, text, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		// One row and one list of destinations for the whole batch, not
		// a dozen allocations a row; the pointer columns are reset before
		// each row, so that each item gets pointers of its own.
		var row invoiceRow
		var n, version, matching int64
		dest := []any{&n, &version, &matching, &row.OrgID, &row.ID, &row.Number, &row.ProjectID, &row.Status, &row.Currency,
			&row.Total, &row.AmountDue, &row.IssuedAt, &row.DueAt, &row.PaidAt, &row.DocumentKey, &row.UpdatedAt}
		past := append(dest[:3:3], make([]any, len(dest)-3)...) // the one row of a page past the end: null columns
		for rows.Next() {
			row.ID, row.ProjectID, row.PaidAt = "", nil, nil
			d := dest
			if rows.RawValues()[3] == nil {
				d = past
			}
			if err := rows.Scan(d...); err != nil {
				return err
			}
			if n < 1 || n > int64(len(pages)) {
				return fmt.Errorf("bunstore: a page of invoices answered for read %d of %d", n, len(pages))
			}
			p := &pages[n-1]
			p.Version, p.Total = version, int(matching)
			if row.ID != "" {
				p.Items = append(p.Items, row.invoice())
			}
		}
		return rows.Err()
	})
	if err != nil {
		return nil, failure(ctx, store.ErrUnavailable, fmt.Sprintf("list invoices (%d pages)", len(keys)), err)
	}
	out := make(map[invoicePageKey]store.Page[store.Invoice], len(keys))
	for i, k := range keys {
		out[k] = pages[i]
	}
	return out, nil
}

// invoiceListText is the statement of a batch of pages of invoices and
// their totals, with a filter on status, on project, or both: $1 holds
// the organizations, $2 the limits, $3 the offsets, then the statuses and
// the projects, as given, one element per page. Each page is
// selectPage's, in invoiceTable's order, by the invoices_list index of the filter's shape; its
// total is tallied's, a sum of rows of item_counts, and its version
// DataVersion's, all in every row with the page's number (from 1) first;
// a page past the end is one row with the number, the version, the total
// and null columns. One statement: every page and version of a batch is
// of the same snapshot.
func (s *Store) invoiceListText(status, project bool) string {
	key := "invoices " + strconv.FormatBool(status) + " " + strconv.FormatBool(project)
	return s.statements.text(key, func() string {
		params, columns, filter, count := "$1::text[], $2::bigint[], $3::bigint[]", "org, lim, off", "", ""
		n := 3
		if status {
			n++
			params += ", $" + strconv.Itoa(n) + "::text[]"
			columns += ", status"
			filter += " AND i.status = q.status"
			count += " AND ic.status = q.status"
		}
		if project {
			n++
			params += ", $" + strconv.Itoa(n) + "::text[]"
			columns += ", project"
			filter += " AND i.project_id = q.project"
			count += " AND ic.project_id = q.project"
		}
		var b strings.Builder
		b.WriteString("SELECT q.n, c.version, c.matching, ")
		b.WriteString(invoiceListColumns)
		b.WriteString(" FROM unnest(" + params + ") WITH ORDINALITY AS q(" + columns + ", n)")
		b.WriteString(" CROSS JOIN LATERAL (SELECT (SELECT coalesce(sum(l.n), 0)::bigint FROM ")
		b.WriteString(s.tableText("data_version_log"))
		b.WriteString(" AS l WHERE l.org_id = q.org) AS version, coalesce(sum(ic.n), 0)::bigint AS matching FROM ")
		b.WriteString(s.tableText("item_counts"))
		b.WriteString(" AS ic WHERE ic.org_id = q.org AND ic.kind = 'invoice'")
		b.WriteString(count)
		b.WriteString(") AS c LEFT JOIN LATERAL (SELECT * FROM ")
		b.WriteString(s.tableText("invoices"))
		b.WriteString(" AS i WHERE i.org_id = q.org")
		b.WriteString(filter)
		b.WriteString(" ORDER BY " + invoiceTable.order + " LIMIT q.lim OFFSET q.off) AS i ON true ORDER BY q.n, " + invoiceTable.order)
		return b.String()
	})
}

// tableText is the store's table name, quoted, as text.
func (s *Store) tableText(name string) string {
	if s.schema == "" {
		return pgx.Identifier{name}.Sanitize()
	}
	return pgx.Identifier{s.schema, name}.Sanitize()
}
