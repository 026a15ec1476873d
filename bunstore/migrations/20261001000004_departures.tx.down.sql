-- Drops the departures (20261001000004_departures.tx.up.sql).
SET LOCAL search_path TO {{.Schema}};
DO $$
DECLARE
	t text;
BEGIN
	FOREACH t IN ARRAY ARRAY['milestones', 'deliverables', 'invoices', 'threads', 'messages'] LOOP
		EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_depart ON %I', t);
		EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_arrive ON %I', t);
	END LOOP;
END
$$;
DROP FUNCTION IF EXISTS {{.Schema}}.clientstatus_depart();
DROP FUNCTION IF EXISTS {{.Schema}}.clientstatus_visible(jsonb);
DROP TABLE IF EXISTS departures;
