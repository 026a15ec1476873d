-- Communication threads, for store.Threads and store.ThreadWriter: threads,
-- their messages and the messages' attachments, with internal content
-- (an agency's notes to itself) kept beside what clients see.
--
-- What a client may see is decided by columns every list query filters on
-- and every list index is restricted to (WHERE NOT internal, WHERE NOT
-- internal AND NOT thread_internal), so internal rows are not even in the
-- indexes the lists read. What clients see of a thread is kept in its row
-- by triggers, whoever writes (the store or a portal's own SQL):
-- message_count and last_message_at count its messages that are not
-- internal, and any change to such a message moves the thread's
-- updated_at; a message carries its thread's internal flag and project
-- (thread_internal, project_id), passed down when the thread changes, so
-- that the message lists filter and order by an index of their own. Content
-- that disappears from clients' view, deleted or made internal, leaves a
-- record in deletions; made visible again, it drops it.
--
-- Locks: a write that changes a message locks its thread (FOR NO KEY
-- UPDATE) before it counts, so that two writers to one thread count each
-- other's messages; the store takes the lock first, before the message
-- row, in the order a thread's own writes take them (thread, then its
-- messages), so that they wait for each other rather than deadlock.
--
-- Re-runnable like the others: IF NOT EXISTS, CREATE OR REPLACE, and DROP
-- ... IF EXISTS before what has no IF NOT EXISTS. Needs the functions of
-- 20260401000001_changes (clientstatus_touch, clientstatus_record_deletion,
-- clientstatus_forget_deletion, clientstatus_prune_deletions) and
-- PostgreSQL 15 (ON DELETE SET NULL of one column of a key).

-- Migrate renders {{.Schema}}: the schema the tables go in. The trigger
-- functions name it, as they run under whatever search_path the writing
-- session has.
SET LOCAL search_path TO {{.Schema}};
SET LOCAL statement_timeout = 0;

-- A thread, about its organization (project_id null) or one project; about
-- nothing in particular, or one milestone, deliverable or invoice: one
-- reference column per kind, so that each is a foreign key, and deleting
-- the item clears it (which moves the thread's updated_at) while the thread
-- stays. message_count, last_message_at and messages_changed_at are the
-- triggers' (see clientstatus_count_messages), never the writer's.
CREATE TABLE IF NOT EXISTS threads (
	org_id               text        NOT NULL,
	id                   text        NOT NULL CHECK (id <> ''),
	project_id           text        CHECK (project_id <> ''),
	subject              text        NOT NULL DEFAULT '',
	status               text        NOT NULL CHECK (status IN ('open', 'resolved')),
	about_milestone_id   text,
	about_deliverable_id text,
	about_invoice_id     text,
	internal             boolean     NOT NULL DEFAULT false,
	created_at           timestamptz NOT NULL,
	resolved_at          timestamptz,
	message_count        integer     NOT NULL DEFAULT 0,
	last_message_at      timestamptz,
	messages_changed_at  timestamptz,
	updated_at           timestamptz NOT NULL DEFAULT statement_timestamp(),
	PRIMARY KEY (org_id, id),
	CONSTRAINT threads_about_one CHECK (num_nonnulls(about_milestone_id, about_deliverable_id, about_invoice_id) <= 1),
	CONSTRAINT threads_organization_fkey FOREIGN KEY (org_id) REFERENCES organizations (id) ON DELETE CASCADE,
	CONSTRAINT threads_project_fkey FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id) ON DELETE CASCADE,
	CONSTRAINT threads_about_milestone_fkey FOREIGN KEY (org_id, about_milestone_id)
		REFERENCES milestones (org_id, id) ON DELETE SET NULL (about_milestone_id),
	CONSTRAINT threads_about_deliverable_fkey FOREIGN KEY (org_id, about_deliverable_id)
		REFERENCES deliverables (org_id, id) ON DELETE SET NULL (about_deliverable_id),
	CONSTRAINT threads_about_invoice_fkey FOREIGN KEY (org_id, about_invoice_id)
		REFERENCES invoices (org_id, id) ON DELETE SET NULL (about_invoice_id)
);

-- A message of a thread. thread_internal and project_id are its thread's,
-- copied by clientstatus_from_thread: a client sees the message when
-- neither it nor its thread is internal. attachments_changed_at is when
-- its attachments last changed (clientstatus_touch_message), so that such
-- a change moves its updated_at like a change of its own columns.
CREATE TABLE IF NOT EXISTS messages (
	org_id                 text        NOT NULL,
	id                     text        NOT NULL CHECK (id <> ''),
	thread_id              text        NOT NULL,
	author_name            text        NOT NULL CHECK (author_name <> ''),
	author_side            text        NOT NULL CHECK (author_side IN ('agency', 'client')),
	body                   text        NOT NULL DEFAULT '',
	internal               boolean     NOT NULL DEFAULT false,
	created_at             timestamptz NOT NULL,
	edited_at              timestamptz,
	thread_internal        boolean     NOT NULL DEFAULT false,
	project_id             text,
	attachments_changed_at timestamptz,
	updated_at             timestamptz NOT NULL DEFAULT statement_timestamp(),
	PRIMARY KEY (org_id, id),
	CONSTRAINT messages_thread_fkey FOREIGN KEY (org_id, thread_id) REFERENCES threads (org_id, id) ON DELETE CASCADE
);

-- A message's attachments, in order (ordinal, from 1). Their ids are
-- unique in an organization (the primary key), so that one is found by id
-- alone; attachments_of_message is the upsert's conflict target, so that a
-- message's own attachment is replaced while another message's id is a
-- unique violation.
CREATE TABLE IF NOT EXISTS attachments (
	org_id       text    NOT NULL,
	id           text    NOT NULL CHECK (id <> ''),
	message_id   text    NOT NULL,
	ordinal      integer NOT NULL,
	file_name    text    NOT NULL DEFAULT '',
	content_type text    NOT NULL DEFAULT '',
	size_bytes   bigint  NOT NULL CHECK (size_bytes >= 0),
	file_key     text    NOT NULL CHECK (file_key <> ''),
	CONSTRAINT attachments_pkey PRIMARY KEY (org_id, id),
	CONSTRAINT attachments_of_message UNIQUE (org_id, message_id, id),
	CONSTRAINT attachments_message_fkey FOREIGN KEY (org_id, message_id) REFERENCES messages (org_id, id) ON DELETE CASCADE
);

-- The lists read only what clients may see: organization first, then the
-- filters, then the order of the contract (threads: last visible message
-- first, those without one last, then id; messages: created_at, id), or of
-- changes (updated_at, id). A message list filtered by thread and project
-- reads the thread's index: a thread has one project.
CREATE INDEX IF NOT EXISTS threads_list ON threads (org_id, last_message_at DESC NULLS LAST, id) WHERE NOT internal;
CREATE INDEX IF NOT EXISTS threads_list_status ON threads (org_id, status, last_message_at DESC NULLS LAST, id) WHERE NOT internal;
CREATE INDEX IF NOT EXISTS threads_list_project ON threads (org_id, project_id, last_message_at DESC NULLS LAST, id) WHERE NOT internal;
CREATE INDEX IF NOT EXISTS threads_list_project_status ON threads (org_id, project_id, status, last_message_at DESC NULLS LAST, id) WHERE NOT internal;
CREATE INDEX IF NOT EXISTS threads_changes ON threads (org_id, updated_at, id) WHERE NOT internal;
CREATE INDEX IF NOT EXISTS threads_changes_status ON threads (org_id, status, updated_at, id) WHERE NOT internal;
CREATE INDEX IF NOT EXISTS threads_changes_project ON threads (org_id, project_id, updated_at, id) WHERE NOT internal;
CREATE INDEX IF NOT EXISTS threads_changes_project_status ON threads (org_id, project_id, status, updated_at, id) WHERE NOT internal;
CREATE INDEX IF NOT EXISTS messages_list ON messages (org_id, created_at, id) WHERE NOT internal AND NOT thread_internal;
CREATE INDEX IF NOT EXISTS messages_list_thread ON messages (org_id, thread_id, created_at, id) WHERE NOT internal AND NOT thread_internal;
CREATE INDEX IF NOT EXISTS messages_list_project ON messages (org_id, project_id, created_at, id) WHERE NOT internal AND NOT thread_internal;
CREATE INDEX IF NOT EXISTS messages_changes ON messages (org_id, updated_at, id) WHERE NOT internal AND NOT thread_internal;
CREATE INDEX IF NOT EXISTS messages_changes_thread ON messages (org_id, thread_id, updated_at, id) WHERE NOT internal AND NOT thread_internal;
CREATE INDEX IF NOT EXISTS messages_changes_project ON messages (org_id, project_id, updated_at, id) WHERE NOT internal AND NOT thread_internal;

-- The writes' own: cascades and SET NULL by the foreign keys (internal rows
-- too), and a thread's count.
CREATE INDEX IF NOT EXISTS threads_project ON threads (org_id, project_id);
CREATE INDEX IF NOT EXISTS threads_about_milestone ON threads (org_id, about_milestone_id) WHERE about_milestone_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS threads_about_deliverable ON threads (org_id, about_deliverable_id) WHERE about_deliverable_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS threads_about_invoice ON threads (org_id, about_invoice_id) WHERE about_invoice_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS messages_thread ON messages (org_id, thread_id, internal, created_at);

