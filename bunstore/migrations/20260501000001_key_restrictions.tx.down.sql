-- Drops the keys' restrictions. Without them a restricted key would read
-- everything, so every restricted key is revoked first.
SET LOCAL search_path TO {{.Schema}};
UPDATE api_keys SET revoked_at = statement_timestamp()
WHERE revoked_at IS NULL AND (scopes IS NOT NULL OR project_ids IS NOT NULL);
ALTER TABLE api_keys DROP COLUMN IF EXISTS project_ids;
ALTER TABLE api_keys DROP COLUMN IF EXISTS scopes;
