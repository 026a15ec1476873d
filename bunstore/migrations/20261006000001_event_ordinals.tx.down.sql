-- Drops the event ordinals: totals are counted again.
SET LOCAL search_path TO {{.Schema}};
DROP FUNCTION IF EXISTS {{.Schema}}.clientstatus_number_events(text, int);
ALTER TABLE changes RESET (fillfactor);
DROP INDEX IF EXISTS changes_kind;
DROP INDEX IF EXISTS changes_action;
DROP INDEX IF EXISTS changes_status;
ALTER TABLE changes
	DROP COLUMN IF EXISTS ord,
	DROP COLUMN IF EXISTS kind_ord,
	DROP COLUMN IF EXISTS action_ord,
	DROP COLUMN IF EXISTS status_ord;
