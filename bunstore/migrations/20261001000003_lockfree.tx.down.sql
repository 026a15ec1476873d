-- Migrate renders {{.Schema}}: the schema the tables are in. Back to the
-- data versions of 20260801000001_versions and the counts of
-- 20260901000001_counts, updated in place by every writer: their
-- functions as those migrations made them (the triggers, named alike,
-- call them), data_versions carrying on each organization's version
-- (the sum of its log), the sequence past every version given, and the counts
-- recounted.
SET LOCAL search_path TO {{.Schema}};
SET LOCAL statement_timeout = 0;

CREATE SEQUENCE IF NOT EXISTS data_version_seq AS bigint;

-- version's default is the sequence's next value (bound to the sequence
-- itself, not to its name), so that the triggers' upsert moves it with
-- version = EXCLUDED.version and need not name the sequence.
CREATE TABLE IF NOT EXISTS data_versions (
	org_id  text   NOT NULL PRIMARY KEY,
	version bigint NOT NULL DEFAULT nextval('data_version_seq')
);

-- Every organization there is gets a version, so that 0 never stands for
-- data written before the triggers were there.
INSERT INTO data_versions (org_id) SELECT o.id FROM organizations AS o
ON CONFLICT (org_id) DO NOTHING;

-- bump_versions moves the version of each organization that the
-- statement's rows (org_id) belong to: the old rows' of a delete, the new
-- rows' of an insert, both of an update. It locks their rows of
-- data_versions until the transaction ends, in org_id order, so that
-- statements over the same organizations wait for each other rather than
-- deadlock; writers of one organization take turns from their first write
-- to their commit, as they must for the version to move with the data.
CREATE OR REPLACE FUNCTION {{.Schema}}.clientstatus_bump_versions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'INSERT' THEN
		INSERT INTO {{.Schema}}.data_versions (org_id) SELECT DISTINCT n.org_id FROM new_rows AS n ORDER BY 1
		ON CONFLICT (org_id) DO UPDATE SET version = EXCLUDED.version;
	ELSIF TG_OP = 'DELETE' THEN
		INSERT INTO {{.Schema}}.data_versions (org_id) SELECT DISTINCT o.org_id FROM old_rows AS o ORDER BY 1
		ON CONFLICT (org_id) DO UPDATE SET version = EXCLUDED.version;
	ELSE
		INSERT INTO {{.Schema}}.data_versions (org_id) SELECT o.org_id FROM old_rows AS o UNION SELECT n.org_id FROM new_rows AS n ORDER BY 1
		ON CONFLICT (org_id) DO UPDATE SET version = EXCLUDED.version;
	END IF;
	RETURN NULL;
END
$$;

-- bump_organization_versions is bump_versions for organizations, whose
-- own id is the organization.
CREATE OR REPLACE FUNCTION {{.Schema}}.clientstatus_bump_organization_versions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'INSERT' THEN
		INSERT INTO {{.Schema}}.data_versions (org_id) SELECT DISTINCT n.id FROM new_rows AS n ORDER BY 1
		ON CONFLICT (org_id) DO UPDATE SET version = EXCLUDED.version;
	ELSIF TG_OP = 'DELETE' THEN
		INSERT INTO {{.Schema}}.data_versions (org_id) SELECT DISTINCT o.id FROM old_rows AS o ORDER BY 1
		ON CONFLICT (org_id) DO UPDATE SET version = EXCLUDED.version;
	ELSE
		INSERT INTO {{.Schema}}.data_versions (org_id) SELECT o.id FROM old_rows AS o UNION SELECT n.id FROM new_rows AS n ORDER BY 1
		ON CONFLICT (org_id) DO UPDATE SET version = EXCLUDED.version;
	END IF;
	RETURN NULL;
END
$$;

-- bump_all_versions, after a TRUNCATE, which names no rows, moves every
-- organization's version and gives one to each organization without.
CREATE OR REPLACE FUNCTION {{.Schema}}.clientstatus_bump_all_versions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE {{.Schema}}.data_versions SET version = DEFAULT;
	INSERT INTO {{.Schema}}.data_versions (org_id) SELECT o.id FROM {{.Schema}}.organizations AS o
	ON CONFLICT (org_id) DO NOTHING;
	RETURN NULL;
END
$$;

-- The versions carried on, and the sequence past them.
INSERT INTO data_versions (org_id, version)
SELECT l.org_id, sum(l.n) FROM data_version_log AS l GROUP BY 1
ON CONFLICT (org_id) DO UPDATE SET version = EXCLUDED.version;
SELECT setval('data_version_seq', greatest((SELECT max(v.version) FROM data_versions AS v), 1));

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

DROP FUNCTION IF EXISTS clientstatus_log_versions(text[]), clientstatus_fold(text);
DROP TABLE IF EXISTS data_version_log;
DROP INDEX IF EXISTS item_counts_counts;
ALTER TABLE item_counts DROP COLUMN IF EXISTS xid;
ALTER TABLE item_counts ADD PRIMARY KEY (org_id, kind, status, project_id);
