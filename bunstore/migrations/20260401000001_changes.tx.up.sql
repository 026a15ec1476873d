-- Change tracking, for store.Changes and store.Deleter: every item's
-- updated_at is the database's own, a removed item leaves a deletion
-- record, and deleting cascades as the contract says. It is all in
-- triggers and foreign keys, so a portal's plain-SQL writes to these tables
-- keep the same promises as the store's own.
--
-- The clock is statement_timestamp(): when the client's statement began,
-- the same for every row it writes, cascades and triggers included (a
-- deleted project, its milestones and the invoices it leaves share one
-- time), and later for each statement of a transaction.
--
-- Re-runnable like the first migration: IF NOT EXISTS, CREATE OR REPLACE,
-- and DROP ... IF EXISTS before what has no IF NOT EXISTS. Needs
-- PostgreSQL 15 (ON DELETE SET NULL of one column of a key).

-- Migrate renders {{.Schema}}: the schema the tables are in. The trigger
-- functions name it, as they run under whatever search_path the writing
-- session has.
SET LOCAL search_path TO {{.Schema}};
SET LOCAL statement_timeout = 0;

-- The triggers go first, so that the backfill below is not undone, and come
-- back at the end.
DROP TRIGGER IF EXISTS clientstatus_touch ON projects;
DROP TRIGGER IF EXISTS clientstatus_touch ON milestones;
DROP TRIGGER IF EXISTS clientstatus_touch ON deliverables;
DROP TRIGGER IF EXISTS clientstatus_touch ON invoices;

-- When this schema began recording deletions (one row, written once): a
-- client asking for deletions since before then must resync in full.
CREATE TABLE IF NOT EXISTS sync_horizon (
	one             boolean     NOT NULL PRIMARY KEY DEFAULT true CHECK (one),
	recording_since timestamptz NOT NULL
);
INSERT INTO sync_horizon (recording_since) VALUES (statement_timestamp()) ON CONFLICT (one) DO NOTHING;

-- One record per removed item, dropped when an item of the same kind and id
-- is put again. project_id is the project the item belonged to (a
-- project's own id for a project; null for a retainer invoice).
CREATE TABLE IF NOT EXISTS deletions (
	org_id     text        NOT NULL,
	kind       text        NOT NULL CHECK (kind IN ('project', 'milestone', 'deliverable', 'invoice', 'thread', 'message')),
	id         text        NOT NULL,
	project_id text,
	deleted_at timestamptz NOT NULL,
	PRIMARY KEY (org_id, kind, id)
);
CREATE INDEX IF NOT EXISTS deletions_list ON deletions (org_id, deleted_at, kind, id);
CREATE INDEX IF NOT EXISTS deletions_list_kind ON deletions (org_id, kind, deleted_at, id);
CREATE INDEX IF NOT EXISTS deletions_prune ON deletions (deleted_at);

-- Milestones and invoices gain updated_at: existing rows get this
-- migration's time (a default evaluated once, without rewriting the table).
ALTER TABLE milestones ADD COLUMN IF NOT EXISTS updated_at timestamptz NOT NULL DEFAULT statement_timestamp();
ALTER TABLE invoices ADD COLUMN IF NOT EXISTS updated_at timestamptz NOT NULL DEFAULT statement_timestamp();
ALTER TABLE projects ALTER COLUMN updated_at SET DEFAULT statement_timestamp();
ALTER TABLE deliverables ALTER COLUMN updated_at SET DEFAULT statement_timestamp();
-- Projects and deliverables kept the portal's times until now; one in the
-- future would hold a client's sync back until then.
UPDATE projects SET updated_at = statement_timestamp() WHERE updated_at > statement_timestamp();
UPDATE deliverables SET updated_at = statement_timestamp() WHERE updated_at > statement_timestamp();

-- updatedSince: organization first, then the list's filters, then its
-- order (updated_at, id).
CREATE INDEX IF NOT EXISTS projects_changes ON projects (org_id, updated_at, id);
CREATE INDEX IF NOT EXISTS projects_changes_status ON projects (org_id, status, updated_at, id);
CREATE INDEX IF NOT EXISTS milestones_changes ON milestones (org_id, project_id, updated_at, id);
CREATE INDEX IF NOT EXISTS milestones_changes_status ON milestones (org_id, project_id, status, updated_at, id);
CREATE INDEX IF NOT EXISTS deliverables_changes ON deliverables (org_id, updated_at, id);
CREATE INDEX IF NOT EXISTS deliverables_changes_status ON deliverables (org_id, status, updated_at, id);
CREATE INDEX IF NOT EXISTS deliverables_changes_project ON deliverables (org_id, project_id, updated_at, id);
CREATE INDEX IF NOT EXISTS deliverables_changes_project_status ON deliverables (org_id, project_id, status, updated_at, id);
CREATE INDEX IF NOT EXISTS invoices_changes ON invoices (org_id, updated_at, id);
CREATE INDEX IF NOT EXISTS invoices_changes_status ON invoices (org_id, status, updated_at, id);
CREATE INDEX IF NOT EXISTS invoices_changes_project ON invoices (org_id, project_id, updated_at, id);
CREATE INDEX IF NOT EXISTS invoices_changes_project_status ON invoices (org_id, project_id, status, updated_at, id);

-- Cascades: an organization takes its keys, projects and invoices; a
-- project its milestones and deliverables, and the invoices that named it
-- keep their place with project_id null (which moves their updated_at).
ALTER TABLE api_keys DROP CONSTRAINT IF EXISTS api_keys_org_id_fkey,
	ADD CONSTRAINT api_keys_org_id_fkey FOREIGN KEY (org_id) REFERENCES organizations (id) ON DELETE CASCADE;
ALTER TABLE projects DROP CONSTRAINT IF EXISTS projects_org_id_fkey,
	ADD CONSTRAINT projects_org_id_fkey FOREIGN KEY (org_id) REFERENCES organizations (id) ON DELETE CASCADE;
ALTER TABLE milestones DROP CONSTRAINT IF EXISTS milestones_org_id_project_id_fkey,
	ADD CONSTRAINT milestones_org_id_project_id_fkey FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id) ON DELETE CASCADE;
