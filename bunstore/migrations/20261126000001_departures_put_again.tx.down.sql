-- Undoes 20261126000001_departures_put_again.tx.up.sql: forget_deletion
-- as 20260401000001_changes made it.
SET LOCAL search_path TO {{.Schema}};

CREATE OR REPLACE FUNCTION {{.Schema}}.clientstatus_forget_deletion() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM {{.Schema}}.deletions AS d WHERE d.org_id = NEW.org_id AND d.kind = TG_ARGV[0] AND d.id = NEW.id;
	RETURN NULL;
END
$$;
