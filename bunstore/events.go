package bunstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/store"
)

// The change spine read as events (store.Events): the rows of the table
// changes, which the triggers of the migration 20261001000002_events
// write in each writer's transaction (see there for what makes a row).
// A row is one event "{kind}.{action}" and, for a change of status, a
// second one "{kind}.{status}". A row is an event once it is numbered:
// clientstatus_number_events (migration 20261128000001_visible_order)
// gives the committed rows their running counts (ord) in the order they
// become visible, and the feed is the rows in ord order. Nothing but a
// row's own transaction holds it back, and the numbered rows are a prefix
// that only grows, so an order once read never changes. An event's id
// names its row: "evt_", the xid and the seq in 16 hex digits each, and 0
// for the row's action or 1 for its status; a cursor is resolved to its
// row's ord.

var _ store.Events = (*Store)(nil)

// eventRow is a row of ListEvents' statement: whether its cursor is
// kept, the total, and an event (nulls when the page is empty).
type eventRow struct {
	Kept           bool           `bun:"kept"`
	Ord            sql.NullInt64  `bun:"ord"`
	Total          int            `bun:"total"`
	XID            sql.NullString `bun:"xid"`
	Seq            sql.NullInt64  `bun:"seq"`
	N              int            `bun:"n"`
	Type           string         `bun:"type"`
	Kind           string         `bun:"kind"`
	ItemID         string         `bun:"item_id"`
	ProjectID      sql.NullString `bun:"project_id"`
	ThreadID       sql.NullString `bun:"thread_id"`
	PreviousStatus sql.NullString `bun:"previous_status"`
	At             sql.NullTime   `bun:"at"`
}

// cursor is an event's name: its row's (xid, seq) and n.
type cursor struct {
	xid uint64
	seq int64
	n   int
}

func (c cursor) id() string { return fmt.Sprintf("evt_%016x%016x%d", c.xid, uint64(c.seq), c.n) }

// parseCursor reads an event id; ok is false for one that is not.
func parseCursor(id string) (c cursor, ok bool) {
	if len(id) != 4+16+16+1 || id[:4] != "evt_" {
		return c, false
	}
	xid, err1 := strconv.ParseUint(id[4:20], 16, 64)
	seq, err2 := strconv.ParseUint(id[20:36], 16, 64)
	if err1 != nil || err2 != nil || seq > 1<<63-1 || (id[36] != '0' && id[36] != '1') {
		return c, false
	}
	return cursor{xid: xid, seq: int64(seq), n: int(id[36] - '0')}, true
}

