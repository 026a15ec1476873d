-- The spine of change tracking: times at the wire's second, and stamps
-- a syncing client can never miss.
--
-- Seconds. Every time column of the data tables that a client sees is
-- kept truncated to the second, in UTC (date_trunc with 'UTC', so that a
-- session's time zone with an offset in fractions of a minute cannot shift
-- it): BEFORE row triggers clientstatus_seconds truncate every insert and
-- update, a portal's plain SQL included, and the existing rows are
-- backfilled below with clientstatus_touch disabled, so that they keep
-- their updated_at (truncated). Ordering by (time, id) is then ordering
-- by what the wire shows, with the contract's tie-breaks, on the same
-- indexes. The triggers are named so that they fire before
-- clientstatus_touch (BEFORE triggers of one event fire in name order),
-- which then compares truncated values: a put of the same item at another
-- microsecond changes nothing. messages_changed_at and
-- attachments_changed_at are the triggers' own markers, never shown, and
-- keep their precision.
--
-- Stamps. clientstatus_stamp() is the time every trigger dates a write
-- with (updated_at, deleted_at). The first stamp of a transaction takes a
-- shared advisory lock, held until the transaction ends, whose key is
-- (a 31-bit hash of the schema) << 32 | the epoch second read from
-- clock_timestamp() before the lock call; the stamp is chosen after it,
-- date_trunc('second', greatest(statement_timestamp(), clock_timestamp())),
-- so no stamp of the transaction is before its key. Every row of one
-- statement (cascades and triggers included) shares one stamp, kept in
-- the transaction-local setting clientstatus.stamp keyed by the statement's
-- start; a later statement of the transaction stamps its own start's
-- second, which is after the lock was taken, and takes no lock again.
-- Shared advisory locks never conflict: no writer waits on them.
--
-- Horizon. clientstatus_synced_through() is Page.SyncedThrough: the
-- smaller of the statement's start second and the smallest key second of
-- the locks held by transactions in flight (pg_locks, readable by every
-- role). The store runs it as a statement of its own before a list, so
-- that the list's snapshot is taken after it. A write the list cannot see
-- was not committed at the list's snapshot: if its transaction had taken
-- its lock when the horizon was read, the lock bounds its stamps from
-- below; if not, its stamps are chosen after the horizon statement began.
-- Either way it is dated at or after the horizon. A transaction open for
-- long holds the horizon back as long: clients then ask again from that
-- second, and get items again (upsert by id), never miss one.
--
-- Re-runnable like the others: CREATE OR REPLACE, DROP ... IF EXISTS.

-- Migrate renders {{.Schema}}: the schema the tables are in. The trigger
-- functions name it, as they run under whatever search_path the writing
-- session has.
SET LOCAL search_path TO {{.Schema}};
SET LOCAL statement_timeout = 0;

-- lock_class is the high half of the stamps' advisory lock keys: a
-- 31-bit hash of the schema, so that two stores in one database (a schema
-- each) do not hold back each other's horizon.
CREATE OR REPLACE FUNCTION {{.Schema}}.clientstatus_lock_class() RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
	SELECT (hashtext('{{.Schema}}') & 2147483647)::bigint
$$;

-- stamp: see above. clientstatus.clock, when a transaction sets it, is
-- the clock instead of the server's, with no lock: for tests of a store
-- whose clock they move (bunstore's WithClock), never set by a portal.
CREATE OR REPLACE FUNCTION {{.Schema}}.clientstatus_stamp() RETURNS timestamptz LANGUAGE plpgsql AS $$
DECLARE
	kept text := current_setting('clientstatus.stamp', true);
	fake text := current_setting('clientstatus.clock', true);
	started text := extract(epoch FROM statement_timestamp())::text;
	at timestamptz;
BEGIN
	IF kept <> '' AND split_part(kept, '/', 1) = started THEN
		RETURN to_timestamp(split_part(kept, '/', 2)::bigint);
	END IF;
	IF fake <> '' THEN
		at := date_trunc('second', fake::timestamptz, 'UTC');
	ELSIF kept <> '' THEN
		at := date_trunc('second', statement_timestamp(), 'UTC');
	ELSE
		PERFORM pg_advisory_xact_lock_shared(
			{{.Schema}}.clientstatus_lock_class() << 32 | floor(extract(epoch FROM clock_timestamp()))::bigint);
		at := date_trunc('second', greatest(statement_timestamp(), clock_timestamp()), 'UTC');
	END IF;
	PERFORM set_config('clientstatus.stamp', started || '/' || extract(epoch FROM at)::bigint::text, true);
	RETURN at;
END
$$;

-- synced_through: see above; clock, when not null, stands for the
-- statement's start (bunstore's WithClock).
CREATE OR REPLACE FUNCTION {{.Schema}}.clientstatus_synced_through(clock timestamptz DEFAULT NULL) RETURNS timestamptz
LANGUAGE sql STABLE AS $$
	SELECT to_timestamp(least(
		floor(extract(epoch FROM coalesce(clock, statement_timestamp())))::bigint,
		(SELECT min(l.objid::text::bigint) FROM pg_locks AS l
		 WHERE l.locktype = 'advisory' AND l.objsubid = 1
		   AND l.database = (SELECT d.oid FROM pg_database AS d WHERE d.datname = current_database())
		   AND l.classid::text::bigint = {{.Schema}}.clientstatus_lock_class())))
