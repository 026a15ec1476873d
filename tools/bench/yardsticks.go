package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/clientstatus/clientstatus/envelope"
)

// The yardsticks are what a careful hand would write for the one request
// measured, with none of the library's generality: they set the bar the
// library is measured against. Neither logs.

// keyHash is the SHA-256 of an API key, as the key store keeps it.
type keyHash [sha256.Size]byte

// authorized reports whether r carries "Bearer <key>" (the scheme in any
// case) whose SHA-256 is want, compared in constant time.
func authorized(r *http.Request, want keyHash) bool {
	scheme, credential, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	return ok && strings.EqualFold(scheme, "Bearer") && sameKey(credential, want)
}

// sameKey reports whether the SHA-256 of key is want, compared in
// constant time.
func sameKey(key string, want keyHash) bool {
	got := sha256.Sum256([]byte(key))
	return subtle.ConstantTimeCompare(got[:], want[:]) == 1
}

// unauthorized answers 401 as the contract does, in a few fixed bytes.
func unauthorized(w http.ResponseWriter) {
	w.Header().Set("WWW-Authenticate", "Bearer")
	writeJSON(w, http.StatusUnauthorized, []byte(`{"error":{"code":"UNAUTHORIZED","message":"missing or invalid API key"}}`+"\n"))
}

// writeJSON writes body with status, the contract's Content-Type and a
// Content-Length, as the library does (without a Content-Length, a body
// over 2 KB would go out chunked).
func writeJSON(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", envelope.ContentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// staticHandler is the "static bytes" yardstick: it checks the key and
// writes body, the library's answer to the same request captured once.
// It is the least a server can do for the request: the gap to it is the
// whole cost of the library (routing, parameters, store, JSON, ETag, Link,
// request id, the request log) and of nothing else.
//
// With headers (run 7), it also sends the library's own response headers
// (ETag, Cache-Control, Vary, Link, X-Request-Id...), as they were once:
// the API's documented headers cost the server and the load generator
// too, and this run shows how much of the gap to run 1's yardstick they
// are.
func staticHandler(want keyHash, body []byte, headers http.Header) http.Handler {
	headers = headers.Clone()
	for _, name := range []string{"Date", "Content-Type", "Content-Length"} {
		headers.Del(name) // net/http's, and writeJSON's
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !authorized(r, want) {
			unauthorized(w)
			return
		}
		h := w.Header()
		for name, values := range headers {
			h[name] = values
		}
		writeJSON(w, http.StatusOK, body)
	})
}

// invoiceJSON is an invoice on the wire, as the contract has it.
type invoiceJSON struct {
	ID        string  `json:"id"`
	Number    string  `json:"number"`
	ProjectID *string `json:"projectId"`
	Status    string  `json:"status"`
	Currency  string  `json:"currency"`
	Total     int64   `json:"total"`
	AmountDue int64   `json:"amountDue"`
	IssuedAt  string  `json:"issuedAt"`
	DueAt     string  `json:"dueAt"`
	PaidAt    *string `json:"paidAt"`
	// DocumentAvailable: document_key is not empty.
	DocumentAvailable bool   `json:"documentAvailable"`
	UpdatedAt         string `json:"updatedAt"`
}

// listJSON is the envelope of a list.
type listJSON struct {
	Data []invoiceJSON `json:"data"`
	Meta metaJSON      `json:"meta"`
}

// metaJSON is a list's paging information.
type metaJSON struct {
	Page    int `json:"page"`
	PerPage int `json:"per_page"`
	Total   int `json:"total"`
}

// wireTime formats t as the contract does: RFC 3339, UTC, to the second.
func wireTime(t time.Time) string {
	return t.UTC().Truncate(time.Second).Format(time.RFC3339)
}

// invoiceColumns are the columns of bunstore's invoices table that an
// invoice on the wire shows (bunstore/migrations).
const invoiceColumns = "id, number, project_id, status, currency, total, amount_due, issued_at, due_at, paid_at, document_key <> '', updated_at"

