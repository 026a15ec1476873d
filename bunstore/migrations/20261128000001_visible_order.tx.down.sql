-- Back to the order of 20261006000001_event_ordinals: by (xid, seq) below
-- the cluster's horizon. The ords given stay (a prefix in that order only
-- while no row was numbered out of xid order: run the down with no writer).
SET LOCAL search_path TO {{.Schema}};
SET LOCAL statement_timeout = 0;

DROP INDEX IF EXISTS changes_ord;
DROP INDEX IF EXISTS changes_kind_ord;
DROP INDEX IF EXISTS changes_action_ord;
DROP INDEX IF EXISTS changes_status_ord;
DROP INDEX IF EXISTS changes_unnumbered;
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
