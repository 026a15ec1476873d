-- Item counts, for the totals of the lists: item_counts holds, for each
-- organization, kind of item, status and project, how many items there
-- are, kept by triggers, so that a list without UpdatedSince sums a few
-- rows of it instead of counting every matching item (which costs as many
-- index entries as there are items). A list with UpdatedSince still counts
-- its rows: the counts know nothing of times.
--
-- project_id is the project an item belongs to: a project's own id for a
-- project (so that a restriction to some projects, or one project, finds
-- its count), '' for an invoice of no project (a retainer invoice), which
-- a filter on projects never matches, as the items' own project_id IS
-- NULL never does. A total is then
--
--	SELECT coalesce(sum(n), 0) FROM item_counts
--	WHERE org_id = ? AND kind = ? [AND status = ?] [AND project_id = ?] [AND project_id = ANY(?)]
--
-- which reads one row per (status, project) the organization has items
-- of: as many as its projects (a handful of statuses each), however many
-- items they hold.
--
-- The triggers are AFTER ... FOR EACH STATEMENT, with transition tables,
-- as the versions' are: one upsert per statement of the counts it moved,
-- grouped, so that a batch of a thousand invoices adds to a few rows
-- once. An insert adds its new rows, a delete subtracts its old ones, an
-- update does both and writes only the counts that moved (a change of
-- name moves none). Cascades (a project's milestones and deliverables, an
-- organization's everything) and ON DELETE SET NULL (the invoices of a
-- deleted project, which move to project '') write through the same
-- tables and so fire the same triggers. A TRUNCATE, which has no
-- transition table, deletes its table's kind's counts; one that cascades
-- fires the triggers of every table it empties.
--
-- A count that reaches 0 is deleted, in the same trigger: otherwise every
-- (status, project) an organization ever had, deleted projects and
-- deleted organizations included, would stay for ever, and every total
-- would sum over them. Only a statement that subtracted something can
-- leave a 0, and only the rows it just locked are deleted.
--
-- Locks: the upsert writes in primary-key order, so that two statements
-- over the same counts wait for each other rather than deadlock; and the
-- triggers are named clientstatus_z_count_* so that they fire after the
-- clientstatus_version_* triggers of the same event (PostgreSQL fires
-- them in name order), which lock the statement's organizations' rows of
-- data_versions first: writers of one organization take turns there
-- before they touch its counts, and cannot hold counts the other waits
-- for.
--
-- Re-runnable like the others: IF NOT EXISTS, CREATE OR REPLACE, and DROP
-- ... IF EXISTS before what has no IF NOT EXISTS; the backfill recounts
-- from scratch. Needs the tables of 20260401000001_changes and the
-- triggers of 20260801000001_versions.

-- Migrate renders {{.Schema}}: the schema the tables are in. The trigger
-- functions name it, as they run under whatever search_path the writing
-- session has.
SET LOCAL search_path TO {{.Schema}};
SET LOCAL statement_timeout = 0;

CREATE TABLE IF NOT EXISTS item_counts (
	org_id     text   NOT NULL,
	kind       text   NOT NULL CHECK (kind IN ('project', 'milestone', 'deliverable', 'invoice')),
	status     text   NOT NULL,
	project_id text   NOT NULL DEFAULT '',
	n          bigint NOT NULL,
	PRIMARY KEY (org_id, kind, status, project_id)
);

-- The count functions, one per table, made from one text: kind is the
-- kind of item, project the expression of a row r's project ('' for
-- none). Each moves the counts of the statement's rows: the new rows'
-- up, the old rows' down; those of an update that cancel out are not
-- written at all. A statement that subtracted deletes the counts it
-- brought to 0.
DO $$
DECLARE
	t text;
	kind text;
	project text;
