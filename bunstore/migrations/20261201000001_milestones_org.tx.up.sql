-- GET /v1/milestones: the organization's milestones of every project, in
-- the list's order (due_at, project_id, id), each also by status. With
-- updatedSince the list is read through milestones_changes (a range of
-- each project's changes, then sorted): an index of the organization's
-- changes alone would also be chosen for one project's, which its own
-- index serves better (plans_test.go).
--
-- Re-runnable like the others.

-- Migrate renders {{.Schema}}: the schema the tables are in.
SET LOCAL search_path TO {{.Schema}};

CREATE INDEX IF NOT EXISTS milestones_list_org ON milestones (org_id, due_at, project_id, id);
CREATE INDEX IF NOT EXISTS milestones_list_org_status ON milestones (org_id, status, due_at, project_id, id);
