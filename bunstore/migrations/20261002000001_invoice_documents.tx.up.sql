-- Invoice documents: where an invoice's PDF lives in the file source, as
-- a deliverable's file_key; '' when it has none, as for every invoice
-- stored before this migration. A change of it is a change of the row,
-- so the touch trigger moves updated_at (documentAvailable may change).
-- Re-runnable: ADD COLUMN IF NOT EXISTS.

-- Migrate renders {{.Schema}}: the schema the tables are in.
SET LOCAL search_path TO {{.Schema}};
SET LOCAL statement_timeout = 0;

ALTER TABLE invoices ADD COLUMN IF NOT EXISTS document_key text NOT NULL DEFAULT '';
