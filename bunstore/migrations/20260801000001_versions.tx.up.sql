-- Data versions, for store.Versions: one number per organization that
-- every write to what its reads return moves, in the writing transaction,
-- to a value never used before (the sequence data_version_seq), so that a
-- cache keyed by it is never stale. It is all in triggers, so a portal's
-- plain-SQL writes move it too.
--
-- data_versions has no foreign key to organizations: an organization's row
-- outlives it, and a deleted organization put again goes on from the
-- sequence, never back to a value it had. An organization with no row
-- (none since this migration: the existing ones get one below) has
-- version 0, which the sequence never gives.
--
-- The triggers are AFTER ... FOR EACH STATEMENT, with transition tables:
-- one upsert per statement for the distinct organizations it wrote, not
-- one per row, so a batch of a thousand invoices costs one. PostgreSQL
-- allows a trigger with transition tables one event only, hence three per
-- table (insert, update, delete), and none on TRUNCATE (which has no
-- transition table): truncate triggers move every known organization.
-- An update moves the organizations of its old rows and of its new ones.
-- Cascades and the store's own triggers write through the same tables and
-- so fire the same triggers. A statement that writes no row (a put that
-- changes nothing) moves nothing: nothing a read returns changed.
--
-- Re-runnable like the others: IF NOT EXISTS, CREATE OR REPLACE, and DROP
-- ... IF EXISTS before what has no IF NOT EXISTS. Needs the tables of
-- 20260401000001_changes and 20260701000001_threads.

-- Migrate renders {{.Schema}}: the schema the tables are in. The trigger
-- functions name it, as they run under whatever search_path the writing
-- session has.
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

-- The tables whose rows an organization's reads return or depend on, the
-- deletion records included. Those are written by the triggers of the
-- item tables, whose own triggers move the same organization's version in
-- the same statement (and prune_deletions removes only records that no
-- read returns any more), so the triggers on deletions fire only for a
-- statement run outside any trigger, a portal's own SQL: forget_deletion
-- runs a DELETE for every row put, and a statement trigger fires even
-- when its statement deletes nothing.
-- Four triggers on each table, made in a loop: t is the table, bump the
-- function that moves its organizations' versions, guard the condition
-- under which its triggers fire (deletions': only outside a trigger).
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
END
$$;
