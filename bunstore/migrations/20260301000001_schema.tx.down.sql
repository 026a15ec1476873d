SET LOCAL search_path TO {{.Schema}};
DROP TABLE IF EXISTS invoices, deliverables, milestones, projects, api_keys, organizations;
