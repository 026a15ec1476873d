-- Writers that never wait for each other: the data versions of
-- 20260801000001_versions and the item counts of 20260901000001_counts,
-- which every writer updated in place, a row of the organization's (and of
-- its kind, status and project) held until commit, so that writers of one
-- organization took turns, become rows that writers only insert.
--
-- Versions. data_version_log gets a row (n = 1) per organization per
-- writing statement, in the writer's transaction; an organization's
-- version is the sum of the n of its rows that a reader sees. Every
-- committed write adds one, so the version moves with every write that
-- commits, at once on every replica (rows like the data's, in the same
-- commit), and never back: rows only leave the log folded into another
-- of the same sum, in one commit. An organization without rows has
-- version 0; the rows outlive it (no foreign key), so an organization
-- deleted and put again goes on from its version. The versions of
-- data_versions are carried on as one row each.
--
-- Counts. item_counts loses its primary key and gets, per statement, the
-- counts it moved (org, kind, status, project, n: deltas), as its upserts
-- did; a list's total sums its rows of the filter, as before, through the
-- index item_counts_counts in place of the key.
--
-- Folding. Each writing statement then folds, for each organization it
-- wrote, the rows of the log and of item_counts that other transactions
-- committed (visible to it, not its own), which it locks FOR UPDATE SKIP
-- LOCKED: deletes them and inserts one row per sum (none for a delta
-- of 0). Rows another transaction is folding are locked by it until it
-- ends and skipped, so nobody waits, and no row is folded twice; a reader
-- sees a fold's deletes and its sum together, in its commit, or neither.
-- An organization's log and counts are thus a few rows: one per count
-- and a row per writing statement not yet folded (more while a
-- transaction that folded stays open, holding what it folded). A
-- transaction in REPEATABLE READ or SERIALIZABLE does not fold: locking a
-- row another has deleted would fail it.
--
-- The triggers keep the names of those they replace (clientstatus_version_*
-- and clientstatus_z_count_*, AFTER ... FOR EACH STATEMENT with
-- transition tables), so that the rules of which statements fire them stay
-- as 20260801000001_versions and 20260901000001_counts describe.
--
-- Re-runnable: IF NOT EXISTS, CREATE OR REPLACE, DROP ... IF EXISTS; the
-- backfill recounts from scratch.

SET LOCAL search_path TO {{.Schema}};
SET LOCAL statement_timeout = 0;

CREATE TABLE IF NOT EXISTS data_version_log (
	org_id text   NOT NULL,
	n      bigint NOT NULL DEFAULT 1,
	xid    xid8   NOT NULL DEFAULT pg_current_xact_id()
);
CREATE INDEX IF NOT EXISTS data_version_log_org ON data_version_log (org_id);

ALTER TABLE item_counts DROP CONSTRAINT IF EXISTS item_counts_pkey;
ALTER TABLE item_counts ADD COLUMN IF NOT EXISTS xid xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX IF NOT EXISTS item_counts_counts ON item_counts (org_id, kind, status, project_id);

-- The versions carried on: data_versions' (gone after this), the log
-- folded to one row each.
DO $$
BEGIN
	IF to_regclass('data_versions') IS NOT NULL THEN
		INSERT INTO data_version_log (org_id, n) SELECT v.org_id, v.version FROM data_versions AS v;
	END IF;
END
$$;
WITH gone AS (DELETE FROM data_version_log AS l RETURNING l.org_id, l.n)
INSERT INTO data_version_log (org_id, n) SELECT g.org_id, sum(g.n) FROM gone AS g GROUP BY 1;