BEGIN
	FOREACH t IN ARRAY ARRAY['projects', 'milestones', 'deliverables', 'invoices'] LOOP
		kind := rtrim(t, 's');
		project := CASE t WHEN 'projects' THEN 'r.id' ELSE 'coalesce(r.project_id, '''')' END;
		EXECUTE format($f$
CREATE OR REPLACE FUNCTION {{.Schema}}.%I() RETURNS trigger LANGUAGE plpgsql AS $body$
DECLARE
	zeros bigint := 0;
BEGIN
	IF TG_OP = 'INSERT' THEN
		INSERT INTO {{.Schema}}.item_counts AS c (org_id, kind, status, project_id, n)
		SELECT r.org_id, %L, r.status, %s, count(*) FROM new_rows AS r
		GROUP BY 1, 3, 4 ORDER BY 1, 3, 4
		ON CONFLICT (org_id, kind, status, project_id) DO UPDATE SET n = c.n + EXCLUDED.n;
		RETURN NULL;
	END IF;
	IF TG_OP = 'DELETE' THEN
		WITH counted AS (
			INSERT INTO {{.Schema}}.item_counts AS c (org_id, kind, status, project_id, n)
			SELECT r.org_id, %L, r.status, %s, -count(*) FROM old_rows AS r
			GROUP BY 1, 3, 4 ORDER BY 1, 3, 4
			ON CONFLICT (org_id, kind, status, project_id) DO UPDATE SET n = c.n + EXCLUDED.n
			RETURNING c.n
		)
		SELECT count(*) INTO zeros FROM counted AS k WHERE k.n = 0;
	ELSE
		WITH moved AS (
			SELECT r.org_id, r.status, %s AS project_id, -1 AS n FROM old_rows AS r
			UNION ALL
			SELECT r.org_id, r.status, %s, 1 FROM new_rows AS r
		), counted AS (
			INSERT INTO {{.Schema}}.item_counts AS c (org_id, kind, status, project_id, n)
			SELECT m.org_id, %L, m.status, m.project_id, sum(m.n) FROM moved AS m
			GROUP BY 1, 3, 4 HAVING sum(m.n) <> 0 ORDER BY 1, 3, 4
			ON CONFLICT (org_id, kind, status, project_id) DO UPDATE SET n = c.n + EXCLUDED.n
			RETURNING c.n
		)
		SELECT count(*) INTO zeros FROM counted AS k WHERE k.n = 0;
	END IF;
	IF zeros > 0 THEN
		DELETE FROM {{.Schema}}.item_counts AS c
		USING (SELECT DISTINCT r.org_id, r.status, %s AS project_id FROM old_rows AS r) AS o
		WHERE c.org_id = o.org_id AND c.kind = %L AND c.status = o.status AND c.project_id = o.project_id AND c.n = 0;
	END IF;
	RETURN NULL;
END
$body$
$f$, 'clientstatus_count_' || t, kind, project, kind, project, project, project, kind, project, kind);
	END LOOP;
END
$$;

-- forget_counts, after a TRUNCATE (TG_ARGV: the table's kind), deletes
-- that kind's counts.
CREATE OR REPLACE FUNCTION {{.Schema}}.clientstatus_forget_counts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM {{.Schema}}.item_counts AS c WHERE c.kind = TG_ARGV[0];
	RETURN NULL;
END
$$;

-- Four triggers on each table. Making them locks the tables against
-- writes until this migration commits, so that the backfill below counts
-- every row that the triggers do not.
DO $$
DECLARE
	t text;
BEGIN
	FOREACH t IN ARRAY ARRAY['projects', 'milestones', 'deliverables', 'invoices'] LOOP
		EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_z_count_insert ON %I', t);
		EXECUTE format('CREATE TRIGGER clientstatus_z_count_insert AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows '
			'FOR EACH STATEMENT EXECUTE FUNCTION {{.Schema}}.%I()', t, 'clientstatus_count_' || t);
		EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_z_count_update ON %I', t);
		EXECUTE format('CREATE TRIGGER clientstatus_z_count_update AFTER UPDATE ON %I REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows '
			'FOR EACH STATEMENT EXECUTE FUNCTION {{.Schema}}.%I()', t, 'clientstatus_count_' || t);
		EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_z_count_delete ON %I', t);
		EXECUTE format('CREATE TRIGGER clientstatus_z_count_delete AFTER DELETE ON %I REFERENCING OLD TABLE AS old_rows '
			'FOR EACH STATEMENT EXECUTE FUNCTION {{.Schema}}.%I()', t, 'clientstatus_count_' || t);
		EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_z_count_truncate ON %I', t);
		EXECUTE format('CREATE TRIGGER clientstatus_z_count_truncate AFTER TRUNCATE ON %I '
			'FOR EACH STATEMENT EXECUTE FUNCTION {{.Schema}}.clientstatus_forget_counts(%L)', t, rtrim(t, 's'));
	END LOOP;
END
$$;

-- The backfill: every count from scratch, so that running this again
-- puts right whatever a run without the triggers (a portal's writes with
-- session_replication_role = replica, say) left wrong.
DELETE FROM item_counts;
INSERT INTO item_counts (org_id, kind, status, project_id, n)
SELECT org_id, 'project', status, id, count(*) FROM projects GROUP BY 1, 3, 4
UNION ALL
SELECT org_id, 'milestone', status, project_id, count(*) FROM milestones GROUP BY 1, 3, 4
UNION ALL
SELECT org_id, 'deliverable', status, project_id, count(*) FROM deliverables GROUP BY 1, 3, 4
UNION ALL
SELECT org_id, 'invoice', status, coalesce(project_id, ''), count(*) FROM invoices GROUP BY 1, 3, 4;