// ListEvents returns the organization's events after q.After (see
// store.Events). An After that is not an event id, or names no numbered
// row the organization keeps (pruned, or another organization's), wraps
// store.ErrUnknownCursor; a cursor the query's filters skip is fine. A
// limit below 1 wraps store.ErrInvalid.
//
// It first numbers what committed since the last numbering
// (numberEvents). A page and its total cost about the same however many
// events the organization keeps, for every key and type filter but a key
// restricted to projects: the page is read through an index of each type
// (or kind) it keeps, in ord order, and the total from the running
// counts. For a key restricted to projects (q.OnlyProjects), the total
// counts the rows after After, and a page of a project with few events
// reads past the others.
func (s *Store) ListEvents(ctx context.Context, orgID string, q store.EventQuery) (store.EventPage, error) {
	if q.Limit < 1 {
		return store.EventPage{}, fmt.Errorf("bunstore: %w event limit %d", store.ErrInvalid, q.Limit)
	}
	unknown := fmt.Errorf("bunstore: events after %q: %w", q.After, store.ErrUnknownCursor)
	from := cursor{n: -1}
	if q.After != "" {
		c, ok := parseCursor(q.After)
		if !ok || !storable(orgID) {
			return store.EventPage{}, unmatched(ctx, unknown)
		}
		from = c
	}
	empty := store.EventPage{Events: []store.Event{}, Last: q.After}
	if !storable(orgID) || !storable(q.OnlyProjects...) || !storable(q.Types...) {
		return empty, unmatched(ctx, nil)
	}
	streams, ok := eventStreams(q)
	if !ok {
		// Nothing can match; an After that names nothing kept is still
		// refused.
		q.Limit, q.Types, q.OnlyKinds, q.OnlyProjects = 1, nil, nil, nil
		if _, err := s.ListEvents(ctx, orgID, q); err != nil {
			return store.EventPage{}, err
		}
		return empty, nil
	}
	ctx, cancel := s.query(ctx)
	defer cancel()
	if err := s.numberEvents(ctx, orgID); err != nil {
		return store.EventPage{}, failure(ctx, store.ErrUnavailable, "list events: number events", err)
	}
	e := eventSQL{s: s, org: orgID, from: from, projects: q.OnlyProjects}
	// The statement: After's row (f), whether it is kept, the total, and
	// the page.
	if q.After != "" {
		e.add(`WITH f AS (SELECT c.ord FROM ? AS c WHERE c.org_id = ? AND c.xid = ?::xid8 AND c.seq = ? AND c.ord IS NOT NULL AND (? = 0 OR c.status IS NOT NULL)) `,
			s.table("changes"), orgID, xidArg(from.xid), from.seq, from.n)
		e.fromOrd = `(SELECT f.ord FROM f)`
		e.add(`SELECT k.kept, k.total, p.* FROM (SELECT EXISTS (SELECT FROM f) AS kept, (0`)
	} else {
		e.fromOrd = `0`
		e.add(`SELECT k.kept, k.total, p.* FROM (SELECT true AS kept, (0`)
	}
	for _, st := range streams {
		e.add(` + `)
		if q.OnlyProjects != nil {
			e.add(`(SELECT count(*) FROM `)
			e.rows(st)
			e.add(`)`)
		} else {
			e.counted(st)
		}
	}
	e.add(`) AS total) AS k LEFT JOIN (SELECT * FROM (`)
	for i, st := range streams {
		if i > 0 {
			e.add(` UNION ALL `)
		}
		e.add(`(SELECT c.ord, c.xid::text AS xid, c.seq, v.n, v.type, c.kind, c.item_id, c.project_id, c.thread_id,
			CASE WHEN v.n = 1 THEN c.previous_status END AS previous_status, c.at FROM `)
		e.rows(st)
		e.add(` ORDER BY c.ord, v.n LIMIT ?)`, q.Limit)
	}
	e.add(`) AS u ORDER BY u.ord, u.n LIMIT ?) AS p ON true ORDER BY p.ord, p.n`, q.Limit)
	var rows []eventRow
	if err := s.db.NewRaw(e.sql.String(), e.args...).Scan(ctx, &rows); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return store.EventPage{}, failure(ctx, store.ErrUnavailable, "list events", err)
	}
	if len(rows) == 0 || !rows[0].Kept {
		return store.EventPage{}, unknown
	}
	p := store.EventPage{Events: make([]store.Event, 0, len(rows)), Total: rows[0].Total, Last: q.After}
	for _, r := range rows {
		if !r.XID.Valid {
			break // an empty page
		}
		xid, err := strconv.ParseUint(r.XID.String, 10, 64)
		if err != nil {
			return store.EventPage{}, fmt.Errorf("bunstore: list events: xid %q: %w", r.XID.String, err)
		}
		e := store.Event{
			ID:             cursor{xid: xid, seq: r.Seq.Int64, n: r.N}.id(),
			Type:           r.Type,
			Kind:           store.Kind(r.Kind),
			ItemID:         r.ItemID,
			ProjectID:      r.ProjectID.String,
			ThreadID:       r.ThreadID.String,
			PreviousStatus: r.PreviousStatus.String,
			CreatedAt:      r.At.Time.UTC(),
		}
		p.Events = append(p.Events, e)
		p.Last = e.ID
	}
	return p, nil
}

// eventStream is a part of the feed with a running count of its own (see
// the migration 20261006000001_event_ordinals), and an index to read it
// in order: all the events, a kind's, or a type's.
type eventStream struct {
	kind   string // "" for all
	action string // a type "{kind}.{action}"
	status string // a type "{kind}.{status}"
}

