-- Events in the order they become visible: nothing outside the handler's
-- own writers can hold an event back.
--
-- Before. Readers saw the rows of changes whose xid was below
-- pg_snapshot_xmin(pg_current_snapshot()), in (xid, seq) order. That
-- horizon is the whole cluster's: a transaction left open in another
-- database, or on tables that are not the store's, held every event of
-- every organization back for as long as it ran.
--
-- Now. An event is a NUMBERED row, and the feed is the rows in ord order
-- (a row's action event, then its status event). Rows are written with
-- ord null (20261001000002_events, unchanged); clientstatus_number_events
-- (org) gives the organization's unnumbered rows their running counts
-- (ord, kind_ord, action_ord, status_ord, as 20261006000001_event_ordinals
-- defines them) continuing from its newest numbered row, in (xid, seq)
-- order among themselves. Readers call it before they read.
--
-- Why it is safe.
--  1. One numbering at a time per organization: the function holds a
--     transaction-scoped advisory lock (class: the schema's lock class,
--     key: a hash of the organization; two int4 keys, so the stamps'
--     lock scan of clientstatus_synced_through never counts it) and runs
--     in READ COMMITTED, where each statement takes its snapshot when it
--     starts: the statements that read the newest ord and number the
--     rest start after the lock is held, so they see what the previous
--     holder numbered (it committed before releasing the lock). No ord is
--     given twice (a unique index says so too).
--  2. Only committed rows are numbered: a row is visible to the numbering
--     statement's snapshot only once its transaction has committed (the
--     numbering transaction's own rows, when it has written any, are
--     excluded). An uncommitted row holds back nothing: rows committed
--     after it are numbered past it, and it gets a later ord when its
--     transaction commits, however late. A rolled-back row is never
--     numbered.
--  3. The numbered rows are a prefix of the feed that only grows: ords
--     continue the newest one, and a numbering commits before the next
--     can start, so a reader's snapshot that sees the n-th numbering sees
--     every one before it. An order once visible never changes, and a
--     reader resuming after the event it last saw (its row's ord) misses
--     nothing: whatever is numbered later has a larger ord.
--  4. No reader serves a stale prefix: a reader numbers before it reads.
--     When its first statement sees no committed unnumbered row, every
--     row committed before it is numbered by a numbering that committed,
--     and the read (a later statement) sees it: no lock. Otherwise it
--     waits for the lock (held for one short UPDATE; the wait is bounded
--     by the caller's statement timeout), then numbers what committed. A numbering that stops at its batch, leaving
--     rows for the next, wakes the organization's watchers (NOTIFY) so
--     that they go on.
--  5. Event ids stay "evt_" + xid + seq + n: a stored cursor names its
--     row, which readers resolve to its ord.
--
-- What it needs. A READ COMMITTED transaction that may write: on a hot
-- standby, or with default_transaction_isolation above READ COMMITTED or
-- default_transaction_read_only on, the function raises an error naming
-- the setting, instead of leaving readers on a stale prefix. No wal_level
-- or replication privilege: no logical decoding.
--
-- Rows already numbered keep their ords (they were a prefix, in (xid,
-- seq) order); the rows after them are numbered by the backfill below in
-- (xid, seq) order, which is the order readers saw them in before.
--
-- Re-runnable: IF NOT EXISTS, DROP ... IF EXISTS, CREATE OR REPLACE.

SET LOCAL search_path TO {{.Schema}};
SET LOCAL statement_timeout = 0;

-- The feed in ord order, each stream of it (all, a kind, a type) through
-- an index; the unnumbered rows, for the numbering.
CREATE UNIQUE INDEX IF NOT EXISTS changes_ord ON changes (org_id, ord) WHERE ord IS NOT NULL;
CREATE INDEX IF NOT EXISTS changes_kind_ord ON changes (org_id, kind, ord) WHERE ord IS NOT NULL;
CREATE INDEX IF NOT EXISTS changes_action_ord ON changes (org_id, kind, action, ord) WHERE ord IS NOT NULL;
CREATE INDEX IF NOT EXISTS changes_status_ord ON changes (org_id, kind, status, ord) WHERE ord IS NOT NULL AND status IS NOT NULL;
CREATE INDEX IF NOT EXISTS changes_unnumbered ON changes (org_id, xid, seq) WHERE ord IS NULL;
-- The (xid, seq) indexes of 20261006000001_event_ordinals read nothing now.
DROP INDEX IF EXISTS changes_kind;
DROP INDEX IF EXISTS changes_action;
DROP INDEX IF EXISTS changes_status;
ALTER TABLE changes RESET (fillfactor);

DROP FUNCTION IF EXISTS {{.Schema}}.clientstatus_number_events(text, int);
CREATE FUNCTION {{.Schema}}.clientstatus_number_events(org text, batch int, OUT last_ord bigint, OUT numbered int)
LANGUAGE plpgsql AS $$
BEGIN
	IF current_setting('transaction_isolation') <> 'read committed' THEN
		RAISE EXCEPTION 'clientstatus: events are numbered in READ COMMITTED only, this transaction is %', current_setting('transaction_isolation')
			USING ERRCODE = 'feature_not_supported',
			HINT = 'set default_transaction_isolation to ''read committed'' for the store''s role or connections';
	END IF;
	IF current_setting('transaction_read_only') = 'on' THEN
		RAISE EXCEPTION 'clientstatus: events are numbered in a transaction that may write, this one is read-only'
			USING ERRCODE = 'read_only_sql_transaction',
			HINT = 'connect the store to the primary (not a hot standby), with default_transaction_read_only off';
	END IF;
	-- Nothing committed and unnumbered: every row that committed before
	-- this statement began is numbered, by a numbering that committed, so
	-- the caller's next statement sees it. No lock.
	IF NOT EXISTS (SELECT FROM {{.Schema}}.changes AS c WHERE c.org_id = org AND c.ord IS NULL
		AND c.xid IS DISTINCT FROM pg_current_xact_id_if_assigned()) THEN
		SELECT c.ord INTO last_ord FROM {{.Schema}}.changes AS c
		WHERE c.org_id = org AND c.ord IS NOT NULL ORDER BY c.ord DESC LIMIT 1;
		numbered := 0;
		RETURN;
	END IF;
	PERFORM pg_advisory_xact_lock({{.Schema}}.clientstatus_lock_class()::int, hashtext('events/' || org));
	-- Statements of their own, with snapshots taken once the lock is held.
	SELECT c.ord INTO last_ord FROM {{.Schema}}.changes AS c
	WHERE c.org_id = org AND c.ord IS NOT NULL ORDER BY c.ord DESC LIMIT 1;
	WITH todo AS (
		SELECT c.xid, c.seq, c.kind, c.action, c.status, 1 + (c.status IS NOT NULL)::int AS k
		FROM {{.Schema}}.changes AS c
		WHERE c.org_id = org AND c.ord IS NULL
		  AND c.xid IS DISTINCT FROM pg_current_xact_id_if_assigned()
		ORDER BY c.xid, c.seq
		LIMIT batch
	), kinds AS (
		SELECT g.kind, coalesce((SELECT p.kind_ord FROM {{.Schema}}.changes AS p
			WHERE p.org_id = org AND p.kind = g.kind AND p.ord IS NOT NULL
			ORDER BY p.ord DESC LIMIT 1), 0) AS base
		FROM (SELECT DISTINCT t.kind FROM todo AS t) AS g
	), actions AS (
		SELECT g.kind, g.action, coalesce((SELECT p.action_ord FROM {{.Schema}}.changes AS p
			WHERE p.org_id = org AND p.kind = g.kind AND p.action = g.action AND p.ord IS NOT NULL
			ORDER BY p.ord DESC LIMIT 1), 0) AS base
		FROM (SELECT DISTINCT t.kind, t.action FROM todo AS t) AS g
	), statuses AS (
		SELECT g.kind, g.status, coalesce((SELECT p.status_ord FROM {{.Schema}}.changes AS p
			WHERE p.org_id = org AND p.kind = g.kind AND p.status = g.status AND p.ord IS NOT NULL
			ORDER BY p.ord DESC LIMIT 1), 0) AS base
		FROM (SELECT DISTINCT t.kind, t.status FROM todo AS t WHERE t.status IS NOT NULL) AS g
	), counted AS (
		SELECT t.xid, t.seq,
			coalesce(last_ord, 0) + sum(t.k) OVER (ORDER BY t.xid, t.seq) AS ord,
			kb.base + sum(t.k) OVER (PARTITION BY t.kind ORDER BY t.xid, t.seq) AS kind_ord,
			ab.base + count(*) OVER (PARTITION BY t.kind, t.action ORDER BY t.xid, t.seq) AS action_ord,
			sb.base + count(*) OVER (PARTITION BY t.kind, t.status ORDER BY t.xid, t.seq) AS status_ord
		FROM todo AS t
		JOIN kinds AS kb ON kb.kind = t.kind
		JOIN actions AS ab ON (ab.kind, ab.action) = (t.kind, t.action)
		LEFT JOIN statuses AS sb ON (sb.kind, sb.status) = (t.kind, t.status)
	)
	UPDATE {{.Schema}}.changes AS c
	SET ord = n.ord, kind_ord = n.kind_ord, action_ord = n.action_ord, status_ord = n.status_ord
	FROM counted AS n
	WHERE c.org_id = org AND (c.xid, c.seq) = (n.xid, n.seq);
	GET DIAGNOSTICS numbered = ROW_COUNT;
	IF numbered > 0 THEN
		SELECT c.ord INTO last_ord FROM {{.Schema}}.changes AS c
		WHERE c.org_id = org AND c.ord IS NOT NULL ORDER BY c.ord DESC LIMIT 1;
	END IF;
	IF numbered >= batch THEN
		-- More may wait: the organization's readers go on.
		PERFORM pg_notify({{.Schema}}.clientstatus_events_channel(), CASE WHEN octet_length(org) < 7900 THEN org ELSE '' END);
	END IF;
END
$$;

-- The backfill: every row committed so far, after those numbered.
SELECT {{.Schema}}.clientstatus_number_events(o.org_id, 2147483647) FROM (SELECT DISTINCT c.org_id FROM changes AS c WHERE c.ord IS NULL) AS o;