// pgxHandler is the "pgx by hand" yardstick, and the hand-written handler
// of the production workload: GET /v1/invoices?page&limit&status of the
// organization orgOf finds for the request's bearer key, straight from
// bunstore's tables in schema through pgxpool with pgx's defaults
// (prepared statements, cached). It runs the page query and the count one
// after the other, and encodes the envelope with encoding/json; with
// etags, it sends a weak ETag of the body, and 304 for an If-None-Match
// that names it. No validation beyond what keeps the SQL sane, no Link,
// no request id, no log.
func pgxHandler(pool *pgxpool.Pool, schema string, etags bool, orgOf func(credential string) (string, bool)) http.Handler {
	table := pgx.Identifier{schema, "invoices"}.Sanitize()
	pageSQL := "SELECT " + invoiceColumns + " FROM " + table + " WHERE org_id = $1 ORDER BY issued_at DESC, id LIMIT $2 OFFSET $3"
	countSQL := "SELECT count(*) FROM " + table + " WHERE org_id = $1"
	pageStatusSQL := "SELECT " + invoiceColumns + " FROM " + table + " WHERE org_id = $1 AND status = $4 ORDER BY issued_at DESC, id LIMIT $2 OFFSET $3"
	countStatusSQL := "SELECT count(*) FROM " + table + " WHERE org_id = $1 AND status = $2"
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, credential, ok := strings.Cut(r.Header.Get("Authorization"), " ")
		org, found := orgOf(credential)
		if !ok || !strings.EqualFold(scheme, "Bearer") || !found {
			unauthorized(w)
			return
		}
		q := r.URL.Query()
		page, limit, ok := pageParams(q)
		status := q.Get("status")
		switch status {
		case "", "open", "paid", "void", "draft":
		default:
			ok = false
		}
		if !ok {
			writeJSON(w, http.StatusBadRequest, []byte(`{"error":{"code":"INVALID_PARAMETER","message":"bad page, limit or status"}}`+"\n"))
			return
		}
		var body []byte
		var err error
		if status == "" {
			body, err = invoicePage(r.Context(), pool, pageSQL, countSQL, page, limit, []any{org, limit, (page - 1) * limit}, []any{org})
		} else {
			body, err = invoicePage(r.Context(), pool, pageStatusSQL, countStatusSQL, page, limit, []any{org, limit, (page - 1) * limit, status}, []any{org, status})
		}
		if err != nil {
			writeJSON(w, http.StatusServiceUnavailable, []byte(`{"error":{"code":"UNAVAILABLE","message":"try again"}}`+"\n"))
			return
		}
		if etags {
			sum := sha256.Sum256(body)
			tag := `W/"` + hex.EncodeToString(sum[:16]) + `"`
			w.Header().Set("ETag", tag)
			if inm := r.Header.Get("If-None-Match"); inm != "" && strings.TrimPrefix(inm, "W/") == tag[2:] {
				w.WriteHeader(http.StatusNotModified)
				return
			}
		}
		writeJSON(w, http.StatusOK, body)
	})
}

// pageParams reads page (default 1) and limit (default 20, at most 100).
func pageParams(q url.Values) (page, limit int, ok bool) {
	page, limit = 1, 20
	var err error
	if s := q.Get("page"); s != "" {
		if page, err = strconv.Atoi(s); err != nil || page < 1 {
			return 0, 0, false
		}
	}
	if s := q.Get("limit"); s != "" {
		if limit, err = strconv.Atoi(s); err != nil || limit < 1 || limit > 100 {
			return 0, 0, false
		}
	}
	return page, limit, true
}

// invoicePage runs a page query and a count with their arguments and
// encodes the envelope.
func invoicePage(ctx context.Context, pool *pgxpool.Pool, pageSQL, countSQL string, page, limit int, pageArgs, countArgs []any) ([]byte, error) {
	rows, err := pool.Query(ctx, pageSQL, pageArgs...)
	if err != nil {
		return nil, err
	}
	items, err := scanInvoices(rows, limit)
	if err != nil {
		return nil, err
	}
	var total int
	if err := pool.QueryRow(ctx, countSQL, countArgs...).Scan(&total); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(listJSON{Data: items, Meta: metaJSON{Page: page, PerPage: limit, Total: total}}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// scanInvoices reads the rows of a page query (invoiceColumns) as
// invoices on the wire, and closes them.
func scanInvoices(rows pgx.Rows, limit int) ([]invoiceJSON, error) {
	defer rows.Close()
	items := make([]invoiceJSON, 0, limit)
	for rows.Next() {
		var (
			it                   invoiceJSON
			issued, due, updated time.Time
			paid                 *time.Time
		)
		if err := rows.Scan(&it.ID, &it.Number, &it.ProjectID, &it.Status, &it.Currency, &it.Total, &it.AmountDue,
			&issued, &due, &paid, &it.DocumentAvailable, &updated); err != nil {
			return nil, err
		}
		it.IssuedAt, it.DueAt, it.UpdatedAt = wireTime(issued), wireTime(due), wireTime(updated)
		if paid != nil {
			s := wireTime(*paid)
			it.PaidAt = &s
		}
		items = append(items, it)
	}
	return items, rows.Err()
}
