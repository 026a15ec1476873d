-- Cache invalidation: every change that must end a cached answer of
-- auth.Keys (a key revoked, re-dated, moved or deleted; an organization
-- changed or deleted) sends the organization's id on the channel
-- clientstatus_auth, which Store.Subscribe LISTENs to. They are triggers,
-- so a portal's plain-SQL changes count too. A notification is sent when
-- its transaction commits, once per distinct payload.
--
-- The channel is the database's, shared by every schema in it: a cache
-- may forget an organization of the same id in another schema, which costs
-- it one lookup. An empty payload stands for every organization (a
-- TRUNCATE, or an id too long for a payload of 8000 bytes).
--
-- The functions name nothing but OLD, NEW and pg_notify, so they work
-- whatever the search_path of the session that writes. Re-runnable:
-- CREATE OR REPLACE, and DROP TRIGGER IF EXISTS before each CREATE.

-- Migrate renders {{.Schema}}: the schema the tables are in.
SET LOCAL search_path TO {{.Schema}};
SET LOCAL statement_timeout = 0;

CREATE OR REPLACE FUNCTION clientstatus_auth_notify_key() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_notify('clientstatus_auth', CASE WHEN octet_length(OLD.org_id) < 7900 THEN OLD.org_id ELSE '' END);
	IF TG_OP = 'UPDATE' AND NEW.org_id IS DISTINCT FROM OLD.org_id THEN
		PERFORM pg_notify('clientstatus_auth', CASE WHEN octet_length(NEW.org_id) < 7900 THEN NEW.org_id ELSE '' END);
	END IF;
	RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION clientstatus_auth_notify_organization() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_notify('clientstatus_auth', CASE WHEN octet_length(OLD.id) < 7900 THEN OLD.id ELSE '' END);
	RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION clientstatus_auth_notify_all() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_notify('clientstatus_auth', '');
	RETURN NULL;
END
$$;

-- Keys: not on last_used_at, which Keys writes in batches all day.
DROP TRIGGER IF EXISTS clientstatus_auth_notify_update ON api_keys;
CREATE TRIGGER clientstatus_auth_notify_update AFTER UPDATE ON api_keys FOR EACH ROW
	WHEN (OLD.revoked_at IS DISTINCT FROM NEW.revoked_at
		OR OLD.expires_at IS DISTINCT FROM NEW.expires_at
		OR OLD.org_id IS DISTINCT FROM NEW.org_id
		OR OLD.hash IS DISTINCT FROM NEW.hash)
	EXECUTE FUNCTION clientstatus_auth_notify_key();
DROP TRIGGER IF EXISTS clientstatus_auth_notify_delete ON api_keys;
CREATE TRIGGER clientstatus_auth_notify_delete AFTER DELETE ON api_keys FOR EACH ROW
	EXECUTE FUNCTION clientstatus_auth_notify_key();
DROP TRIGGER IF EXISTS clientstatus_auth_notify_truncate ON api_keys;
CREATE TRIGGER clientstatus_auth_notify_truncate AFTER TRUNCATE ON api_keys FOR EACH STATEMENT
	EXECUTE FUNCTION clientstatus_auth_notify_all();

-- Organizations: any change of a row, as a principal carries the whole
-- organization (its plan, retainer and API access above all). PutOrganization
-- writes a row only when it differs.
DROP TRIGGER IF EXISTS clientstatus_auth_notify_update ON organizations;
CREATE TRIGGER clientstatus_auth_notify_update AFTER UPDATE ON organizations FOR EACH ROW
	WHEN (OLD.* IS DISTINCT FROM NEW.*)
	EXECUTE FUNCTION clientstatus_auth_notify_organization();
DROP TRIGGER IF EXISTS clientstatus_auth_notify_delete ON organizations;
CREATE TRIGGER clientstatus_auth_notify_delete AFTER DELETE ON organizations FOR EACH ROW
	EXECUTE FUNCTION clientstatus_auth_notify_organization();
DROP TRIGGER IF EXISTS clientstatus_auth_notify_truncate ON organizations;
CREATE TRIGGER clientstatus_auth_notify_truncate AFTER TRUNCATE ON organizations FOR EACH STATEMENT
	EXECUTE FUNCTION clientstatus_auth_notify_all();
