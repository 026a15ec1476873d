-- Who created and who revoked each API key, as the portal shows its
-- people (a display name); '' when unknown, as for every key stored before
-- this migration. Re-runnable: ADD COLUMN IF NOT EXISTS.

-- Migrate renders {{.Schema}}: the schema the tables are in.
SET LOCAL search_path TO {{.Schema}};

ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS created_by text NOT NULL DEFAULT '';
ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS revoked_by text NOT NULL DEFAULT '';
