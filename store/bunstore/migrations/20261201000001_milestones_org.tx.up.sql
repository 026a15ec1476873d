-- GET /v1/milestones: the organization's milestones of every project, in
-- the list's order (due_at, project_id, id) and, with updatedSince, in
-- the order of changes (updated_at, id), each also by status. A walk by
-- cursor continues with a row comparison on (updated_at, id), which the
-- changes indexes serve as a range.
--
-- Re-runnable like the others.

-- Migrate renders {{.Schema}}: the schema the tables are in.
SET LOCAL search_path TO {{.Schema}};

CREATE INDEX IF NOT EXISTS milestones_list_org ON milestones (org_id, due_at, project_id, id);
CREATE INDEX IF NOT EXISTS milestones_list_org_status ON milestones (org_id, status, due_at, project_id, id);
CREATE INDEX IF NOT EXISTS milestones_changes_org ON milestones (org_id, updated_at, id);
CREATE INDEX IF NOT EXISTS milestones_changes_org_status ON milestones (org_id, status, updated_at, id);
