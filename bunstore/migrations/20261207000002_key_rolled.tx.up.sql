-- The id of the key that replaced each API key (auth.Keys.Roll); NULL when
-- none, as for every key stored before this migration. A key is rolled
-- once: RollKey updates the old key only while it is NULL. No foreign key:
-- the new key is inserted after the old one is updated, in one
-- transaction. Re-runnable: ADD COLUMN IF NOT EXISTS.

-- Migrate renders {{.Schema}}: the schema the tables are in.
SET LOCAL search_path TO {{.Schema}};

ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS rolled_to text;
