-- The request log and the usage per key (store.RequestLog): request_logs
-- holds one row per request that statusapi's RequestRecorder wrote, kept
-- 7 days; key_usage one row per key and day (UTC), its counts added by
-- the same statement that appends the day's requests, kept 30 days. Both
-- are written in batches, never on a request's path, and pruned in
-- bounded batches (PruneRequestLogs) by whichever replica gets there
-- first: FOR UPDATE SKIP LOCKED lets replicas prune at once without
-- waiting for each other.
--
-- There is no foreign key to organizations: a batch that holds a request
-- of an organization deleted meanwhile must not fail for the others. The
-- append skips unknown organizations, and a trigger deletes an
-- organization's rows with it.
--
-- A request id is not unique (a client may send its own twice): seq, in
-- the order rows are appended, is the key and the last tie-breaker.
--
-- Re-runnable like the others: IF NOT EXISTS, CREATE OR REPLACE, DROP ...
-- IF EXISTS before what has none.

-- Migrate renders {{.Schema}}: the schema the tables are in.
SET LOCAL search_path TO {{.Schema}};
SET LOCAL statement_timeout = 0;

CREATE TABLE IF NOT EXISTS request_logs (
	seq         bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	org_id      text        NOT NULL,
	id          text        NOT NULL,
	key_id      text        NOT NULL DEFAULT '',
	method      text        NOT NULL,
	path        text        NOT NULL,
	route       text        NOT NULL,
	query       text[]      NOT NULL DEFAULT '{}',
	status      smallint    NOT NULL CHECK (status BETWEEN 100 AND 599),
	error_code  text        NOT NULL DEFAULT '',
	duration_us bigint      NOT NULL CHECK (duration_us >= 0),
	created_at  timestamptz NOT NULL
);
-- The list, newest first, and a restricted key's list of its own.
CREATE INDEX IF NOT EXISTS request_logs_list ON request_logs (org_id, created_at DESC, id, seq DESC);
CREATE INDEX IF NOT EXISTS request_logs_list_key ON request_logs (org_id, key_id, created_at DESC, id, seq DESC);
-- The retention job, oldest first.
CREATE INDEX IF NOT EXISTS request_logs_age ON request_logs (created_at);

CREATE TABLE IF NOT EXISTS key_usage (
	org_id       text        NOT NULL,
	key_id       text        NOT NULL,
	day          date        NOT NULL,
	requests     bigint      NOT NULL,
	errors       bigint      NOT NULL,
	last_used_at timestamptz NOT NULL,
	PRIMARY KEY (org_id, key_id, day)
);
CREATE INDEX IF NOT EXISTS key_usage_age ON key_usage (day);

-- forget_requests deletes the rows of the organizations a statement
-- deleted.
CREATE OR REPLACE FUNCTION {{.Schema}}.clientstatus_forget_requests() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM {{.Schema}}.request_logs AS r USING old_rows AS o WHERE r.org_id = o.id;
	DELETE FROM {{.Schema}}.key_usage AS u USING old_rows AS o WHERE u.org_id = o.id;
	RETURN NULL;
END
$$;
DROP TRIGGER IF EXISTS clientstatus_forget_requests ON organizations;
CREATE TRIGGER clientstatus_forget_requests AFTER DELETE ON organizations REFERENCING OLD TABLE AS old_rows
	FOR EACH STATEMENT EXECUTE FUNCTION {{.Schema}}.clientstatus_forget_requests();
