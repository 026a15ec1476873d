-- Webhook endpoints (store.WebhookEndpoints), their queue of deliveries
-- and the log of their attempts (store.WebhookQueue). Every statement is
-- IF NOT EXISTS: re-runnable.
--
-- Secrets are sealed (AES-GCM) by package webhook before they reach the
-- store: bytea that the database cannot read. Response bodies are never
-- stored.

-- Migrate renders {{.Schema}}: the schema the tables go in.
SET LOCAL search_path TO {{.Schema}};
SET LOCAL statement_timeout = 0;

CREATE TABLE IF NOT EXISTS webhook_endpoints (
	org_id                text        NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
	id                    text        NOT NULL CHECK (id <> ''),
	url                   text        NOT NULL,
	types                 text[]      NOT NULL,
	scopes                text[],
	project_ids           text[],
	enabled               boolean     NOT NULL,
	disabled_reason       text        NOT NULL DEFAULT '',
	secret                bytea       NOT NULL,
	previous_secret       bytea,
	previous_secret_until timestamptz,
	-- The id of the last event queued for the endpoint.
	event_cursor          text        NOT NULL DEFAULT '',
	failing_since         timestamptz,
	created_at            timestamptz NOT NULL DEFAULT statement_timestamp(),
	updated_at            timestamptz NOT NULL DEFAULT statement_timestamp(),
	PRIMARY KEY (org_id, id)
);
CREATE INDEX IF NOT EXISTS webhook_endpoints_list ON webhook_endpoints (org_id, created_at, id);
CREATE INDEX IF NOT EXISTS webhook_endpoints_enabled ON webhook_endpoints (org_id, id) WHERE enabled;

-- One row per event queued for an endpoint: due is when its next attempt
-- may start (NULL once delivered or given up), claim the token of the
-- replica that holds it until due.
CREATE TABLE IF NOT EXISTS webhook_jobs (
	org_id      text        NOT NULL,
	endpoint_id text        NOT NULL,
	event_id    text        NOT NULL,
	event_type  text        NOT NULL,
	body        bytea       NOT NULL,
	attempts    integer     NOT NULL DEFAULT 0,
	due         timestamptz,
	queued_at   timestamptz NOT NULL,
	claim       text        NOT NULL DEFAULT '',
	PRIMARY KEY (org_id, endpoint_id, event_id),
	FOREIGN KEY (org_id, endpoint_id) REFERENCES webhook_endpoints (org_id, id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS webhook_jobs_due ON webhook_jobs (due) WHERE due IS NOT NULL;
CREATE INDEX IF NOT EXISTS webhook_jobs_done ON webhook_jobs (org_id, endpoint_id, queued_at) WHERE due IS NULL;

CREATE TABLE IF NOT EXISTS webhook_deliveries (
	org_id       text        NOT NULL,
	endpoint_id  text        NOT NULL,
	id           text        NOT NULL,
	event_id     text        NOT NULL,
	event_type   text        NOT NULL,
	attempt      integer     NOT NULL,
	attempted_at timestamptz NOT NULL,
	status_code  integer,
	error        text,
	duration_us  bigint      NOT NULL,
	PRIMARY KEY (org_id, endpoint_id, id),
	FOREIGN KEY (org_id, endpoint_id) REFERENCES webhook_endpoints (org_id, id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS webhook_deliveries_list ON webhook_deliveries (org_id, endpoint_id, attempted_at DESC, id DESC);
