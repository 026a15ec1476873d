-- Departures: an item that leaves a project while it still
-- exists (moved to another project or to none, a deleted project's
-- invoices by the foreign key's SET NULL) is a deletion for a key
-- restricted to that project, unless it is now in another of the key's
-- projects. One row per item and project it left: project_id is the
-- project it left, to_project_id where it is now (null for none; once the
-- item is deleted, the project its deletion record names), departed_at
-- the item's new stamp (clientstatus_stamp). A row is dropped when the
-- item comes back to that project (an update or an insert again), and
-- pruned after the deletion records' retention. A deleted item keeps its
-- rows: a key of the project it left before still sees it go.
--
-- Threads and messages too (a message's project_id is its thread's,
-- passed down by 20260701000001_threads), counting only what clients see:
-- a row departs when it was visible and stays visible in another project
-- (one made internal leaves a deletion record instead), and arrives when
-- it becomes visible in a project (inserted, moved, or made visible
-- again). The triggers fire on INSERT, and on an UPDATE that changes
-- project_id or the visibility (whoever set it: a BEFORE trigger too).
--
-- Re-runnable like the others.
SET LOCAL search_path TO {{.Schema}};

CREATE TABLE IF NOT EXISTS departures (
	org_id        text        NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
	kind          text        NOT NULL CHECK (kind IN ('milestone', 'deliverable', 'invoice', 'thread', 'message')),
	id            text        NOT NULL,
	project_id    text        NOT NULL,
	to_project_id text,
	departed_at   timestamptz NOT NULL,
	PRIMARY KEY (org_id, kind, id, project_id)
);
CREATE INDEX IF NOT EXISTS departures_list ON departures (org_id, project_id, departed_at);
CREATE INDEX IF NOT EXISTS departures_prune ON departures (departed_at);

-- visible: whether clients see the row (threads: internal; messages:
-- internal and thread_internal; the other kinds always).
CREATE OR REPLACE FUNCTION {{.Schema}}.clientstatus_visible(r jsonb) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
	SELECT NOT coalesce((r ->> 'internal')::boolean, false) AND NOT coalesce((r ->> 'thread_internal')::boolean, false)
$$;

CREATE OR REPLACE FUNCTION {{.Schema}}.clientstatus_depart() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	was boolean := TG_OP = 'UPDATE' AND {{.Schema}}.clientstatus_visible(to_jsonb(OLD));
BEGIN
	IF NOT {{.Schema}}.clientstatus_visible(to_jsonb(NEW)) OR was AND NEW.project_id IS NOT DISTINCT FROM OLD.project_id THEN
		RETURN NULL;
	END IF;
	DELETE FROM {{.Schema}}.departures AS d
	WHERE (d.org_id, d.kind, d.id, d.project_id) = (NEW.org_id, TG_ARGV[0], NEW.id, NEW.project_id);
	UPDATE {{.Schema}}.departures AS d SET to_project_id = NEW.project_id
	WHERE (d.org_id, d.kind, d.id) = (NEW.org_id, TG_ARGV[0], NEW.id);
	IF was AND OLD.project_id IS NOT NULL THEN
		INSERT INTO {{.Schema}}.departures (org_id, kind, id, project_id, to_project_id, departed_at)
		VALUES (NEW.org_id, TG_ARGV[0], NEW.id, OLD.project_id, NEW.project_id, {{.Schema}}.clientstatus_stamp())
		ON CONFLICT (org_id, kind, id, project_id) DO UPDATE SET to_project_id = EXCLUDED.to_project_id, departed_at = EXCLUDED.departed_at;
	END IF;
	DELETE FROM {{.Schema}}.departures AS d
	WHERE (d.org_id, d.kind, d.id, d.project_id) IN (
		SELECT p.org_id, p.kind, p.id, p.project_id FROM {{.Schema}}.departures AS p
		WHERE p.departed_at < statement_timestamp() - interval '31 days'
		ORDER BY p.departed_at
		LIMIT 100
		FOR UPDATE SKIP LOCKED);
	RETURN NULL;
END
$$;

DO $$
DECLARE
	t text;
	kind text;
	changed text;
BEGIN
	FOREACH t IN ARRAY ARRAY['milestones', 'deliverables', 'invoices', 'threads', 'messages'] LOOP
		kind := rtrim(t, 's');
		changed := CASE t
			WHEN 'threads' THEN '(OLD.project_id, OLD.internal) IS DISTINCT FROM (NEW.project_id, NEW.internal)'
			WHEN 'messages' THEN '(OLD.project_id, OLD.internal, OLD.thread_internal) IS DISTINCT FROM (NEW.project_id, NEW.internal, NEW.thread_internal)'
			ELSE 'OLD.project_id IS DISTINCT FROM NEW.project_id' END;
		EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_depart ON %I', t);
		EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_arrive ON %I', t);
		EXECUTE format('CREATE TRIGGER clientstatus_arrive AFTER INSERT ON %I FOR EACH ROW EXECUTE FUNCTION {{.Schema}}.clientstatus_depart(%L)', t, kind);
		EXECUTE format('CREATE TRIGGER clientstatus_depart AFTER UPDATE ON %I FOR EACH ROW WHEN (%s) EXECUTE FUNCTION {{.Schema}}.clientstatus_depart(%L)',
			t, changed, kind);
	END LOOP;
END
$$;
