-- Restricted keys (auth.Restriction): what a key may read, kept beside it.
-- NULL is no restriction, as for every key stored before this migration;
-- an array lists the scopes (auth.Scope names) or project ids it allows.
-- Re-runnable: ADD COLUMN IF NOT EXISTS.

-- Migrate renders {{.Schema}}: the schema the tables are in.
SET LOCAL search_path TO {{.Schema}};
SET LOCAL statement_timeout = 0;

ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS scopes text[];
ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS project_ids text[];
