-- Event totals that cost the same however many events an organization
-- keeps: meta.total of GET /v1/events counts the events after
-- a cursor, which counting the rows of changes made cost as many rows as
-- there were.
--
-- Ordinals. Each row of changes below the visibility horizon (see
-- 20261001000002_events) gets, once, the running counts of its
-- organization's events through it, in feed order ((xid, seq), and a
-- row's action event before its status event):
--   ord         all its events (1, or 2 for a row with a change of status),
--   kind_ord    the events of its kind,
--   action_ord  the events "{kind}.{action}" of its kind and action,
--   status_ord  the events "{kind}.{status}" of its kind and status (null
--               for a row without a change of status).
-- A count after a cursor is then the newest numbered row's running count
-- less the one at the cursor (each found through an index), plus the rows
-- after the newest numbered one, counted (a few: those that became
-- visible since the last numbering). Counts of rows pruned (31 days) or
-- of an organization deleted go with their rows; what remains stays right,
-- as the counts are differences.
--
-- Numbering. clientstatus_number_events(org), which readers call before
-- they count, numbers the organization's rows after its newest numbered
-- one that are below the horizon: that set is final (nothing that commits
-- later takes a place before it), so the numbered rows are always a
-- prefix of the feed, and a number, once given, never changes. One
-- transaction numbers an organization at a time (a transaction-scoped
-- advisory lock, tried: a reader that does not get it does not wait, and
-- counts what is not numbered yet itself). It returns the newest
-- numbered row's (xid, seq), or nulls when none is, and whether it took
-- the lock (false: another transaction numbers). It numbers batch rows
-- at most, so that a reader under a timeout is not held by a burst of
-- writes (an import): the next reader goes on where it stopped.
--
-- Re-runnable: IF NOT EXISTS, CREATE OR REPLACE. The backfill numbers the
-- rows already there.

SET LOCAL search_path TO {{.Schema}};
SET LOCAL statement_timeout = 0;

ALTER TABLE changes
	ADD COLUMN IF NOT EXISTS ord bigint,
	ADD COLUMN IF NOT EXISTS kind_ord bigint,
	ADD COLUMN IF NOT EXISTS action_ord bigint,
	ADD COLUMN IF NOT EXISTS status_ord bigint;
-- The numbering updates each row once, columns no index holds: room on
-- each page lets it update in place (HOT), without touching the indexes.
ALTER TABLE changes SET (fillfactor = 70);
CREATE INDEX IF NOT EXISTS changes_kind ON changes (org_id, kind, xid, seq);
CREATE INDEX IF NOT EXISTS changes_action ON changes (org_id, kind, action, xid, seq);
CREATE INDEX IF NOT EXISTS changes_status ON changes (org_id, kind, status, xid, seq) WHERE status IS NOT NULL;

DROP FUNCTION IF EXISTS {{.Schema}}.clientstatus_number_events(text, int);
CREATE FUNCTION {{.Schema}}.clientstatus_number_events(org text, batch int, OUT last_xid xid8, OUT last_seq bigint, OUT took boolean)
LANGUAGE plpgsql AS $$
DECLARE
	last_ord bigint;
BEGIN
	took := current_setting('transaction_isolation') = 'read committed'
		AND pg_try_advisory_xact_lock(hashtextextended({{.Schema}}.clientstatus_lock_class()::text || '/events/' || org, 0));
	IF took THEN
		-- A statement of its own, with a snapshot taken once the lock is
		-- held: it sees what the last holder numbered.
		SELECT c.xid, c.seq, c.ord INTO last_xid, last_seq, last_ord FROM {{.Schema}}.changes AS c
		WHERE c.org_id = org AND c.ord IS NOT NULL ORDER BY c.xid DESC, c.seq DESC LIMIT 1;
		WITH todo AS (
			SELECT c.xid, c.seq, c.kind, c.action, c.status, 1 + (c.status IS NOT NULL)::int AS k
			FROM {{.Schema}}.changes AS c
			WHERE c.org_id = org AND (c.xid, c.seq) > (coalesce(last_xid, '0'::xid8), coalesce(last_seq, 0))
			  AND c.xid < pg_snapshot_xmin(pg_current_snapshot())
			ORDER BY c.xid, c.seq
			LIMIT batch
		), kinds AS (
			SELECT g.kind, coalesce((SELECT p.kind_ord FROM {{.Schema}}.changes AS p
				WHERE p.org_id = org AND p.kind = g.kind AND (p.xid, p.seq) <= (last_xid, last_seq)
				ORDER BY p.xid DESC, p.seq DESC LIMIT 1), 0) AS base
			FROM (SELECT DISTINCT t.kind FROM todo AS t) AS g
		), actions AS (
			SELECT g.kind, g.action, coalesce((SELECT p.action_ord FROM {{.Schema}}.changes AS p
				WHERE p.org_id = org AND p.kind = g.kind AND p.action = g.action AND (p.xid, p.seq) <= (last_xid, last_seq)
				ORDER BY p.xid DESC, p.seq DESC LIMIT 1), 0) AS base
			FROM (SELECT DISTINCT t.kind, t.action FROM todo AS t) AS g
		), statuses AS (
			SELECT g.kind, g.status, coalesce((SELECT p.status_ord FROM {{.Schema}}.changes AS p
				WHERE p.org_id = org AND p.kind = g.kind AND p.status = g.status AND (p.xid, p.seq) <= (last_xid, last_seq)
				ORDER BY p.xid DESC, p.seq DESC LIMIT 1), 0) AS base
			FROM (SELECT DISTINCT t.kind, t.status FROM todo AS t WHERE t.status IS NOT NULL) AS g
		), numbered AS (
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
		FROM numbered AS n
		WHERE c.org_id = org AND (c.xid, c.seq) = (n.xid, n.seq);
	END IF;
	SELECT c.xid, c.seq INTO last_xid, last_seq FROM {{.Schema}}.changes AS c
	WHERE c.org_id = org AND c.ord IS NOT NULL ORDER BY c.xid DESC, c.seq DESC LIMIT 1;
END
$$;

-- The backfill.
SELECT {{.Schema}}.clientstatus_number_events(o.org_id, 2147483647) FROM (SELECT DISTINCT c.org_id FROM changes AS c) AS o;
