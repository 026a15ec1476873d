-- Drops who created and who revoked each API key.
SET LOCAL search_path TO {{.Schema}};
ALTER TABLE api_keys DROP COLUMN IF EXISTS revoked_by;
ALTER TABLE api_keys DROP COLUMN IF EXISTS created_by;