-- from_thread copies into a message being written its thread's internal
-- flag and project, locking the thread (see Locks above). A message of a
-- missing thread is left as it is, for its foreign key to refuse.
CREATE OR REPLACE FUNCTION {{.Schema}}.clientstatus_from_thread() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	t record;
BEGIN
	SELECT th.internal, th.project_id INTO t FROM {{.Schema}}.threads AS th
	WHERE th.org_id = NEW.org_id AND th.id = NEW.thread_id
	FOR NO KEY UPDATE;
	IF FOUND THEN
		NEW.thread_internal := t.internal;
		NEW.project_id := t.project_id;
	END IF;
	RETURN NEW;
END
$$;

-- pass_down gives a thread's messages its new internal flag or project:
-- each message changed moves its updated_at (clientstatus_touch), so a
-- thread visible again, or moved to another project, brings its messages
-- back as changed; and each one visible before and hidden now is recorded
-- (clientstatus_record_deletion), all at the time of the thread's write.
CREATE OR REPLACE FUNCTION {{.Schema}}.clientstatus_pass_down() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE {{.Schema}}.messages AS m SET thread_internal = NEW.internal, project_id = NEW.project_id
	WHERE m.org_id = NEW.org_id AND m.thread_id = NEW.id
	  AND (m.thread_internal, m.project_id) IS DISTINCT FROM (NEW.internal, NEW.project_id);
	RETURN NULL;
