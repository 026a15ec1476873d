-- Drops the webhook endpoints, their queue and their log.
SET LOCAL search_path TO {{.Schema}};
DROP TABLE IF EXISTS webhook_deliveries;
DROP TABLE IF EXISTS webhook_jobs;
DROP TABLE IF EXISTS webhook_endpoints;
