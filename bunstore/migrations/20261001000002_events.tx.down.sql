-- Migrate renders {{.Schema}}: the schema the tables are in. Drops the
-- change spine's events: their triggers, functions and rows.
SET LOCAL search_path TO {{.Schema}};
DO $$
DECLARE
	t text;
BEGIN
	FOREACH t IN ARRAY ARRAY['projects', 'milestones', 'deliverables', 'invoices', 'threads', 'messages'] LOOP
		EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_change ON %I', t);
		EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_change_update ON %I', t);
		EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_prune_changes ON %I', t);
	END LOOP;
END
$$;
DROP TRIGGER IF EXISTS clientstatus_forget_changes ON organizations;
CREATE OR REPLACE FUNCTION {{.Schema}}.clientstatus_touch_message() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE {{.Schema}}.messages AS m SET attachments_changed_at = statement_timestamp()
	WHERE ((m.org_id, m.id) = (OLD.org_id, OLD.message_id) OR (m.org_id, m.id) = (NEW.org_id, NEW.message_id))
	  AND m.updated_at <> {{.Schema}}.clientstatus_stamp();
	RETURN NULL;
END
$$;
DROP TABLE IF EXISTS changes;
DROP SEQUENCE IF EXISTS changes_seq;
DROP FUNCTION IF EXISTS {{.Schema}}.clientstatus_change();
DROP FUNCTION IF EXISTS {{.Schema}}.clientstatus_prune_changes();
DROP FUNCTION IF EXISTS {{.Schema}}.clientstatus_forget_changes();
DROP FUNCTION IF EXISTS {{.Schema}}.clientstatus_shown(jsonb);
DROP FUNCTION IF EXISTS {{.Schema}}.clientstatus_events_channel();