END
$$;

-- count_messages recounts the threads a message was in and is in, after a
-- write that changed what clients would see of it (not when only what
-- pass_down copies changed, nor for an internal message that stays
-- internal): message_count and last_message_at of the messages that are not
-- internal, and messages_changed_at, so that clientstatus_touch moves the
-- thread's updated_at even when the count and the last time stay. It
-- counts rather than adds, so a count is right whatever wrote before; the
-- thread is locked (clientstatus_from_thread, or the store before it), so a
-- concurrent writer's message is counted once it commits.
CREATE OR REPLACE FUNCTION {{.Schema}}.clientstatus_count_messages() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	ids text[] := '{}';
	org text;
BEGIN
	IF TG_OP = 'UPDATE' AND to_jsonb(OLD) - '{updated_at,thread_internal,project_id}'::text[]
		= to_jsonb(NEW) - '{updated_at,thread_internal,project_id}'::text[] THEN
		RETURN NULL;
	END IF;
	IF TG_OP <> 'INSERT' THEN
		org := OLD.org_id;
		IF NOT OLD.internal THEN
			ids := ids || OLD.thread_id;
		END IF;
	END IF;
	IF TG_OP <> 'DELETE' THEN
		org := NEW.org_id;
		IF NOT NEW.internal THEN
			ids := ids || NEW.thread_id;
		END IF;
	END IF;
	IF cardinality(ids) = 0 THEN
		RETURN NULL;
	END IF;
	UPDATE {{.Schema}}.threads AS t SET
		(message_count, last_message_at) = (
			SELECT count(*), max(m.created_at) FROM {{.Schema}}.messages AS m
			WHERE m.org_id = t.org_id AND m.thread_id = t.id AND NOT m.internal),
		messages_changed_at = statement_timestamp()
	WHERE t.org_id = org AND t.id = ANY (ids);
	RETURN NULL;
END
$$;

-- touch_message moves the updated_at of a message whose attachments
-- changed, unless the same statement already did (a put that changes the
-- message and its attachments is one change).
CREATE OR REPLACE FUNCTION {{.Schema}}.clientstatus_touch_message() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE {{.Schema}}.messages AS m SET attachments_changed_at = statement_timestamp()
	WHERE ((m.org_id, m.id) = (OLD.org_id, OLD.message_id) OR (m.org_id, m.id) = (NEW.org_id, NEW.message_id))
	  AND m.updated_at <> statement_timestamp();
	RETURN NULL;
END
$$;

DROP TRIGGER IF EXISTS clientstatus_touch ON threads;
CREATE TRIGGER clientstatus_touch BEFORE INSERT OR UPDATE ON threads
	FOR EACH ROW EXECUTE FUNCTION {{.Schema}}.clientstatus_touch();
DROP TRIGGER IF EXISTS clientstatus_forget_deletion ON threads;
CREATE TRIGGER clientstatus_forget_deletion AFTER INSERT ON threads
	FOR EACH ROW WHEN (NOT NEW.internal) EXECUTE FUNCTION {{.Schema}}.clientstatus_forget_deletion('thread');
DROP TRIGGER IF EXISTS clientstatus_forget_shown ON threads;
CREATE TRIGGER clientstatus_forget_shown AFTER UPDATE ON threads
	FOR EACH ROW WHEN (OLD.internal AND NOT NEW.internal) EXECUTE FUNCTION {{.Schema}}.clientstatus_forget_deletion('thread');
