-- The whole schema of the status API. Every statement is IF NOT EXISTS, so a
-- run that committed but was not marked applied (bun/migrate marks after
-- success) is safe to run again.
--
-- Ids are unique per organization: every owned table's key is (org_id, id),
-- and references are composite, so a row can only point at its own
-- organization's rows. Each list has one index per shape, organization
-- first, then the filters, then the order of the contract.

-- Migrate renders {{.Schema}}: the schema the tables go in.
SET LOCAL search_path TO {{.Schema}};
SET LOCAL statement_timeout = 0;

CREATE TABLE IF NOT EXISTS organizations (
	id              text    NOT NULL PRIMARY KEY CHECK (id <> ''),
	name            text    NOT NULL DEFAULT '',
	plan            text    NOT NULL CHECK (plan IN ('starter', 'growth', 'enterprise')),
	retainer_active boolean NOT NULL DEFAULT false,
	api_enabled     boolean NOT NULL DEFAULT false
);

-- api_keys holds the SHA-256 of each key, never the key.
CREATE TABLE IF NOT EXISTS api_keys (
	id           text        NOT NULL PRIMARY KEY CHECK (id <> ''),
	org_id       text        NOT NULL REFERENCES organizations (id),
	name         text        NOT NULL DEFAULT '',
	prefix       text        NOT NULL DEFAULT '',
	hash         text        NOT NULL UNIQUE CHECK (hash <> ''),
	created_at   timestamptz NOT NULL,
	expires_at   timestamptz,
	last_used_at timestamptz,
	revoked_at   timestamptz
);
CREATE INDEX IF NOT EXISTS api_keys_list ON api_keys (org_id, created_at DESC, id DESC);

CREATE TABLE IF NOT EXISTS projects (
	org_id     text        NOT NULL REFERENCES organizations (id),
	id         text        NOT NULL CHECK (id <> ''),
	name       text        NOT NULL DEFAULT '',
	status     text        NOT NULL CHECK (status IN ('planned', 'in_progress', 'on_hold', 'completed', 'cancelled')),
	started_at timestamptz,
	due_at     timestamptz,
	updated_at timestamptz NOT NULL,
	PRIMARY KEY (org_id, id)
);
CREATE INDEX IF NOT EXISTS projects_list ON projects (org_id, started_at DESC NULLS LAST, id);
CREATE INDEX IF NOT EXISTS projects_list_status ON projects (org_id, status, started_at DESC NULLS LAST, id);

CREATE TABLE IF NOT EXISTS milestones (
	org_id       text        NOT NULL,
	id           text        NOT NULL CHECK (id <> ''),
	project_id   text        NOT NULL,
	name         text        NOT NULL DEFAULT '',
	status       text        NOT NULL CHECK (status IN ('pending', 'in_progress', 'completed')),
	due_at       timestamptz NOT NULL,
	completed_at timestamptz,
	PRIMARY KEY (org_id, id),
	FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id)
);
CREATE INDEX IF NOT EXISTS milestones_list ON milestones (org_id, project_id, due_at, id);
CREATE INDEX IF NOT EXISTS milestones_list_status ON milestones (org_id, project_id, status, due_at, id);

-- file_key says where a deliverable's file lives in the file source; '' when
-- no file is attached.
CREATE TABLE IF NOT EXISTS deliverables (
	org_id       text        NOT NULL,
	id           text        NOT NULL CHECK (id <> ''),
	project_id   text        NOT NULL,
	name         text        NOT NULL DEFAULT '',
	status       text        NOT NULL CHECK (status IN ('pending', 'in_review', 'approved', 'rejected')),
	file_key     text        NOT NULL DEFAULT '',
	file_name    text,
	content_type text,
	size_bytes   bigint      CHECK (size_bytes >= 0),
	created_at   timestamptz NOT NULL,
	updated_at   timestamptz NOT NULL,
	PRIMARY KEY (org_id, id),
	FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id)
);
CREATE INDEX IF NOT EXISTS deliverables_list ON deliverables (org_id, created_at DESC, id);
CREATE INDEX IF NOT EXISTS deliverables_list_status ON deliverables (org_id, status, created_at DESC, id);
CREATE INDEX IF NOT EXISTS deliverables_list_project ON deliverables (org_id, project_id, created_at DESC, id);
CREATE INDEX IF NOT EXISTS deliverables_list_project_status ON deliverables (org_id, project_id, status, created_at DESC, id);

-- project_id is null for retainer invoices; the composite reference (MATCH
-- SIMPLE) checks only invoices that name a project.
CREATE TABLE IF NOT EXISTS invoices (
	org_id     text        NOT NULL REFERENCES organizations (id),
	id         text        NOT NULL CHECK (id <> ''),
	number     text        NOT NULL DEFAULT '',
	project_id text        CHECK (project_id <> ''),
	status     text        NOT NULL CHECK (status IN ('draft', 'open', 'paid', 'void')),
	currency   text        NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
	total      bigint      NOT NULL CHECK (total >= 0),
	amount_due bigint      NOT NULL CHECK (amount_due >= 0),
	issued_at  timestamptz NOT NULL,
	due_at     timestamptz NOT NULL,
	paid_at    timestamptz,
	PRIMARY KEY (org_id, id),
	FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id)
);
CREATE INDEX IF NOT EXISTS invoices_list ON invoices (org_id, issued_at DESC, id);
CREATE INDEX IF NOT EXISTS invoices_list_status ON invoices (org_id, status, issued_at DESC, id);
CREATE INDEX IF NOT EXISTS invoices_list_project ON invoices (org_id, project_id, issued_at DESC, id);
CREATE INDEX IF NOT EXISTS invoices_list_project_status ON invoices (org_id, project_id, status, issued_at DESC, id);