ALTER TABLE deliverables DROP CONSTRAINT IF EXISTS deliverables_org_id_project_id_fkey,
	ADD CONSTRAINT deliverables_org_id_project_id_fkey FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id) ON DELETE CASCADE;
ALTER TABLE invoices DROP CONSTRAINT IF EXISTS invoices_org_id_fkey,
	ADD CONSTRAINT invoices_org_id_fkey FOREIGN KEY (org_id) REFERENCES organizations (id) ON DELETE CASCADE;
ALTER TABLE invoices DROP CONSTRAINT IF EXISTS invoices_org_id_project_id_fkey,
	ADD CONSTRAINT invoices_org_id_project_id_fkey FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id) ON DELETE SET NULL (project_id);

-- touch keeps updated_at the store's: now on an insert, whatever it was
-- given; now on an update that changes any other column; unchanged on one
-- that does not. An item's id and organization never change: a client
-- would see neither the old one go nor the new one come.
CREATE OR REPLACE FUNCTION {{.Schema}}.clientstatus_touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'UPDATE' THEN
		IF NEW.org_id IS DISTINCT FROM OLD.org_id OR NEW.id IS DISTINCT FROM OLD.id THEN
			RAISE EXCEPTION 'clientstatus: the id and org_id of a row of % do not change: delete it and insert another', TG_TABLE_NAME
				USING ERRCODE = 'check_violation';
		END IF;
		NEW.updated_at := OLD.updated_at;
		IF NEW IS NOT DISTINCT FROM OLD THEN
			RETURN NEW;
		END IF;
	END IF;
	NEW.updated_at := statement_timestamp();
	RETURN NEW;
END
$$;

-- record_deletion leaves the record of a deleted row (TG_ARGV: its kind,
-- and the column holding its project), unless its organization is going
-- too: no key can ask for that organization's deletions any more.
CREATE OR REPLACE FUNCTION {{.Schema}}.clientstatus_record_deletion() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO {{.Schema}}.deletions (org_id, kind, id, project_id, deleted_at)
	SELECT OLD.org_id, TG_ARGV[0], OLD.id, to_jsonb(OLD) ->> TG_ARGV[1], statement_timestamp()
	WHERE EXISTS (SELECT FROM {{.Schema}}.organizations AS o WHERE o.id = OLD.org_id)
	ON CONFLICT (org_id, kind, id) DO UPDATE SET project_id = EXCLUDED.project_id, deleted_at = EXCLUDED.deleted_at;
	RETURN NULL;
END
$$;

-- forget_deletion drops the record of an item put again (TG_ARGV: its kind).
CREATE OR REPLACE FUNCTION {{.Schema}}.clientstatus_forget_deletion() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM {{.Schema}}.deletions AS d WHERE d.org_id = NEW.org_id AND d.kind = TG_ARGV[0] AND d.id = NEW.id;
	RETURN NULL;
END
$$;

-- forget_organization drops a deleted organization's records.
CREATE OR REPLACE FUNCTION {{.Schema}}.clientstatus_forget_organization() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM {{.Schema}}.deletions AS d WHERE d.org_id = OLD.id;
	RETURN NULL;
END
$$;

-- prune_deletions removes, once per deleting statement, at most 1,000
-- records older than store.DeletionRetention (30 days) and a day more, so
-- that a client asking from the horizon (now - 30 days) never misses one
-- pruned under it. Rows another transaction is pruning are skipped, not
-- waited for.
CREATE OR REPLACE FUNCTION {{.Schema}}.clientstatus_prune_deletions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM {{.Schema}}.deletions AS d
	WHERE (d.org_id, d.kind, d.id) IN (
		SELECT p.org_id, p.kind, p.id FROM {{.Schema}}.deletions AS p
		WHERE p.deleted_at < statement_timestamp() - interval '31 days'
		ORDER BY p.deleted_at
		LIMIT 1000
		FOR UPDATE SKIP LOCKED);
	RETURN NULL;
