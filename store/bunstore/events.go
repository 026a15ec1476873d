package bunstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/store"
)

// The change spine read as events (store.Events): the rows of the table
// changes, which the triggers of the migration 20261001000002_events
// write in each writer's transaction (see there for what makes a row).
// A row is one event "{kind}.{action}" and, for a change of status, a
// second one "{kind}.{status}". Readers see the rows whose transaction id
// is below the oldest transaction still running, in (xid, seq) order:
// that set is final, and a row that becomes visible later sorts after it,
// however late its transaction commits. An event's id encodes its place:
// "evt_", the xid and the seq in 16 hex digits each, and 0 for the row's
// action or 1 for its status, so that ids sort as the feed does.

var _ store.Events = (*Store)(nil)

// eventRow is a row of ListEvents' statement: whether its cursor is
// kept, the total, and an event (nulls when the page is empty).
type eventRow struct {
	Kept           bool           `bun:"kept"`
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

// cursor is an event's place: its row's (xid, seq) and n.
type cursor struct {
	xid uint64
	seq int64
	n   int
}

// before reports whether c's row comes before d's.
func (c cursor) before(d cursor) bool { return c.xid < d.xid || c.xid == d.xid && c.seq < d.seq }

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

// horizon is the condition on a row of changes (alias c) of being
// visible: its transaction is below every one still running.
const horizon = "c.xid < pg_snapshot_xmin(pg_current_snapshot())"

// ListEvents returns the organization's events after q.After (see
// store.Events). An After that is not an event id, or names no visible
// row the organization keeps (pruned, or another organization's), wraps
// store.ErrUnknownCursor; a cursor the query's filters skip is fine. A
// limit below 1 wraps store.ErrInvalid.
//
// A page and its total cost about the same however many events the
// organization keeps, for every key and type filter but a key restricted
// to projects: the page is read through an index of each type (or kind)
// it keeps, and the total from the running counts of the migration
// 20261006000001_event_ordinals, which it first brings up to the horizon
// (numberEvents). For a key restricted to projects (q.OnlyProjects), the
// total counts the rows after After, and a page of a project with few
// events reads past the others.
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
	last, err := s.ords.recent(orgID)
	if err != nil {
		last, err = s.numberEvents(ctx, orgID)
	}
	if err != nil && ctx.Err() != nil {
		return store.EventPage{}, failure(ctx, store.ErrUnavailable, "list events", err)
	}
	if err != nil || q.OnlyProjects != nil {
		last = cursor{} // counted from the first row: (0, 0) sorts before every row
	}
	e := eventSQL{s: s, org: orgID, from: from, last: last, projects: q.OnlyProjects}
	// The statement: whether After is kept, the total, and the page.
	e.add(`SELECT k.kept, k.total, p.* FROM (SELECT `)
	if q.After == "" {
		e.add(`true`)
	} else {
		e.add(`EXISTS (SELECT FROM ? AS c WHERE c.org_id = ? AND c.xid = ?::xid8 AND c.seq = ? AND (? = 0 OR c.status IS NOT NULL) AND `+horizon+`)`,
			s.table("changes"), orgID, xidArg(from.xid), from.seq, from.n)
	}
	e.add(` AS kept, (0`)
	if last != (cursor{}) {
		for _, st := range streams {
			e.add(` + `)
			e.counted(st)
		}
	}
	e.add(` + (SELECT count(*) FROM `)
	// The rows after the newest numbered one, from After on: one bound,
	// which the index scan starts from.
	tail := cursor{xid: from.xid, seq: from.seq}
	if next := (cursor{xid: last.xid, seq: last.seq + 1}); last != (cursor{}) && tail.before(next) {
		tail = next
	}
	e.rows(nil, tail)
	if len(q.Types) > 0 {
		e.add(` AND v.type IN (?)`, bun.In(q.Types))
	}
	if q.OnlyKinds != nil {
		e.add(` AND c.kind IN (?)`, bun.In(q.OnlyKinds))
	}
	e.add(`)) AS total) AS k LEFT JOIN (SELECT * FROM (`)
	for i, st := range streams {
		if i > 0 {
			e.add(` UNION ALL `)
		}
		e.add(`(SELECT c.xid::text AS xid, c.seq, v.n, v.type, c.kind, c.item_id, c.project_id, c.thread_id,
			CASE WHEN v.n = 1 THEN c.previous_status END AS previous_status, c.at FROM `)
		e.rows(&st, cursor{xid: from.xid, seq: from.seq})
		e.add(` ORDER BY c.xid, c.seq, v.n LIMIT ?)`, q.Limit)
	}
	e.add(`) AS u ORDER BY u.xid::xid8, u.seq, u.n LIMIT ?) AS p ON true ORDER BY p.xid::xid8, p.seq, p.n`, q.Limit)
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
// keeps (but for OnlyProjects), each once; ok is false when none can
// match.
func eventStreams(q store.EventQuery) (streams []eventStream, ok bool) {
	if q.OnlyKinds != nil && len(q.OnlyKinds) == 0 || q.OnlyProjects != nil && len(q.OnlyProjects) == 0 {
		return nil, false
	}
	if len(q.Types) > 0 {
		for _, t := range q.Types {
			kind, what, _ := strings.Cut(t, ".")
			if kind == "" || what == "" || q.OnlyKinds != nil && !slices.Contains(q.OnlyKinds, store.Kind(kind)) {
				continue // a type that is none matches nothing
			}
			st := eventStream{kind: kind, status: what}
			switch store.Action(what) {
			case store.ActionCreated, store.ActionUpdated, store.ActionDeleted:
				st = eventStream{kind: kind, action: what}
			}
			if !slices.Contains(streams, st) {
				streams = append(streams, st)
			}
		}
		return streams, len(streams) > 0
	}
	if q.OnlyKinds != nil {
		for _, k := range q.OnlyKinds {
			if st := (eventStream{kind: string(k)}); !slices.Contains(streams, st) {
				streams = append(streams, st)
			}
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
	last     cursor // the newest numbered row; zero when none
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

// rows adds "changes AS c, its events v WHERE" the organization's visible
// events after From, of st (nil: any), of the projects, in rows at or
// after lower's (xid, seq).
func (e *eventSQL) rows(st *eventStream, lower cursor) {
	e.add(`? AS c CROSS JOIN LATERAL (VALUES (0, c.kind || '.' || c.action), (1, c.kind || '.' || c.status)) AS v (n, type)
		WHERE c.org_id = ? AND `+horizon+` AND (v.n = 0 OR c.status IS NOT NULL)`, e.s.table("changes"), e.org)
	e.add(` AND (c.xid, c.seq) >= (?::xid8, ?) AND (c.xid, c.seq, v.n) > (?::xid8, ?, ?)`,
		xidArg(lower.xid), lower.seq, xidArg(e.from.xid), e.from.seq, e.from.n)
	if st != nil {
		e.where("c", *st)
		switch {
		case st.action != "":
			e.add(` AND v.n = 0`)
		case st.status != "":
			e.add(` AND v.n = 1`)
		}
	}
	if e.projects != nil {
		e.add(` AND c.project_id IN (?)`, bun.In(e.projects))
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

// counted adds the count of st's events after From up to the newest
// numbered row (Last): its running count there, less the one at From (or
// before st's first row kept, with no From or none of st's before it).
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
	one := func(sel string, selArgs []any, cond string, condArgs []any, order string) {
		e.add(`(SELECT `+sel+` FROM ? AS x WHERE x.org_id = ?`, append(selArgs, e.s.table("changes"), e.org)...)
		e.where("x", st)
		e.add(cond+` ORDER BY x.xid `+order+`, x.seq `+order+` LIMIT 1)`, condArgs...)
	}
	upToLast := []any{xidArg(e.last.xid), e.last.seq}
	e.add(`coalesce(`)
	one(`x.`+col, nil, ` AND (x.xid, x.seq) <= (?::xid8, ?)`, upToLast, `DESC`)
	e.add(` - coalesce(`)
	if e.from.n >= 0 {
		// The running count at From's row, less its second event when
		// that is st's and after From.
		one(`x.`+col+` - CASE WHEN (x.xid, x.seq) = (?::xid8, ?) AND ? = 0 AND `+second+` THEN 1 ELSE 0 END`,
			[]any{xidArg(e.from.xid), e.from.seq, e.from.n},
			` AND (x.xid, x.seq) <= (?::xid8, ?) AND (x.xid, x.seq) <= (?::xid8, ?)`,
			append([]any{xidArg(e.from.xid), e.from.seq}, upToLast...), `DESC`)
		e.add(`, `)
	}
	one(`x.`+col+` - (`+k+`)`, nil, ``, nil, `ASC`)
	e.add(`), 0)`)
}

// numberBatch is the most rows one call of numberEvents numbers: a few
// milliseconds of work, so that a read after a burst of writes is not
// held; the reads after it go on.
const numberBatch = 5000

// numberEvents brings the running counts of the organization's events up
// to the horizon, unless another transaction is doing it (see the
// migration 20261006000001_event_ordinals), and returns the newest
// numbered row (zero when none is).
//
// A Store numbers each organization at most every numberEvery: a read
// in between counts the rows after the newest numbered row it saw last
// (which stays numbered), a few, and saves a round trip.
func (s *Store) numberEvents(ctx context.Context, orgID string) (cursor, error) {
	var row struct {
		XID  sql.NullString `bun:"last_xid"`
		Seq  sql.NullInt64  `bun:"last_seq"`
		Took bool           `bun:"took"`
	}
	if err := s.db.NewRaw("SELECT n.last_xid::text AS last_xid, n.last_seq, n.took FROM ?(?, ?) AS n", s.table("clientstatus_number_events"), orgID, numberBatch).Scan(ctx, &row); err != nil {
		return cursor{}, err
	}
	var last cursor
	if row.XID.Valid {
		xid, err := strconv.ParseUint(row.XID.String, 10, 64)
		if err != nil {
			return cursor{}, fmt.Errorf("xid %q: %w", row.XID.String, err)
		}
		last = cursor{xid: xid, seq: row.Seq.Int64}
	}
	if row.Took {
		s.ords.set(orgID, last)
	}
	return last, nil
}

// numberEvery is how often, at most, a Store numbers an organization's
// events (numberEvents).
const numberEvery = 100 * time.Millisecond

// numberings remembers, for each organization, the newest numbered row
// a Store saw when it last numbered, and when.
type numberings struct {
	mu   sync.Mutex
	orgs map[string]numbering
}

type numbering struct {
	last cursor
	at   time.Time
}

// errStale is numberings.recent's answer when an organization is due.
var errStale = errors.New("not numbered lately")

// recent returns the newest numbered row of the organization when this
// Store numbered it less than numberEvery ago, else errStale.
func (n *numberings) recent(org string) (cursor, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if v, ok := n.orgs[org]; ok && time.Since(v.at) < numberEvery {
		return v.last, nil
	}
	return cursor{}, errStale
}

func (n *numberings) set(org string, last cursor) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.orgs == nil {
		n.orgs = make(map[string]numbering)
	}
	n.orgs[org] = numbering{last: last, at: time.Now()}
}

// LatestEvent returns the id of the organization's newest visible event,
// "" when it has none.
func (s *Store) LatestEvent(ctx context.Context, orgID string) (string, error) {
	if !storable(orgID) {
		return "", unmatched(ctx, nil)
	}
	ctx, cancel := s.query(ctx)
	defer cancel()
	var row struct {
		XID    string `bun:"xid"`
		Seq    int64  `bun:"seq"`
		Status bool   `bun:"status"`
	}
	err := s.db.NewRaw("SELECT c.xid::text AS xid, c.seq, c.status IS NOT NULL AS status FROM ? AS c WHERE c.org_id = ? AND "+horizon+
		" ORDER BY c.xid DESC, c.seq DESC LIMIT 1", s.table("changes"), orgID).Scan(ctx, &row)
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
	c := cursor{xid: xid, seq: row.Seq}
	if row.Status {
		c.n = 1
	}
	return c.id(), nil
}

// WatchEvents returns a channel woken when the organization's events may
// have become visible (see store.Events): by the NOTIFY that the
// migration's trigger sends when a writing transaction commits, from any
// process, received on the Store's listening connection (see Subscribe),
// which it holds while anything watches or subscribes. Each time that
// connection comes up, every watcher is woken, as notifications may have
// been missed. A wake-up may come before the events are visible (an older
// transaction still runs): the reader lists again later, as
// store.Events says. The channel is closed when ctx is done.
func (s *Store) WatchEvents(ctx context.Context, orgID string) <-chan struct{} {
	return s.notify.watchEvents(ctx, orgID)
}
