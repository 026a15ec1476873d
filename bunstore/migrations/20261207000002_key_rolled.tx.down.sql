-- Drops the id of the key that replaced each API key.
SET LOCAL search_path TO {{.Schema}};
ALTER TABLE api_keys DROP COLUMN IF EXISTS rolled_to;
