-- One function that makes a table a resource: the shared
-- triggers that every project-owned item table (milestones, deliverables,
-- invoices) got by hand, migration after migration, installed by
--
--	SELECT {{.Schema}}.clientstatus_install_resource('widgets', 'widget');
--
-- so that a new resource's migration is its CREATE TABLE, its indexes and
-- that one SELECT, and its down migration one SELECT of
-- clientstatus_drop_resource. What it installs on the table, as the
-- migrations below made them on milestones (same trigger names, hence the
-- same firing order, same functions, same arguments):
--
--   clientstatus_seconds      times truncated to the second (20261001000001_spine),
--                             by a function of the table's own, clientstatus_seconds_<table>
--   clientstatus_touch        updated_at, the store's stamp (20260401000001_changes)
--   clientstatus_forget_deletion, clientstatus_record_deletion, clientstatus_prune_deletions
--                             the deletion records (20260401000001_changes,
--                             20261126000001_departures_put_again)
--   clientstatus_version_*    the data version (20260801000001_versions, 20261001000003_lockfree)
--   clientstatus_z_count_*    the item counts, by a function of the table's own,
--                             clientstatus_count_<table> (20260901000001_counts, 20261001000003_lockfree)
--   clientstatus_change, clientstatus_change_update, clientstatus_prune_changes
--                             the events (20261001000002_events)
--   clientstatus_arrive, clientstatus_depart
--                             the departures from projects (20261001000004_departures),
--                             for an item of a project (project_column project_id)
--
-- The table needs org_id, id and updated_at (text, text, timestamptz NOT
-- NULL DEFAULT statement_timestamp()), and may have status (counted by
-- status; '' without) and project_id. project_column is the column of its
-- project: 'project_id' for an item of a project, 'id' for a project
-- itself, NULL for an item of the organization only. The foreign keys
-- (to organizations, to projects ON DELETE CASCADE) and the indexes are
-- the table's migration's, as for any table.
--
-- resource_kinds records each kind and its table: the kinds the CHECKs of
-- deletions, item_counts and departures allow are rebuilt from it
-- (clientstatus_check_kinds), and a later migration that changes a shared
-- trigger loops over it instead of a list of table names. The existing
-- resources are recorded as they are; their triggers stay as their
-- migrations made them (the same as this function makes: see
-- TestInstallResource).
--
-- Installing is re-runnable: triggers are dropped and made again, the
-- functions replaced, and the table's counts recounted from its rows.
-- Its times are not truncated after the fact: install on a new table.

SET LOCAL search_path TO {{.Schema}};
SET LOCAL statement_timeout = 0;

CREATE TABLE IF NOT EXISTS resource_kinds (
	kind           text    NOT NULL PRIMARY KEY CHECK (kind ~ '^[a-z][a-z0-9_]*$'),
	table_name     text    NOT NULL UNIQUE,
	project_column text    CHECK (project_column IN ('id', 'project_id')),
	counted        boolean NOT NULL
);
INSERT INTO resource_kinds (kind, table_name, project_column, counted) VALUES
	('project', 'projects', 'id', true),
	('milestone', 'milestones', 'project_id', true),
	('deliverable', 'deliverables', 'project_id', true),
	('invoice', 'invoices', 'project_id', true),
	('thread', 'threads', 'project_id', false),
	('message', 'messages', 'project_id', false)
ON CONFLICT (kind) DO NOTHING;

