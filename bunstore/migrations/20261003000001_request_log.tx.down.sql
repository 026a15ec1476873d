-- Migrate renders {{.Schema}}: the schema the tables are in.
SET LOCAL search_path TO {{.Schema}};
DROP TRIGGER IF EXISTS clientstatus_forget_requests ON organizations;
DROP FUNCTION IF EXISTS clientstatus_forget_requests();
DROP TABLE IF EXISTS request_logs, key_usage;