// eventStreams returns the streams that together make the events q
// keeps (but for OnlyProjects), each once, none sharing an event; ok is
// false when none can match.
func eventStreams(q store.EventQuery) (streams []eventStream, ok bool) {
	if q.OnlyKinds != nil && len(q.OnlyKinds) == 0 || q.OnlyProjects != nil && len(q.OnlyProjects) == 0 {
		return nil, false
	}
	add := func(st eventStream) {
		if !slices.Contains(streams, st) {
			streams = append(streams, st)
		}
	}
	if len(q.Types) > 0 {
		for _, t := range q.Types {
			kind, what, _ := strings.Cut(t, ".")
			if kind == "" || what == "" || q.OnlyKinds != nil && !slices.Contains(q.OnlyKinds, store.Kind(kind)) {
				continue // a type that is none matches nothing
			}
			switch store.Action(what) {
			case store.ActionCreated, store.ActionUpdated, store.ActionDeleted:
				add(eventStream{kind: kind, action: what})
			default:
				add(eventStream{kind: kind, status: what})
			}
		}
		return streams, len(streams) > 0
	}
	if q.OnlyKinds != nil {
		for _, k := range q.OnlyKinds {
			add(eventStream{kind: string(k)})
		}
		return streams, true
	}
	return []eventStream{{}}, true
}

// eventSQL builds ListEvents' statement.
type eventSQL struct {
	s        *Store
	org      string
	from     cursor // After; n -1 when none
	fromOrd  string // the expression of After's row's ord: 0 when none
	projects []string
	sql      strings.Builder
	args     []any
}

func (e *eventSQL) add(sql string, args ...any) {
	e.sql.WriteString(sql)
	e.args = append(e.args, args...)
}

// xidArg is an xid as a query argument (cast ::xid8).
func xidArg(xid uint64) string { return strconv.FormatUint(xid, 10) }

// rows adds "changes AS c, its events v WHERE" the organization's events
// after From, of st, of the projects.
func (e *eventSQL) rows(st eventStream) {
	e.add(`? AS c CROSS JOIN LATERAL (VALUES (0, c.kind || '.' || c.action), (1, c.kind || '.' || c.status)) AS v (n, type)
		WHERE c.org_id = ? AND c.ord IS NOT NULL AND (v.n = 0 OR c.status IS NOT NULL)`, e.s.table("changes"), e.org)
	e.add(` AND c.ord >= `+e.fromOrd+` AND (c.ord, v.n) > (`+e.fromOrd+`, ?)`, e.from.n)
	e.where("c", st)
	switch {
	case st.action != "":
		e.add(` AND v.n = 0`)
	case st.status != "":
		e.add(` AND v.n = 1`)
	}
	if e.projects != nil {
		e.add(` AND c.project_id IN (?)`, bun.List(e.projects))
	}
}

// where adds the condition on a row (alias a) of being of st.
func (e *eventSQL) where(a string, st eventStream) {
	if st.kind != "" {
		e.add(` AND `+a+`.kind = ?`, st.kind)
	}
	if st.action != "" {
		e.add(` AND `+a+`.action = ?`, st.action)
	}
	if st.status != "" {
		e.add(` AND `+a+`.status = ?`, st.status)
	}
}

// counted adds the count of st's events after From: its running count at
// its newest numbered row, less the one at From (or before st's first
// row kept, with no From or none of st's at or before it).
func (e *eventSQL) counted(st eventStream) {
	col, k, second := "ord", "1 + (x.status IS NOT NULL)::int", "x.status IS NOT NULL"
	switch {
	case st.action != "":
		col, k, second = "action_ord", "1", "false"
	case st.status != "":
		col, k, second = "status_ord", "1", "true"
	case st.kind != "":
		col = "kind_ord"
	}
	one := func(sel string, selArgs []any, cond string, order string) {
		e.add(`(SELECT `+sel+` FROM ? AS x WHERE x.org_id = ? AND x.ord IS NOT NULL`, append(selArgs, e.s.table("changes"), e.org)...)
		e.where("x", st)
		e.add(cond + ` ORDER BY x.ord ` + order + ` LIMIT 1)`)
	}
	e.add(`coalesce(`)
	one(`x.`+col, nil, ``, `DESC`)
	e.add(` - coalesce(`)
	if e.from.n >= 0 {
		// The running count at From's row, less its second event when
		// that is st's and after From.
		one(`x.`+col+` - CASE WHEN x.ord = `+e.fromOrd+` AND ? = 0 AND `+second+` THEN 1 ELSE 0 END`,
			[]any{e.from.n}, ` AND x.ord <= `+e.fromOrd, `DESC`)
		e.add(`, `)
	}
	one(`x.`+col+` - (`+k+`)`, nil, ``, `ASC`)
	e.add(`), 0)`)
}

