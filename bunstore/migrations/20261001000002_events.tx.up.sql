-- The change spine read as events (store.Events): every change a
-- client can see is a row of changes, written by AFTER ROW triggers on the
-- data tables in the writer's own transaction, so that a portal's plain
-- SQL makes events too.
--
-- Rows. One per visible change of an item: created (inserted visible, or
-- made visible), updated (a row that changed, which is the rule that
-- moves updated_at: clientstatus_touch keeps it when nothing did), deleted
-- (deleted while visible, or made internal). A change of status keeps the
-- new status and the previous one (the event "{kind}.{status}" beside the
-- updated one). Cascades make their own rows: a project's deletion
-- deletes its milestones, deliverables, threads and their messages, and
-- sets its invoices' project_id to null, an update whose row names the
-- project it left (project_id: the new one, or the old one when the new is
-- null). A message's project is its thread's (copied by
-- clientstatus_from_thread and clientstatus_pass_down), and a change of its
-- attachments moves its row (clientstatus_touch_message): attachments need
-- no trigger of their own. at is the row's stamp: updated_at, or
-- clientstatus_stamp() for a deletion (its deletion record's deleted_at).
-- An organization's rows go with it; rows of items of an organization
-- being deleted are not written.
--
-- Order. xid is the writing transaction's id, seq a sequence: readers see
-- the rows whose xid is below pg_snapshot_xmin(pg_current_snapshot()),
-- the oldest transaction still running, in (xid, seq) order. Every
-- transaction below it has ended, so that set is final, and a row that
-- becomes visible later has a larger xid: it sorts after everything read
-- before. A long transaction (in any database of the cluster) holds
-- events back while it runs, never loses one.
--
-- Retention: rows older than 31 days (store.EventRetention and a day)
-- are pruned, 1,000 at most per writing statement of a data table (not
-- per row: a statement of many rows would scan them once each), skipping rows another
-- transaction is pruning, as clientstatus_prune_deletions does.
--
-- Wake-up: each row written sends its organization's id on the channel
-- clientstatus_events_channel() (one per schema). NOTIFY is delivered
-- when the transaction commits, once per distinct payload: once per
-- organization that the transaction wrote changes of.
--
-- Re-runnable like the others: IF NOT EXISTS, CREATE OR REPLACE, DROP ...
-- IF EXISTS.

-- Migrate renders {{.Schema}}: the schema the tables are in. The trigger
-- functions name it, as they run under whatever search_path the writing
-- session has.
SET LOCAL search_path TO {{.Schema}};
SET LOCAL statement_timeout = 0;

CREATE SEQUENCE IF NOT EXISTS changes_seq;

CREATE TABLE IF NOT EXISTS changes (
	org_id          text        NOT NULL,
	xid             xid8        NOT NULL DEFAULT pg_current_xact_id(),
	seq             bigint      NOT NULL DEFAULT nextval('{{.Schema}}.changes_seq'),
	kind            text        NOT NULL,
	item_id         text        NOT NULL,
	action          text        NOT NULL CHECK (action IN ('created', 'updated', 'deleted')),
	project_id      text,
	thread_id       text,
	status          text,
	previous_status text,
	at              timestamptz NOT NULL,
	PRIMARY KEY (org_id, xid, seq)
);
CREATE INDEX IF NOT EXISTS changes_at ON changes (at);

-- events_channel is the NOTIFY channel of this schema's events.
CREATE OR REPLACE FUNCTION {{.Schema}}.clientstatus_events_channel() RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT 'clientstatus_events_' || {{.Schema}}.clientstatus_lock_class()::text
$$;

-- shown reports whether clients see a row (as jsonb) of a data table.
CREATE OR REPLACE FUNCTION {{.Schema}}.clientstatus_shown(r jsonb) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
	SELECT NOT coalesce((r ->> 'internal')::boolean, false) AND NOT coalesce((r ->> 'thread_internal')::boolean, false)
$$;

-- change writes the row of a visible change: TG_ARGV[0] is the kind,
-- TG_ARGV[1] the column of the project.
CREATE OR REPLACE FUNCTION {{.Schema}}.clientstatus_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	o jsonb;
	n jsonb;
	r jsonb;
	was boolean := false;
	shown boolean := false;
	act text;
	at timestamptz;
	project text;
	st text;
	prev text;
BEGIN
	IF TG_OP <> 'INSERT' THEN
		o := to_jsonb(OLD);
		was := {{.Schema}}.clientstatus_shown(o);
	END IF;
	IF TG_OP <> 'DELETE' THEN
		n := to_jsonb(NEW);
		shown := {{.Schema}}.clientstatus_shown(n);
	END IF;
	IF was AND shown THEN
		act := 'updated';
		at := (n ->> 'updated_at')::timestamptz;
		project := coalesce(n ->> TG_ARGV[1], o ->> TG_ARGV[1]);
		IF (n ->> 'status') IS DISTINCT FROM (o ->> 'status') THEN
			st := n ->> 'status';
			prev := o ->> 'status';
		END IF;
	ELSIF shown THEN
		act := 'created';
		at := (n ->> 'updated_at')::timestamptz;
		project := n ->> TG_ARGV[1];
	ELSIF was THEN
		act := 'deleted';
		at := {{.Schema}}.clientstatus_stamp();
		project := o ->> TG_ARGV[1];
	ELSE
		RETURN NULL;
	END IF;
	r := coalesce(n, o);
	INSERT INTO {{.Schema}}.changes (org_id, kind, item_id, action, project_id, thread_id, status, previous_status, at)
	SELECT r ->> 'org_id', TG_ARGV[0], r ->> 'id', act, project, r ->> 'thread_id', st, prev, at
	WHERE EXISTS (SELECT FROM {{.Schema}}.organizations AS g WHERE g.id = r ->> 'org_id');
	IF FOUND THEN
		PERFORM pg_notify({{.Schema}}.clientstatus_events_channel(), CASE WHEN octet_length(r ->> 'org_id') < 7900 THEN r ->> 'org_id' ELSE '' END);
	END IF;
	RETURN NULL;
END
$$;

-- prune_changes removes, once per writing statement of a data table, at
-- most 1,000 rows older than 31 days (on the store's test clock, when a
-- transaction sets one), skipping those another transaction is pruning.
CREATE OR REPLACE FUNCTION {{.Schema}}.clientstatus_prune_changes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM {{.Schema}}.changes AS c
	WHERE (c.org_id, c.xid, c.seq) IN (
		SELECT p.org_id, p.xid, p.seq FROM {{.Schema}}.changes AS p
		WHERE p.at < coalesce(nullif(current_setting('clientstatus.clock', true), '')::timestamptz, statement_timestamp()) - interval '31 days'
		ORDER BY p.at
		LIMIT 1000
		FOR UPDATE SKIP LOCKED);
	RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION {{.Schema}}.clientstatus_forget_changes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM {{.Schema}}.changes AS c WHERE c.org_id = OLD.id;
	RETURN NULL;
END
$$;

DROP TRIGGER IF EXISTS clientstatus_forget_changes ON organizations;
CREATE TRIGGER clientstatus_forget_changes AFTER DELETE ON organizations
	FOR EACH ROW EXECUTE FUNCTION {{.Schema}}.clientstatus_forget_changes();

-- touch_message, as 20261001000001_spine has it, but for the test of "the
-- same change": a change of attachments is part of its message's own
-- write when this transaction wrote the message's row at this stamp, not
-- whenever the row's stamp is this second, which another transaction's
-- write in the same second would share, and its change (and event) be
-- lost.
CREATE OR REPLACE FUNCTION {{.Schema}}.clientstatus_touch_message() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE {{.Schema}}.messages AS m SET attachments_changed_at = statement_timestamp()
	WHERE ((m.org_id, m.id) = (OLD.org_id, OLD.message_id) OR (m.org_id, m.id) = (NEW.org_id, NEW.message_id))
	  AND NOT (m.xmin = pg_current_xact_id()::xid AND m.updated_at = {{.Schema}}.clientstatus_stamp());
	RETURN NULL;
END
$$;

-- One trigger per data table for each operation: an update that changed
-- nothing (clientstatus_touch kept the row) makes no row.
DO $$
DECLARE
	t text[];
BEGIN
	FOREACH t SLICE 1 IN ARRAY ARRAY[
		['projects', 'project', 'id'], ['milestones', 'milestone', 'project_id'],
		['deliverables', 'deliverable', 'project_id'], ['invoices', 'invoice', 'project_id'],
		['threads', 'thread', 'project_id'], ['messages', 'message', 'project_id']] LOOP
		EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_change ON %I', t[1]);
		EXECUTE format('CREATE TRIGGER clientstatus_change AFTER INSERT OR DELETE ON %I FOR EACH ROW EXECUTE FUNCTION {{.Schema}}.clientstatus_change(%L, %L)',
			t[1], t[2], t[3]);
		EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_prune_changes ON %I', t[1]);
		EXECUTE format('CREATE TRIGGER clientstatus_prune_changes AFTER INSERT OR UPDATE OR DELETE ON %I FOR EACH STATEMENT EXECUTE FUNCTION {{.Schema}}.clientstatus_prune_changes()', t[1]);
		EXECUTE format('DROP TRIGGER IF EXISTS clientstatus_change_update ON %I', t[1]);
		EXECUTE format('CREATE TRIGGER clientstatus_change_update AFTER UPDATE ON %I FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION {{.Schema}}.clientstatus_change(%L, %L)',
			t[1], t[2], t[3]);
	END LOOP;
END
$$;
