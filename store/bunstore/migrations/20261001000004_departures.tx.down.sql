-- Drops the departures (20261001000004_departures.tx.up.sql).
SET LOCAL search_path TO {{.Schema}};
DROP TRIGGER IF EXISTS clientstatus_depart ON milestones;
DROP TRIGGER IF EXISTS clientstatus_depart ON deliverables;
DROP TRIGGER IF EXISTS clientstatus_depart ON invoices;
DROP FUNCTION IF EXISTS {{.Schema}}.clientstatus_depart();
DROP TABLE IF EXISTS departures;
