-- Drops the sandbox flag of keys, revoking the sandbox keys first: without
-- the flag, they would read their organization's live data.
SET LOCAL search_path TO {{.Schema}};
UPDATE api_keys SET revoked_at = now() WHERE sandbox AND revoked_at IS NULL;
ALTER TABLE api_keys DROP COLUMN IF EXISTS sandbox;
