-- Migrate renders {{.Schema}}: the schema the tables are in.
SET LOCAL search_path TO {{.Schema}};
DROP INDEX IF EXISTS milestones_list_org, milestones_list_org_status;