// numberBatch is the most rows one call of numberEvents numbers: a few
// milliseconds of work, so that a read after a burst of writes is not
// held; the function wakes the watchers when it leaves rows for the next.
const numberBatch = 5000

// numberEvents numbers the organization's rows that committed before it
// was called (clientstatus_number_events of the migration
// 20261128000001_visible_order), waiting, within ctx, for a numbering
// another transaction is doing; with nothing to number it takes no lock.
//
// In a caller's transaction (WithTx) it numbers nothing: the lock would
// be held until that transaction ends, and every other reader wait for
// it. There, a read sees what other reads numbered.
func (s *Store) numberEvents(ctx context.Context, orgID string) error {
	if _, inTx := s.db.(bun.Tx); inTx {
		return nil
	}
	var row struct {
		LastOrd  sql.NullInt64 `bun:"last_ord"`
		Numbered int           `bun:"numbered"`
	}
	err := s.db.NewRaw("SELECT n.last_ord, n.numbered FROM ?(?, ?) AS n", s.table("clientstatus_number_events"), orgID, numberBatch).Scan(ctx, &row)
	if err != nil && ctx.Err() == nil {
		// A connection that cannot number (read-only, or above READ
		// COMMITTED: the error says which) fails every read alike.
		return fmt.Errorf("%w: %w", store.ErrUnavailable, err)
	}
	return err
}

// LatestEvent returns the id of the organization's newest event (the
// numbered row with the largest ord, after numbering what committed),
// "" when it has none.
func (s *Store) LatestEvent(ctx context.Context, orgID string) (string, error) {
	if !storable(orgID) {
		return "", unmatched(ctx, nil)
	}
	ctx, cancel := s.query(ctx)
	defer cancel()
	if err := s.numberEvents(ctx, orgID); err != nil {
		return "", failure(ctx, store.ErrUnavailable, "latest event: number events", err)
	}
	var row struct {
		XID string `bun:"xid"`
		Seq int64  `bun:"seq"`
		N   int    `bun:"n"` // its status's event, 1, when it has one
	}
	err := s.db.NewRaw("SELECT c.xid::text AS xid, c.seq, (c.status IS NOT NULL)::int AS n FROM ? AS c WHERE c.org_id = ? AND c.ord IS NOT NULL"+
		" ORDER BY c.ord DESC LIMIT 1", s.table("changes"), orgID).Scan(ctx, &row)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", failure(ctx, store.ErrUnavailable, "latest event", err)
	}
	xid, err := strconv.ParseUint(row.XID, 10, 64)
	if err != nil {
		return "", fmt.Errorf("bunstore: latest event: xid %q: %w", row.XID, err)
	}
	return cursor{xid: xid, seq: row.Seq, n: row.N}.id(), nil
}

// WatchEvents returns a channel woken when the organization's events may
// have become visible (see store.Events): by the NOTIFY that the
// migration's trigger sends when a writing transaction commits, from any
// process, received on the Store's listening connection (see Subscribe),
// which it holds while anything watches or subscribes (a numbering that
// leaves rows for the next sends one too). Each time that connection
// comes up, every watcher is woken, as notifications may have been
// missed. The channel is closed when ctx is done.
func (s *Store) WatchEvents(ctx context.Context, orgID string) <-chan struct{} {
	return s.notify.watchEvents(ctx, orgID)
}
