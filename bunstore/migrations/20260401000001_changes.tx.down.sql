SET LOCAL search_path TO {{.Schema}};
DROP TRIGGER IF EXISTS clientstatus_forget_organization ON organizations;
DROP TRIGGER IF EXISTS clientstatus_touch ON projects;
DROP TRIGGER IF EXISTS clientstatus_forget_deletion ON projects;
DROP TRIGGER IF EXISTS clientstatus_record_deletion ON projects;
DROP TRIGGER IF EXISTS clientstatus_prune_deletions ON projects;
DROP TRIGGER IF EXISTS clientstatus_touch ON milestones;
DROP TRIGGER IF EXISTS clientstatus_forget_deletion ON milestones;
DROP TRIGGER IF EXISTS clientstatus_record_deletion ON milestones;
DROP TRIGGER IF EXISTS clientstatus_prune_deletions ON milestones;
DROP TRIGGER IF EXISTS clientstatus_touch ON deliverables;
DROP TRIGGER IF EXISTS clientstatus_forget_deletion ON deliverables;
DROP TRIGGER IF EXISTS clientstatus_record_deletion ON deliverables;
DROP TRIGGER IF EXISTS clientstatus_prune_deletions ON deliverables;
DROP TRIGGER IF EXISTS clientstatus_touch ON invoices;
DROP TRIGGER IF EXISTS clientstatus_forget_deletion ON invoices;
DROP TRIGGER IF EXISTS clientstatus_record_deletion ON invoices;
DROP TRIGGER IF EXISTS clientstatus_prune_deletions ON invoices;
DROP FUNCTION IF EXISTS clientstatus_touch(), clientstatus_record_deletion(), clientstatus_forget_deletion(),
	clientstatus_forget_organization(), clientstatus_prune_deletions();
ALTER TABLE api_keys DROP CONSTRAINT IF EXISTS api_keys_org_id_fkey,
	ADD CONSTRAINT api_keys_org_id_fkey FOREIGN KEY (org_id) REFERENCES organizations (id);
ALTER TABLE projects DROP CONSTRAINT IF EXISTS projects_org_id_fkey,
	ADD CONSTRAINT projects_org_id_fkey FOREIGN KEY (org_id) REFERENCES organizations (id);
ALTER TABLE milestones DROP CONSTRAINT IF EXISTS milestones_org_id_project_id_fkey,
	ADD CONSTRAINT milestones_org_id_project_id_fkey FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id);
ALTER TABLE deliverables DROP CONSTRAINT IF EXISTS deliverables_org_id_project_id_fkey,
	ADD CONSTRAINT deliverables_org_id_project_id_fkey FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id);
ALTER TABLE invoices DROP CONSTRAINT IF EXISTS invoices_org_id_fkey,
	ADD CONSTRAINT invoices_org_id_fkey FOREIGN KEY (org_id) REFERENCES organizations (id);
ALTER TABLE invoices DROP CONSTRAINT IF EXISTS invoices_org_id_project_id_fkey,
	ADD CONSTRAINT invoices_org_id_project_id_fkey FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id);
DROP INDEX IF EXISTS projects_changes, projects_changes_status, milestones_changes, milestones_changes_status,
	deliverables_changes, deliverables_changes_status, deliverables_changes_project, deliverables_changes_project_status,
	invoices_changes, invoices_changes_status, invoices_changes_project, invoices_changes_project_status;
ALTER TABLE projects ALTER COLUMN updated_at DROP DEFAULT;
ALTER TABLE deliverables ALTER COLUMN updated_at DROP DEFAULT;
ALTER TABLE milestones DROP COLUMN IF EXISTS updated_at;
ALTER TABLE invoices DROP COLUMN IF EXISTS updated_at;
DROP TABLE IF EXISTS deletions, sync_horizon;
