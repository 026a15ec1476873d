-- Sandbox keys: a key marked sandbox reads its organization's sandbox
-- (auth.SandboxOrgID), never its live data. Every key stored before this
-- migration is a live key. Re-runnable: ADD COLUMN IF NOT EXISTS.

-- Migrate renders {{.Schema}}: the schema the tables are in.
SET LOCAL search_path TO {{.Schema}};

ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS sandbox boolean NOT NULL DEFAULT false;
