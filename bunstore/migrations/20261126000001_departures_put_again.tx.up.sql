-- A deleted item put again in another project. The put drops
-- the item's deletion record (clientstatus_forget_deletion,
-- 20260401000001_changes), which a key restricted to the project the
-- record names may not have read yet: that key saw the item in the
-- project, and must see it leave, as it would had the item moved there
-- without being deleted. So forget_deletion, when the record it drops
-- names a project that the item is not put back in, leaves a departure
-- from that project (20261001000004_departures), stamped like the row.
-- A project's own record names itself and leaves none. The trigger fires
-- after clientstatus_arrive (triggers of one event fire in name order),
-- which has already settled the item's other departures.
--
-- Re-runnable like the others.
SET LOCAL search_path TO {{.Schema}};

CREATE OR REPLACE FUNCTION {{.Schema}}.clientstatus_forget_deletion() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	was text;
	now_in text := to_jsonb(NEW) ->> 'project_id';
BEGIN
	DELETE FROM {{.Schema}}.deletions AS d WHERE d.org_id = NEW.org_id AND d.kind = TG_ARGV[0] AND d.id = NEW.id
	RETURNING d.project_id INTO was;
	IF was IS NOT NULL AND TG_ARGV[0] <> 'project' AND was IS DISTINCT FROM now_in THEN
		INSERT INTO {{.Schema}}.departures (org_id, kind, id, project_id, to_project_id, departed_at)
		VALUES (NEW.org_id, TG_ARGV[0], NEW.id, was, now_in, {{.Schema}}.clientstatus_stamp())
		ON CONFLICT (org_id, kind, id, project_id) DO UPDATE SET to_project_id = EXCLUDED.to_project_id, departed_at = EXCLUDED.departed_at;
	END IF;
	RETURN NULL;
END
$$;