$$;

CREATE OR REPLACE FUNCTION {{.Schema}}.clientstatus_touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'UPDATE' THEN
		IF NEW.org_id IS DISTINCT FROM OLD.org_id OR NEW.id IS DISTINCT FROM OLD.id THEN
			RAISE EXCEPTION 'clientstatus: the id and org_id of a row of % do not change: delete it and insert another', TG_TABLE_NAME
				USING ERRCODE = 'check_violation';
		END IF;
		NEW.updated_at := OLD.updated_at;
		IF NEW IS NOT DISTINCT FROM OLD THEN
			RETURN NEW;
		END IF;
	END IF;
	NEW.updated_at := {{.Schema}}.clientstatus_stamp();
	RETURN NEW;
END
$$;

CREATE OR REPLACE FUNCTION {{.Schema}}.clientstatus_record_deletion() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO {{.Schema}}.deletions (org_id, kind, id, project_id, deleted_at)
	SELECT OLD.org_id, TG_ARGV[0], OLD.id, to_jsonb(OLD) ->> TG_ARGV[1], {{.Schema}}.clientstatus_stamp()
	WHERE EXISTS (SELECT FROM {{.Schema}}.organizations AS o WHERE o.id = OLD.org_id)
	ON CONFLICT (org_id, kind, id) DO UPDATE SET project_id = EXCLUDED.project_id, deleted_at = EXCLUDED.deleted_at;
	RETURN NULL;
END
$$;

-- touch_message: as before, with the statement's stamp (a put that
-- changes the message and its attachments is one change).
CREATE OR REPLACE FUNCTION {{.Schema}}.clientstatus_touch_message() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE {{.Schema}}.messages AS m SET attachments_changed_at = statement_timestamp()
	WHERE ((m.org_id, m.id) = (OLD.org_id, OLD.message_id) OR (m.org_id, m.id) = (NEW.org_id, NEW.message_id))
	  AND m.updated_at <> {{.Schema}}.clientstatus_stamp();
	RETURN NULL;
END
$$;

-- One clientstatus_seconds function and trigger per table, over its
-- time columns (but the markers), and the backfill.
DO $$
DECLARE
	t text;
	cols text[];
	body text;
	sets text;
BEGIN
	FOREACH t IN ARRAY ARRAY['projects', 'milestones', 'deliverables', 'invoices', 'threads', 'messages', 'deletions'] LOOP
		SELECT array_agg(c.column_name::text ORDER BY c.ordinal_position) INTO cols
		FROM information_schema.columns AS c
		WHERE c.table_schema = current_schema() AND c.table_name = t AND c.data_type = 'timestamp with time zone'
		  AND c.column_name NOT LIKE '%\_changed\_at';
		SELECT string_agg(format('NEW.%1$I := date_trunc(''second'', NEW.%1$I, ''UTC'');', col), E'\n\t') INTO body FROM unnest(cols) AS col;
		SELECT string_agg(format('%1$I = date_trunc(''second'', %1$I, ''UTC'')', col), ', ') INTO sets FROM unnest(cols) AS col;
		EXECUTE format('CREATE OR REPLACE FUNCTION {{.Schema}}.%I() RETURNS trigger LANGUAGE plpgsql AS $body$
BEGIN
	%s
	RETURN NEW;
END
$body$', 'clientstatus_seconds_' || t, body);
		EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_seconds ON %I', t);
		EXECUTE format('CREATE TRIGGER clientstatus_seconds BEFORE INSERT OR UPDATE ON %I FOR EACH ROW EXECUTE FUNCTION {{.Schema}}.%I()',
			t, 'clientstatus_seconds_' || t);
		IF t <> 'deletions' THEN
			EXECUTE format('ALTER TABLE %I DISABLE TRIGGER clientstatus_touch', t);
		END IF;
		EXECUTE format('UPDATE %I SET %s WHERE %s', t, sets,
			(SELECT string_agg(format('%1$I <> date_trunc(''second'', %1$I, ''UTC'')', col), ' OR ') FROM unnest(cols) AS col));
		IF t <> 'deletions' THEN
			EXECUTE format('ALTER TABLE %I ENABLE TRIGGER clientstatus_touch', t);
		END IF;
	END LOOP;
END
$$;
