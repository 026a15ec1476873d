-- Undoes 20261127000001_install_resource.tx.up.sql: the functions and
-- resource_kinds go, and the kind CHECKs are the lists the earlier
-- migrations made (a resource installed since has been dropped by its own
-- down migration, which runs first).
SET LOCAL search_path TO {{.Schema}};

DROP FUNCTION IF EXISTS {{.Schema}}.clientstatus_drop_resource(regclass);
DROP FUNCTION IF EXISTS {{.Schema}}.clientstatus_install_resource(regclass, text, text);
DROP FUNCTION IF EXISTS {{.Schema}}.clientstatus_check_kinds();
DROP TABLE IF EXISTS resource_kinds;
ALTER TABLE deletions DROP CONSTRAINT IF EXISTS deletions_kind_check,
	ADD CONSTRAINT deletions_kind_check CHECK (kind IN ('project', 'milestone', 'deliverable', 'invoice', 'thread', 'message'));
ALTER TABLE item_counts DROP CONSTRAINT IF EXISTS item_counts_kind_check,
	ADD CONSTRAINT item_counts_kind_check CHECK (kind IN ('project', 'milestone', 'deliverable', 'invoice'));
ALTER TABLE departures DROP CONSTRAINT IF EXISTS departures_kind_check,
	ADD CONSTRAINT departures_kind_check CHECK (kind IN ('milestone', 'deliverable', 'invoice', 'thread', 'message'));
