-- Departures (issue 19): an item that leaves a project while it still
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
-- Milestones, deliverables and invoices only: threads and messages carry
-- their own visibility (internal) and are left for later.
--
-- Re-runnable like the others.
SET LOCAL search_path TO {{.Schema}};

CREATE TABLE IF NOT EXISTS departures (
	org_id        text        NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
	kind          text        NOT NULL CHECK (kind IN ('milestone', 'deliverable', 'invoice')),
	id            text        NOT NULL,
	project_id    text        NOT NULL,
	to_project_id text,
	departed_at   timestamptz NOT NULL,
	PRIMARY KEY (org_id, kind, id, project_id)
);
CREATE INDEX IF NOT EXISTS departures_list ON departures (org_id, project_id, departed_at);
CREATE INDEX IF NOT EXISTS departures_prune ON departures (departed_at);

CREATE OR REPLACE FUNCTION {{.Schema}}.clientstatus_depart() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'UPDATE' AND NEW.project_id IS NOT DISTINCT FROM OLD.project_id THEN
		RETURN NULL;
	END IF;
	DELETE FROM {{.Schema}}.departures AS d
	WHERE (d.org_id, d.kind, d.id, d.project_id) = (NEW.org_id, TG_ARGV[0], NEW.id, NEW.project_id);
	UPDATE {{.Schema}}.departures AS d SET to_project_id = NEW.project_id
	WHERE (d.org_id, d.kind, d.id) = (NEW.org_id, TG_ARGV[0], NEW.id);
	IF TG_OP = 'UPDATE' AND OLD.project_id IS NOT NULL THEN
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
BEGIN
	FOREACH t IN ARRAY ARRAY['milestones', 'deliverables', 'invoices'] LOOP
		EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_depart ON %I', t);
		EXECUTE format('CREATE TRIGGER clientstatus_depart AFTER INSERT OR UPDATE OF project_id ON %I FOR EACH ROW EXECUTE FUNCTION {{.Schema}}.clientstatus_depart(%L)',
			t, rtrim(t, 's'));
	END LOOP;
END
$$;
