-- Migrate renders {{.Schema}}: the schema the tables are in. Back to the
-- stamps of 20260401000001_changes and 20260701000001_threads
-- (statement_timestamp(), at microseconds); the times stay truncated.
SET LOCAL search_path TO {{.Schema}};
DO $$
DECLARE
	t text;
BEGIN
	FOREACH t IN ARRAY ARRAY['projects', 'milestones', 'deliverables', 'invoices', 'threads', 'messages', 'deletions'] LOOP
		EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_seconds ON %I', t);
		EXECUTE format('DROP FUNCTION IF EXISTS %I()', 'clientstatus_seconds_' || t);
	END LOOP;
END
$$;

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

CREATE OR REPLACE FUNCTION {{.Schema}}.clientstatus_record_deletion() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO {{.Schema}}.deletions (org_id, kind, id, project_id, deleted_at)
	SELECT OLD.org_id, TG_ARGV[0], OLD.id, to_jsonb(OLD) ->> TG_ARGV[1], statement_timestamp()
	WHERE EXISTS (SELECT FROM {{.Schema}}.organizations AS o WHERE o.id = OLD.org_id)
	ON CONFLICT (org_id, kind, id) DO UPDATE SET project_id = EXCLUDED.project_id, deleted_at = EXCLUDED.deleted_at;
	RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION {{.Schema}}.clientstatus_touch_message() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE {{.Schema}}.messages AS m SET attachments_changed_at = statement_timestamp()
	WHERE ((m.org_id, m.id) = (OLD.org_id, OLD.message_id) OR (m.org_id, m.id) = (NEW.org_id, NEW.message_id))
	  AND m.updated_at <> statement_timestamp();
	RETURN NULL;
END
$$;

DROP FUNCTION IF EXISTS clientstatus_synced_through(timestamptz), clientstatus_stamp(), clientstatus_lock_class();
