-- Drops the invoices' document keys: their documents are no longer served.
SET LOCAL search_path TO {{.Schema}};
ALTER TABLE invoices DROP COLUMN IF EXISTS document_key;