END
$$;

DROP TRIGGER IF EXISTS clientstatus_forget_organization ON organizations;
CREATE TRIGGER clientstatus_forget_organization AFTER DELETE ON organizations
	FOR EACH ROW EXECUTE FUNCTION {{.Schema}}.clientstatus_forget_organization();

CREATE TRIGGER clientstatus_touch BEFORE INSERT OR UPDATE ON projects
	FOR EACH ROW EXECUTE FUNCTION {{.Schema}}.clientstatus_touch();
DROP TRIGGER IF EXISTS clientstatus_forget_deletion ON projects;
CREATE TRIGGER clientstatus_forget_deletion AFTER INSERT ON projects
	FOR EACH ROW EXECUTE FUNCTION {{.Schema}}.clientstatus_forget_deletion('project');
DROP TRIGGER IF EXISTS clientstatus_record_deletion ON projects;
CREATE TRIGGER clientstatus_record_deletion AFTER DELETE ON projects
	FOR EACH ROW EXECUTE FUNCTION {{.Schema}}.clientstatus_record_deletion('project', 'id');
DROP TRIGGER IF EXISTS clientstatus_prune_deletions ON projects;
CREATE TRIGGER clientstatus_prune_deletions AFTER DELETE ON projects
	FOR EACH STATEMENT EXECUTE FUNCTION {{.Schema}}.clientstatus_prune_deletions();

CREATE TRIGGER clientstatus_touch BEFORE INSERT OR UPDATE ON milestones
	FOR EACH ROW EXECUTE FUNCTION {{.Schema}}.clientstatus_touch();
DROP TRIGGER IF EXISTS clientstatus_forget_deletion ON milestones;
CREATE TRIGGER clientstatus_forget_deletion AFTER INSERT ON milestones
	FOR EACH ROW EXECUTE FUNCTION {{.Schema}}.clientstatus_forget_deletion('milestone');
DROP TRIGGER IF EXISTS clientstatus_record_deletion ON milestones;
CREATE TRIGGER clientstatus_record_deletion AFTER DELETE ON milestones
	FOR EACH ROW EXECUTE FUNCTION {{.Schema}}.clientstatus_record_deletion('milestone', 'project_id');
DROP TRIGGER IF EXISTS clientstatus_prune_deletions ON milestones;
CREATE TRIGGER clientstatus_prune_deletions AFTER DELETE ON milestones
	FOR EACH STATEMENT EXECUTE FUNCTION {{.Schema}}.clientstatus_prune_deletions();

CREATE TRIGGER clientstatus_touch BEFORE INSERT OR UPDATE ON deliverables
	FOR EACH ROW EXECUTE FUNCTION {{.Schema}}.clientstatus_touch();
DROP TRIGGER IF EXISTS clientstatus_forget_deletion ON deliverables;
CREATE TRIGGER clientstatus_forget_deletion AFTER INSERT ON deliverables
	FOR EACH ROW EXECUTE FUNCTION {{.Schema}}.clientstatus_forget_deletion('deliverable');
DROP TRIGGER IF EXISTS clientstatus_record_deletion ON deliverables;
CREATE TRIGGER clientstatus_record_deletion AFTER DELETE ON deliverables
	FOR EACH ROW EXECUTE FUNCTION {{.Schema}}.clientstatus_record_deletion('deliverable', 'project_id');
DROP TRIGGER IF EXISTS clientstatus_prune_deletions ON deliverables;
CREATE TRIGGER clientstatus_prune_deletions AFTER DELETE ON deliverables
	FOR EACH STATEMENT EXECUTE FUNCTION {{.Schema}}.clientstatus_prune_deletions();

CREATE TRIGGER clientstatus_touch BEFORE INSERT OR UPDATE ON invoices
	FOR EACH ROW EXECUTE FUNCTION {{.Schema}}.clientstatus_touch();
DROP TRIGGER IF EXISTS clientstatus_forget_deletion ON invoices;
CREATE TRIGGER clientstatus_forget_deletion AFTER INSERT ON invoices
	FOR EACH ROW EXECUTE FUNCTION {{.Schema}}.clientstatus_forget_deletion('invoice');
DROP TRIGGER IF EXISTS clientstatus_record_deletion ON invoices;
CREATE TRIGGER clientstatus_record_deletion AFTER DELETE ON invoices
	FOR EACH ROW EXECUTE FUNCTION {{.Schema}}.clientstatus_record_deletion('invoice', 'project_id');
DROP TRIGGER IF EXISTS clientstatus_prune_deletions ON invoices;
CREATE TRIGGER clientstatus_prune_deletions AFTER DELETE ON invoices
	FOR EACH STATEMENT EXECUTE FUNCTION {{.Schema}}.clientstatus_prune_deletions();