-- fold(org): see above. A row taken alone is left as it is.
CREATE OR REPLACE FUNCTION {{.Schema}}.clientstatus_fold(org text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	IF current_setting('transaction_isolation') <> 'read committed' THEN
		RETURN;
	END IF;
	WITH taken AS (
		SELECT l.ctid FROM {{.Schema}}.data_version_log AS l
		WHERE l.org_id = org AND l.xid <> pg_current_xact_id()
		FOR UPDATE SKIP LOCKED
	), folded AS (
		SELECT t.ctid FROM taken AS t WHERE (SELECT count(*) FROM taken) > 1
	), gone AS (
		DELETE FROM {{.Schema}}.data_version_log AS l USING folded AS t WHERE l.ctid = t.ctid RETURNING l.n
	)
	INSERT INTO {{.Schema}}.data_version_log (org_id, n)
	SELECT org, sum(g.n) FROM gone AS g HAVING count(*) > 0;
	WITH taken AS (
		SELECT d.ctid FROM {{.Schema}}.item_counts AS d
		WHERE d.org_id = org AND d.xid <> pg_current_xact_id()
		FOR UPDATE SKIP LOCKED
	), folded AS (
		SELECT t.ctid FROM taken AS t WHERE (SELECT count(*) FROM taken) > 1
	), gone AS (
		DELETE FROM {{.Schema}}.item_counts AS d USING folded AS t WHERE d.ctid = t.ctid
		RETURNING d.kind, d.status, d.project_id, d.n
	)
	INSERT INTO {{.Schema}}.item_counts (org_id, kind, status, project_id, n)
	SELECT org, g.kind, g.status, g.project_id, sum(g.n) FROM gone AS g GROUP BY 2, 3, 4 HAVING sum(g.n) <> 0;
END
$$;

-- log_versions(orgs): one log row per organization the statement wrote,
-- then the fold of each.
CREATE OR REPLACE FUNCTION {{.Schema}}.clientstatus_log_versions(orgs text[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	org text;
BEGIN
	INSERT INTO {{.Schema}}.data_version_log (org_id) SELECT DISTINCT o FROM unnest(orgs) AS o;
	FOREACH org IN ARRAY ARRAY(SELECT DISTINCT o FROM unnest(orgs) AS o ORDER BY 1) LOOP
		PERFORM {{.Schema}}.clientstatus_fold(org);
	END LOOP;
END
$$;

-- bump_versions, the trigger of the item tables: the organizations of
-- the statement's rows (org_id), old and new.
CREATE OR REPLACE FUNCTION {{.Schema}}.clientstatus_bump_versions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'INSERT' THEN
		PERFORM {{.Schema}}.clientstatus_log_versions(ARRAY(SELECT n.org_id FROM new_rows AS n));
	ELSIF TG_OP = 'DELETE' THEN
		PERFORM {{.Schema}}.clientstatus_log_versions(ARRAY(SELECT o.org_id FROM old_rows AS o));
	ELSE
		PERFORM {{.Schema}}.clientstatus_log_versions(ARRAY(SELECT o.org_id FROM old_rows AS o UNION SELECT n.org_id FROM new_rows AS n));
	END IF;
	RETURN NULL;
END
$$;

-- bump_organization_versions, for organizations, whose own id is the
-- organization.
CREATE OR REPLACE FUNCTION {{.Schema}}.clientstatus_bump_organization_versions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'INSERT' THEN
		PERFORM {{.Schema}}.clientstatus_log_versions(ARRAY(SELECT n.id FROM new_rows AS n));
	ELSIF TG_OP = 'DELETE' THEN
		PERFORM {{.Schema}}.clientstatus_log_versions(ARRAY(SELECT o.id FROM old_rows AS o));
	ELSE
		PERFORM {{.Schema}}.clientstatus_log_versions(ARRAY(SELECT o.id FROM old_rows AS o UNION SELECT n.id FROM new_rows AS n));
	END IF;
	RETURN NULL;
END
$$;

-- bump_all_versions, after a TRUNCATE, which names no rows: a log row for
-- every organization known, of the log or of organizations.
CREATE OR REPLACE FUNCTION {{.Schema}}.clientstatus_bump_all_versions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO {{.Schema}}.data_version_log (org_id)
	SELECT l.org_id FROM {{.Schema}}.data_version_log AS l UNION SELECT o.id FROM {{.Schema}}.organizations AS o;
	RETURN NULL;
END
$$;

-- The count functions, one per table, as 20260901000001_counts made
-- them, inserting the statement's deltas instead of adding them up.
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
BEGIN
	IF TG_OP = 'INSERT' THEN
		INSERT INTO {{.Schema}}.item_counts (org_id, kind, status, project_id, n)
		SELECT r.org_id, %L, r.status, %s, count(*) FROM new_rows AS r GROUP BY 1, 3, 4;
	ELSIF TG_OP = 'DELETE' THEN
		INSERT INTO {{.Schema}}.item_counts (org_id, kind, status, project_id, n)
		SELECT r.org_id, %L, r.status, %s, -count(*) FROM old_rows AS r GROUP BY 1, 3, 4;
	ELSE
		INSERT INTO {{.Schema}}.item_counts (org_id, kind, status, project_id, n)
		SELECT m.org_id, %L, m.status, m.project_id, sum(m.n) FROM (
			SELECT r.org_id, r.status, %s AS project_id, -1 AS n FROM old_rows AS r
			UNION ALL
			SELECT r.org_id, r.status, %s, 1 FROM new_rows AS r
		) AS m GROUP BY 1, 3, 4 HAVING sum(m.n) <> 0;
	END IF;
	RETURN NULL;
END
$body$
$f$, 'clientstatus_count_' || t, kind, project, kind, project, kind, project, project);
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

-- The triggers, as before (made again, so that this file also puts them
-- right after a run of an older one).
DO $$
DECLARE
	t text;
	bump text;
	guard text;
BEGIN
	FOREACH t IN ARRAY ARRAY['organizations', 'projects', 'milestones', 'deliverables', 'invoices',
		'threads', 'messages', 'attachments', 'deletions'] LOOP
		bump := CASE t WHEN 'organizations' THEN 'clientstatus_bump_organization_versions'
			ELSE 'clientstatus_bump_versions' END;
		guard := CASE t WHEN 'deletions' THEN 'WHEN (pg_trigger_depth() < 1)' ELSE '' END;
		EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_version_insert ON %I', t);
		EXECUTE format('CREATE TRIGGER clientstatus_version_insert AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows '
			'FOR EACH STATEMENT %s EXECUTE FUNCTION {{.Schema}}.%I()', t, guard, bump);
		EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_version_update ON %I', t);
		EXECUTE format('CREATE TRIGGER clientstatus_version_update AFTER UPDATE ON %I REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows '
			'FOR EACH STATEMENT %s EXECUTE FUNCTION {{.Schema}}.%I()', t, guard, bump);
		EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_version_delete ON %I', t);
		EXECUTE format('CREATE TRIGGER clientstatus_version_delete AFTER DELETE ON %I REFERENCING OLD TABLE AS old_rows '
			'FOR EACH STATEMENT %s EXECUTE FUNCTION {{.Schema}}.%I()', t, guard, bump);
		EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_version_truncate ON %I', t);
		EXECUTE format('CREATE TRIGGER clientstatus_version_truncate AFTER TRUNCATE ON %I '
			'FOR EACH STATEMENT EXECUTE FUNCTION {{.Schema}}.clientstatus_bump_all_versions()', t);
	END LOOP;
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

-- The backfill: every count from scratch, a row each (the triggers above
-- lock the tables against writes until this commits).
DELETE FROM item_counts;
INSERT INTO item_counts (org_id, kind, status, project_id, n)
SELECT org_id, 'project', status, id, count(*) FROM projects GROUP BY 1, 3, 4
UNION ALL
SELECT org_id, 'milestone', status, project_id, count(*) FROM milestones GROUP BY 1, 3, 4
UNION ALL
SELECT org_id, 'deliverable', status, project_id, count(*) FROM deliverables GROUP BY 1, 3, 4
UNION ALL
SELECT org_id, 'invoice', status, coalesce(project_id, ''), count(*) FROM invoices GROUP BY 1, 3, 4;

DROP TABLE IF EXISTS data_versions;
DROP SEQUENCE IF EXISTS data_version_seq;
