package bunstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
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

// eventRow is an event as ListEvents selects it.
type eventRow struct {
	XID            string         `bun:"xid"`
	Seq            int64          `bun:"seq"`
	N              int            `bun:"n"`
	Type           string         `bun:"type"`
	Kind           string         `bun:"kind"`
	ItemID         string         `bun:"item_id"`
	ProjectID      sql.NullString `bun:"project_id"`
	ThreadID       sql.NullString `bun:"thread_id"`
	PreviousStatus sql.NullString `bun:"previous_status"`
	At             time.Time      `bun:"at"`
	Total          int            `bun:"total"`
}

// cursor is an event's place: its row's (xid, seq) and n.
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

// horizon is the condition on a row of changes (alias c) of being
// visible: its transaction is below every one still running.
const horizon = "c.xid < pg_snapshot_xmin(pg_current_snapshot())"

// ListEvents returns the organization's events after q.After (see
// store.Events). An After that is not an event id, or names no visible
// row the organization keeps (pruned, or another organization's), wraps
// store.ErrUnknownCursor; a cursor the query's filters skip is fine. A
// limit below 1 wraps store.ErrInvalid.
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
	if !storable(orgID) || !storable(q.OnlyProjects...) || !storable(q.Types...) {
		return store.EventPage{Events: []store.Event{}, Last: q.After}, unmatched(ctx, nil)
	}
	ctx, cancel := s.query(ctx)
	defer cancel()
	if q.After != "" {
		var kept bool
		err := s.db.NewRaw("SELECT EXISTS (SELECT FROM ? AS c WHERE c.org_id = ? AND c.xid = ?::xid8 AND c.seq = ? AND (? = 0 OR c.status IS NOT NULL) AND "+horizon+")",
			s.table("changes"), orgID, strconv.FormatUint(from.xid, 10), from.seq, from.n).Scan(ctx, &kept)
		if err != nil {
			return store.EventPage{}, failure(ctx, store.ErrUnavailable, "list events", err)
		}
		if !kept {
			return store.EventPage{}, unknown
		}
	}
	filters := ""
	args := []any{s.table("changes"), orgID, strconv.FormatUint(from.xid, 10), from.seq, strconv.FormatUint(from.xid, 10), from.seq, from.n}
	if len(q.Types) > 0 {
		filters += " AND v.type IN (?)"
		args = append(args, bun.In(q.Types))
	}
	if q.OnlyKinds != nil {
		if len(q.OnlyKinds) == 0 {
			return store.EventPage{Events: []store.Event{}, Last: q.After}, nil
		}
		filters += " AND c.kind IN (?)"
		args = append(args, bun.In(q.OnlyKinds))
	}
	if q.OnlyProjects != nil {
		if len(q.OnlyProjects) == 0 {
			return store.EventPage{Events: []store.Event{}, Last: q.After}, nil
		}
		filters += " AND c.project_id IN (?)"
		args = append(args, bun.In(q.OnlyProjects))
	}
	args = append(args, q.Limit)
	var rows []eventRow
	err := s.db.NewRaw(`SELECT c.xid::text AS xid, c.seq, v.n, v.type, c.kind, c.item_id, c.project_id, c.thread_id,
		CASE WHEN v.n = 1 THEN c.previous_status END AS previous_status, c.at, count(*) OVER () AS total
	FROM ? AS c
	CROSS JOIN LATERAL (VALUES (0, c.kind || '.' || c.action), (1, c.kind || '.' || c.status)) AS v (n, type)
	WHERE c.org_id = ? AND `+horizon+` AND (c.xid, c.seq) >= (?::xid8, ?)
	  AND (c.xid, c.seq, v.n) > (?::xid8, ?, ?) AND (v.n = 0 OR c.status IS NOT NULL)`+filters+`
	ORDER BY c.xid, c.seq, v.n
	LIMIT ?`, args...).Scan(ctx, &rows)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return store.EventPage{}, failure(ctx, store.ErrUnavailable, "list events", err)
	}
	p := store.EventPage{Events: make([]store.Event, 0, len(rows)), Last: q.After}
	for _, r := range rows {
		xid, err := strconv.ParseUint(r.XID, 10, 64)
		if err != nil {
			return store.EventPage{}, fmt.Errorf("bunstore: list events: xid %q: %w", r.XID, err)
		}
		e := store.Event{
			ID:             cursor{xid: xid, seq: r.Seq, n: r.N}.id(),
			Type:           r.Type,
			Kind:           store.Kind(r.Kind),
			ItemID:         r.ItemID,
			ProjectID:      r.ProjectID.String,
			ThreadID:       r.ThreadID.String,
			PreviousStatus: r.PreviousStatus.String,
			CreatedAt:      r.At.UTC(),
		}
		p.Events = append(p.Events, e)
		p.Total, p.Last = r.Total, e.ID
	}
	return p, nil
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
