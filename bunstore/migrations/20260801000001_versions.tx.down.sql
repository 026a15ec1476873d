-- Migrate renders {{.Schema}}: the schema the tables are in.
SET LOCAL search_path TO {{.Schema}};
DO $$
DECLARE
	t text;
BEGIN
	FOREACH t IN ARRAY ARRAY['organizations', 'projects', 'milestones', 'deliverables', 'invoices',
		'threads', 'messages', 'attachments', 'deletions'] LOOP
		EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_version_insert ON %I', t);
		EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_version_update ON %I', t);
		EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_version_delete ON %I', t);
		EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_version_truncate ON %I', t);
	END LOOP;
END
$$;
DROP FUNCTION IF EXISTS clientstatus_bump_versions(), clientstatus_bump_organization_versions(), clientstatus_bump_all_versions();
DROP TABLE IF EXISTS data_versions;
DROP SEQUENCE IF EXISTS data_version_seq;
