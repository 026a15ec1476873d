-- Migrate renders {{.Schema}}: the schema the tables are in.
SET LOCAL search_path TO {{.Schema}};
DO $$
DECLARE
	t text;
BEGIN
	FOREACH t IN ARRAY ARRAY['projects', 'milestones', 'deliverables', 'invoices'] LOOP
		EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_z_count_insert ON %I', t);
		EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_z_count_update ON %I', t);
		EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_z_count_delete ON %I', t);
		EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_z_count_truncate ON %I', t);
	END LOOP;
END
$$;
DROP FUNCTION IF EXISTS clientstatus_count_projects(), clientstatus_count_milestones(), clientstatus_count_deliverables(),
	clientstatus_count_invoices(), clientstatus_forget_counts();
DROP TABLE IF EXISTS item_counts;
