package bunstore

import (
	"context"
	"errors"
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
// a *bun.DB on the pgx driver (Open's): they run on a connection of the
// pool, through pgx, as statements prepared once per connection and
// cached there (pgx's statement cache), with the values as parameters,
// and scan their rows without reflection. Bun writes the values into the
// text of its queries, and the simple protocol sends that text to be
// parsed and planned anew every time; a prepared statement is parsed
// once, and PostgreSQL plans it once (a generic plan) when that plan
// costs no more than the custom ones, which the lists' indexes make so.
// The answers are the same as Bun's queries', which remain for any other
// db (a bun.Tx, a bun.Conn, Bun's pgdriver) and any other list.
//
// A statement prepared on a connection keeps the columns its tables had:
// after a migration that changes them, its next run fails ("cached plan
// must not change result type"), pgx drops it from its cache, and onPgx
// runs the read again at once, which prepares it anew: no request fails
// for it.

// onPgx runs fn on a pgx connection of the store's pool, and reports
// whether it could: false, without calling fn, when the store's db is not
// a *bun.DB on the pgx driver.
func (s *Store) onPgx(ctx context.Context, fn func(*pgx.Conn) error) (bool, error) {
	d, ok := s.db.(*bun.DB)
	if !ok {
		return false, nil
	}
	if _, ok := d.DB.Driver().(*stdlib.Driver); !ok {
		return false, nil
	}
	conn, err := d.DB.Conn(ctx)
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

// preparedVersion is DataVersion's query on pgx; ok is false when the
// store is not on pgx.
func (s *Store) preparedVersion(ctx context.Context, orgID string) (version int64, ok bool, err error) {
	q := s.statements.text("version", func() string {
		return "SELECT coalesce(sum(l.n), 0)::bigint FROM " + s.tableText("data_version_log") + " AS l WHERE l.org_id = $1"
	})
	ok, err = s.onPgx(ctx, func(c *pgx.Conn) error {
		return c.QueryRow(ctx, q, pgx.QueryExecModeCacheStatement, orgID).Scan(&version)
	})
	return version, ok, err
}

// invoiceListColumns are the columns of a page of invoices, in the order
// preparedInvoices scans them.
const invoiceListColumns = "i.org_id, i.id, i.number, i.project_id, i.status, i.currency, i.total, i.amount_due, i.issued_at, i.due_at, i.paid_at, i.document_key, i.updated_at"

// preparedInvoices is ListInvoices' query on pgx for a list without
// UpdatedSince nor a restriction to projects: the same page and total as
// selectPage's, with the organization's data version read in the same
// statement (one snapshot: Page.Version is the version of exactly these
// data), in one round trip. ok is false when the store is not on
// pgx, or the query is not of that kind.
func (s *Store) preparedInvoices(ctx context.Context, orgID string, q store.InvoiceQuery) (p store.Page[store.Invoice], ok bool, err error) {
	if !q.UpdatedSince.IsZero() || q.OnlyProjects != nil || q.Page < 1 || q.Limit < 1 {
		return p, false, nil
	}
	args := []any{pgx.QueryExecModeCacheStatement, orgID, q.Limit, offset(q.PageRequest)}
	if q.Status != "" {
		args = append(args, string(q.Status))
	}
	if q.ProjectID != "" {
		args = append(args, q.ProjectID)
	}
	text := s.invoiceListText(q.Status != "", q.ProjectID != "")
	ok, err = s.onPgx(ctx, func(c *pgx.Conn) error {
		rows, err := c.Query(ctx, text, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		items := make([]store.Invoice, 0, min(q.Limit, store.MaxLimit))
		for rows.Next() {
			var row invoiceRow
			var matching int64
			if rows.RawValues()[2] == nil { // the one row of a page past the end
				if err := rows.Scan(&p.Version, &matching, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil); err != nil {
					return err
				}
				p.Total = int(matching)
				continue
			}
			if err := rows.Scan(&p.Version, &matching, &row.OrgID, &row.ID, &row.Number, &row.ProjectID, &row.Status, &row.Currency,
				&row.Total, &row.AmountDue, &row.IssuedAt, &row.DueAt, &row.PaidAt, &row.DocumentKey, &row.UpdatedAt); err != nil {
				return err
			}
			p.Total = int(matching)
			items = append(items, row.invoice())
		}
		p.Items = items
		return rows.Err()
	})
	return p, ok, err
}

// invoiceListText is the statement of a page of invoices and its total,
// with a filter on status, on project, or both: $1 is the organization,
// $2 the limit, $3 the offset, then the status and the project, as given.
// The page is selectPage's, in invoiceTable's order, by the
// invoices_list index of the filter's shape; the total is tallied's, a sum of rows of item_counts, and the
// version DataVersion's, both in every row; a page past the end is one row
// with the version, the total and null columns.
func (s *Store) invoiceListText(status, project bool) string {
	key := "invoices " + strconv.FormatBool(status) + " " + strconv.FormatBool(project)
	return s.statements.text(key, func() string {
		filter, count, n := "", "", 3
		if status {
			n++
			filter += " AND i.status = $" + strconv.Itoa(n)
			count += " AND ic.status = $" + strconv.Itoa(n)
		}
		if project {
			n++
			filter += " AND i.project_id = $" + strconv.Itoa(n)
			count += " AND ic.project_id = $" + strconv.Itoa(n)
		}
		var b strings.Builder
		b.WriteString("SELECT c.version, c.matching, ")
		b.WriteString(invoiceListColumns)
		b.WriteString(" FROM (SELECT (SELECT coalesce(sum(l.n), 0)::bigint FROM ")
		b.WriteString(s.tableText("data_version_log"))
		b.WriteString(" AS l WHERE l.org_id = $1) AS version, coalesce(sum(ic.n), 0)::bigint AS matching FROM ")
		b.WriteString(s.tableText("item_counts"))
		b.WriteString(" AS ic WHERE ic.org_id = $1 AND ic.kind = 'invoice'")
		b.WriteString(count)
		b.WriteString(") AS c LEFT JOIN LATERAL (SELECT * FROM ")
		b.WriteString(s.tableText("invoices"))
		b.WriteString(" AS i WHERE i.org_id = $1")
		b.WriteString(filter)
		b.WriteString(" ORDER BY " + invoiceTable.order + " LIMIT $2 OFFSET $3) AS i ON true ORDER BY " + invoiceTable.order)
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

// listInvoicesPrepared is preparedInvoices under the store's query
// timeout, its error as list's.
func (s *Store) listInvoicesPrepared(ctx context.Context, orgID string, q store.InvoiceQuery) (store.Page[store.Invoice], bool, error) {
	ctx, cancel := s.query(ctx)
	defer cancel()
	p, ok, err := s.preparedInvoices(ctx, orgID, q)
	if err != nil {
		return store.Page[store.Invoice]{}, ok, failure(ctx, store.ErrUnavailable, "list invoices", err)
	}
	return p, ok, nil
}
