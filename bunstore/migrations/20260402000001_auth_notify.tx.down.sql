-- Migrate renders {{.Schema}}: the schema the tables are in.
SET LOCAL search_path TO {{.Schema}};
DROP TRIGGER IF EXISTS clientstatus_auth_notify_update ON api_keys;
DROP TRIGGER IF EXISTS clientstatus_auth_notify_delete ON api_keys;
DROP TRIGGER IF EXISTS clientstatus_auth_notify_truncate ON api_keys;
DROP TRIGGER IF EXISTS clientstatus_auth_notify_update ON organizations;
DROP TRIGGER IF EXISTS clientstatus_auth_notify_delete ON organizations;
DROP TRIGGER IF EXISTS clientstatus_auth_notify_truncate ON organizations;
DROP FUNCTION IF EXISTS clientstatus_auth_notify_key(), clientstatus_auth_notify_organization(), clientstatus_auth_notify_all();