DROP TRIGGER IF EXISTS clientstatus_record_deletion ON threads;
CREATE TRIGGER clientstatus_record_deletion AFTER DELETE ON threads
	FOR EACH ROW WHEN (NOT OLD.internal) EXECUTE FUNCTION {{.Schema}}.clientstatus_record_deletion('thread', 'project_id');
DROP TRIGGER IF EXISTS clientstatus_record_hidden ON threads;
CREATE TRIGGER clientstatus_record_hidden AFTER UPDATE ON threads
	FOR EACH ROW WHEN (NOT OLD.internal AND NEW.internal) EXECUTE FUNCTION {{.Schema}}.clientstatus_record_deletion('thread', 'project_id');
DROP TRIGGER IF EXISTS clientstatus_pass_down ON threads;
CREATE TRIGGER clientstatus_pass_down AFTER UPDATE ON threads
	FOR EACH ROW WHEN ((OLD.internal, OLD.project_id) IS DISTINCT FROM (NEW.internal, NEW.project_id))
	EXECUTE FUNCTION {{.Schema}}.clientstatus_pass_down();
DROP TRIGGER IF EXISTS clientstatus_prune_deletions ON threads;
CREATE TRIGGER clientstatus_prune_deletions AFTER DELETE ON threads
	FOR EACH STATEMENT EXECUTE FUNCTION {{.Schema}}.clientstatus_prune_deletions();

-- clientstatus_from_thread runs before clientstatus_touch (triggers of one
-- event run in name order), so that touch sees the copied columns.
DROP TRIGGER IF EXISTS clientstatus_from_thread ON messages;
CREATE TRIGGER clientstatus_from_thread BEFORE INSERT OR UPDATE ON messages
	FOR EACH ROW EXECUTE FUNCTION {{.Schema}}.clientstatus_from_thread();
DROP TRIGGER IF EXISTS clientstatus_touch ON messages;
CREATE TRIGGER clientstatus_touch BEFORE INSERT OR UPDATE ON messages
	FOR EACH ROW EXECUTE FUNCTION {{.Schema}}.clientstatus_touch();
DROP TRIGGER IF EXISTS clientstatus_forget_deletion ON messages;
CREATE TRIGGER clientstatus_forget_deletion AFTER INSERT ON messages
	FOR EACH ROW WHEN (NOT NEW.internal AND NOT NEW.thread_internal)
	EXECUTE FUNCTION {{.Schema}}.clientstatus_forget_deletion('message');
DROP TRIGGER IF EXISTS clientstatus_forget_shown ON messages;
CREATE TRIGGER clientstatus_forget_shown AFTER UPDATE ON messages
	FOR EACH ROW WHEN ((OLD.internal OR OLD.thread_internal) AND NOT NEW.internal AND NOT NEW.thread_internal)
	EXECUTE FUNCTION {{.Schema}}.clientstatus_forget_deletion('message');
DROP TRIGGER IF EXISTS clientstatus_record_deletion ON messages;
CREATE TRIGGER clientstatus_record_deletion AFTER DELETE ON messages
	FOR EACH ROW WHEN (NOT OLD.internal AND NOT OLD.thread_internal)
	EXECUTE FUNCTION {{.Schema}}.clientstatus_record_deletion('message', 'project_id');
DROP TRIGGER IF EXISTS clientstatus_record_hidden ON messages;
CREATE TRIGGER clientstatus_record_hidden AFTER UPDATE ON messages
	FOR EACH ROW WHEN (NOT OLD.internal AND NOT OLD.thread_internal AND (NEW.internal OR NEW.thread_internal))
	EXECUTE FUNCTION {{.Schema}}.clientstatus_record_deletion('message', 'project_id');
DROP TRIGGER IF EXISTS clientstatus_count_messages ON messages;
CREATE TRIGGER clientstatus_count_messages AFTER INSERT OR UPDATE OR DELETE ON messages
	FOR EACH ROW EXECUTE FUNCTION {{.Schema}}.clientstatus_count_messages();
DROP TRIGGER IF EXISTS clientstatus_prune_deletions ON messages;
CREATE TRIGGER clientstatus_prune_deletions AFTER DELETE ON messages
	FOR EACH STATEMENT EXECUTE FUNCTION {{.Schema}}.clientstatus_prune_deletions();

DROP TRIGGER IF EXISTS clientstatus_touch_message ON attachments;
CREATE TRIGGER clientstatus_touch_message AFTER INSERT OR UPDATE OR DELETE ON attachments
	FOR EACH ROW EXECUTE FUNCTION {{.Schema}}.clientstatus_touch_message();