-- check_kinds makes the kind CHECKs of deletions (every kind),
-- item_counts (the counted ones) and departures (the items of a project)
-- allow the kinds of resource_kinds. The CHECK is added NOT VALID: it
-- holds for every row written from then on, and the rows already there
-- met the one it replaces (installing a kind widens it; dropping one
-- deletes that kind's rows first), so no scan of these tables, which
-- grow with every write, holds their lock during a migration.
CREATE OR REPLACE FUNCTION {{.Schema}}.clientstatus_check_kinds() RETURNS void LANGUAGE plpgsql AS $check$
DECLARE
	t text[];
	allowed text;
BEGIN
	FOREACH t SLICE 1 IN ARRAY ARRAY[['deletions', 'true'], ['item_counts', 'k.counted'], ['departures', 'k.project_column = ''project_id''']] LOOP
		EXECUTE format('SELECT string_agg(quote_literal(k.kind), '', '' ORDER BY k.kind) FROM {{.Schema}}.resource_kinds AS k WHERE %s', t[2])
			INTO allowed;
		EXECUTE format('ALTER TABLE {{.Schema}}.%I DROP CONSTRAINT IF EXISTS %I, ADD CONSTRAINT %I CHECK (kind IN (%s)) NOT VALID',
			t[1], t[1] || '_kind_check', t[1] || '_kind_check', coalesce(allowed, 'NULL'));
	END LOOP;
END
$check$;

CREATE OR REPLACE FUNCTION {{.Schema}}.clientstatus_install_resource(tbl regclass, kind text, project_column text DEFAULT 'project_id')
RETURNS void LANGUAGE plpgsql AS $install$
DECLARE
	rel text;
	cols text[];
	has_status boolean;
	body text;
	project text;
	status text;
	status_as text;
BEGIN
	SELECT c.relname INTO rel FROM pg_class AS c WHERE c.oid = tbl;
	SELECT array_agg(a.attname::text ORDER BY a.attnum) INTO cols FROM pg_attribute AS a
	WHERE a.attrelid = tbl AND a.attnum > 0 AND NOT a.attisdropped;
	IF NOT cols @> ARRAY['org_id', 'id', 'updated_at'] THEN
		RAISE EXCEPTION 'clientstatus_install_resource: % needs the columns org_id, id and updated_at', tbl;
	END IF;
	IF project_column IS NOT NULL AND (project_column NOT IN ('id', 'project_id') OR NOT project_column = ANY (cols)) THEN
		RAISE EXCEPTION 'clientstatus_install_resource: the project column of % is id (a project), project_id (an item of one) or NULL (none): not %', tbl, project_column;
	END IF;
	has_status := 'status' = ANY (cols);
	INSERT INTO {{.Schema}}.resource_kinds AS k (kind, table_name, project_column, counted)
	VALUES (kind, rel, project_column, true)
	ON CONFLICT ON CONSTRAINT resource_kinds_pkey DO UPDATE
		SET table_name = EXCLUDED.table_name, project_column = EXCLUDED.project_column, counted = EXCLUDED.counted;
	PERFORM {{.Schema}}.clientstatus_check_kinds();

	-- Seconds, as 20261001000001_spine made them.
	SELECT string_agg(format('NEW.%1$I := date_trunc(''second'', NEW.%1$I, ''UTC'');', a.attname), E'\n\t' ORDER BY a.attnum) INTO body
	FROM pg_attribute AS a
	WHERE a.attrelid = tbl AND a.attnum > 0 AND NOT a.attisdropped AND a.atttypid = 'timestamptz'::regtype
	  AND a.attname NOT LIKE '%\_changed\_at';
	EXECUTE format('CREATE OR REPLACE FUNCTION {{.Schema}}.%I() RETURNS trigger LANGUAGE plpgsql AS $body$
BEGIN
	%s
	RETURN NEW;
END
$body$', 'clientstatus_seconds_' || rel, body);
	EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_seconds ON %s', tbl);
	EXECUTE format('CREATE TRIGGER clientstatus_seconds BEFORE INSERT OR UPDATE ON %s FOR EACH ROW EXECUTE FUNCTION {{.Schema}}.%I()',
		tbl, 'clientstatus_seconds_' || rel);

	-- updated_at and the deletion records, as 20260401000001_changes made them.
	EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_touch ON %s', tbl);
	EXECUTE format('CREATE TRIGGER clientstatus_touch BEFORE INSERT OR UPDATE ON %s FOR EACH ROW EXECUTE FUNCTION {{.Schema}}.clientstatus_touch()', tbl);
	EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_forget_deletion ON %s', tbl);
	EXECUTE format('CREATE TRIGGER clientstatus_forget_deletion AFTER INSERT ON %s FOR EACH ROW EXECUTE FUNCTION {{.Schema}}.clientstatus_forget_deletion(%L)', tbl, kind);
	EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_record_deletion ON %s', tbl);
	EXECUTE format('CREATE TRIGGER clientstatus_record_deletion AFTER DELETE ON %s FOR EACH ROW EXECUTE FUNCTION {{.Schema}}.clientstatus_record_deletion(%L, %L)',
		tbl, kind, coalesce(project_column, ''));
	EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_prune_deletions ON %s', tbl);
	EXECUTE format('CREATE TRIGGER clientstatus_prune_deletions AFTER DELETE ON %s FOR EACH STATEMENT EXECUTE FUNCTION {{.Schema}}.clientstatus_prune_deletions()', tbl);

	-- The data version, as 20261001000003_lockfree made it.
	EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_version_insert ON %s', tbl);
	EXECUTE format('CREATE TRIGGER clientstatus_version_insert AFTER INSERT ON %s REFERENCING NEW TABLE AS new_rows '
		'FOR EACH STATEMENT EXECUTE FUNCTION {{.Schema}}.clientstatus_bump_versions()', tbl);
	EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_version_update ON %s', tbl);
	EXECUTE format('CREATE TRIGGER clientstatus_version_update AFTER UPDATE ON %s REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows '
		'FOR EACH STATEMENT EXECUTE FUNCTION {{.Schema}}.clientstatus_bump_versions()', tbl);
	EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_version_delete ON %s', tbl);
	EXECUTE format('CREATE TRIGGER clientstatus_version_delete AFTER DELETE ON %s REFERENCING OLD TABLE AS old_rows '
		'FOR EACH STATEMENT EXECUTE FUNCTION {{.Schema}}.clientstatus_bump_versions()', tbl);
	EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_version_truncate ON %s', tbl);
	EXECUTE format('CREATE TRIGGER clientstatus_version_truncate AFTER TRUNCATE ON %s '
		'FOR EACH STATEMENT EXECUTE FUNCTION {{.Schema}}.clientstatus_bump_all_versions()', tbl);

	-- The counts, as 20261001000003_lockfree made them.
	project := CASE project_column WHEN 'id' THEN 'r.id' WHEN 'project_id' THEN 'coalesce(r.project_id, '''')' ELSE '''''' END;
	status := CASE WHEN has_status THEN 'r.status' ELSE '''''' END;
	status_as := CASE WHEN has_status THEN 'r.status' ELSE ''''' AS status' END;
	EXECUTE format($f$
CREATE OR REPLACE FUNCTION {{.Schema}}.%I() RETURNS trigger LANGUAGE plpgsql AS $body$
BEGIN
	IF TG_OP = 'INSERT' THEN
		INSERT INTO {{.Schema}}.item_counts (org_id, kind, status, project_id, n)
		SELECT r.org_id, %L, %s, %s, count(*) FROM new_rows AS r GROUP BY 1, 3, 4;
	ELSIF TG_OP = 'DELETE' THEN
		INSERT INTO {{.Schema}}.item_counts (org_id, kind, status, project_id, n)
		SELECT r.org_id, %L, %s, %s, -count(*) FROM old_rows AS r GROUP BY 1, 3, 4;
	ELSE
		INSERT INTO {{.Schema}}.item_counts (org_id, kind, status, project_id, n)
		SELECT m.org_id, %L, m.status, m.project_id, sum(m.n) FROM (
			SELECT r.org_id, %s, %s AS project_id, -1 AS n FROM old_rows AS r
			UNION ALL
			SELECT r.org_id, %s, %s, 1 FROM new_rows AS r
		) AS m GROUP BY 1, 3, 4 HAVING sum(m.n) <> 0;
	END IF;
	RETURN NULL;
END
$body$
$f$, 'clientstatus_count_' || rel, kind, status, project, kind, status, project, kind, status_as, project, status, project);
	EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_z_count_insert ON %s', tbl);
	EXECUTE format('CREATE TRIGGER clientstatus_z_count_insert AFTER INSERT ON %s REFERENCING NEW TABLE AS new_rows '
		'FOR EACH STATEMENT EXECUTE FUNCTION {{.Schema}}.%I()', tbl, 'clientstatus_count_' || rel);
	EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_z_count_update ON %s', tbl);
	EXECUTE format('CREATE TRIGGER clientstatus_z_count_update AFTER UPDATE ON %s REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows '
		'FOR EACH STATEMENT EXECUTE FUNCTION {{.Schema}}.%I()', tbl, 'clientstatus_count_' || rel);
	EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_z_count_delete ON %s', tbl);
	EXECUTE format('CREATE TRIGGER clientstatus_z_count_delete AFTER DELETE ON %s REFERENCING OLD TABLE AS old_rows '
		'FOR EACH STATEMENT EXECUTE FUNCTION {{.Schema}}.%I()', tbl, 'clientstatus_count_' || rel);
	EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_z_count_truncate ON %s', tbl);
	EXECUTE format('CREATE TRIGGER clientstatus_z_count_truncate AFTER TRUNCATE ON %s '
		'FOR EACH STATEMENT EXECUTE FUNCTION {{.Schema}}.clientstatus_forget_counts(%L)', tbl, kind);
	-- The recount (the triggers above lock the table against writes until
	-- the caller commits).
	DELETE FROM {{.Schema}}.item_counts AS c WHERE c.kind = clientstatus_install_resource.kind;
	EXECUTE format('INSERT INTO {{.Schema}}.item_counts (org_id, kind, status, project_id, n) '
		'SELECT r.org_id, %L, %s, %s, count(*) FROM %s AS r GROUP BY 1, 3, 4', kind, status, project, tbl);

	-- The events, as 20261001000002_events made them.
	EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_change ON %s', tbl);
	EXECUTE format('CREATE TRIGGER clientstatus_change AFTER INSERT OR DELETE ON %s FOR EACH ROW EXECUTE FUNCTION {{.Schema}}.clientstatus_change(%L, %L)',
		tbl, kind, coalesce(project_column, ''));
	EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_prune_changes ON %s', tbl);
	EXECUTE format('CREATE TRIGGER clientstatus_prune_changes AFTER INSERT OR UPDATE OR DELETE ON %s FOR EACH STATEMENT EXECUTE FUNCTION {{.Schema}}.clientstatus_prune_changes()', tbl);
	EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_change_update ON %s', tbl);
	EXECUTE format('CREATE TRIGGER clientstatus_change_update AFTER UPDATE ON %s FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION {{.Schema}}.clientstatus_change(%L, %L)',
		tbl, kind, coalesce(project_column, ''));

	-- The departures, as 20261001000004_departures made them.
	EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_depart ON %s', tbl);
	EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_arrive ON %s', tbl);
	IF project_column = 'project_id' THEN
		EXECUTE format('CREATE TRIGGER clientstatus_arrive AFTER INSERT ON %s FOR EACH ROW EXECUTE FUNCTION {{.Schema}}.clientstatus_depart(%L)', tbl, kind);
		EXECUTE format('CREATE TRIGGER clientstatus_depart AFTER UPDATE ON %s FOR EACH ROW WHEN (OLD.project_id IS DISTINCT FROM NEW.project_id) '
			'EXECUTE FUNCTION {{.Schema}}.clientstatus_depart(%L)', tbl, kind);
	END IF;
END
$install$;

-- drop_resource undoes install_resource and drops the table: the down
-- migration of a resource's. Every organization that had items of it gets
-- a new data version (what its reads return changed), and the records of
-- its kind (deletions, departures, events, counts) go.
CREATE OR REPLACE FUNCTION {{.Schema}}.clientstatus_drop_resource(tbl regclass) RETURNS void LANGUAGE plpgsql AS $drop$
DECLARE
	rel text;
	k text;
BEGIN
	SELECT c.relname INTO rel FROM pg_class AS c WHERE c.oid = tbl;
	SELECT r.kind INTO k FROM {{.Schema}}.resource_kinds AS r WHERE r.table_name = rel;
	EXECUTE format('INSERT INTO {{.Schema}}.data_version_log (org_id) SELECT DISTINCT r.org_id FROM %s AS r', tbl);
	EXECUTE format('DROP TABLE %s', tbl);
	EXECUTE format('DROP FUNCTION IF EXISTS {{.Schema}}.%I()', 'clientstatus_seconds_' || rel);
	EXECUTE format('DROP FUNCTION IF EXISTS {{.Schema}}.%I()', 'clientstatus_count_' || rel);
	DELETE FROM {{.Schema}}.deletions AS d WHERE d.kind = k;
	DELETE FROM {{.Schema}}.departures AS d WHERE d.kind = k;
	DELETE FROM {{.Schema}}.item_counts AS c WHERE c.kind = k;
	DELETE FROM {{.Schema}}.changes AS c WHERE c.kind = k;
	DELETE FROM {{.Schema}}.resource_kinds AS r WHERE r.kind = k;
	PERFORM {{.Schema}}.clientstatus_check_kinds();
END
$drop$;
