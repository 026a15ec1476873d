package bunstore_test

import (
	"testing"

	"github.com/uptrace/bun"
)

// seed fills db, fast, with orgs organizations named prefix_0, prefix_1...,
// each with perOrg projects, milestones, deliverables and invoices whose
// ids (p0, m0, d0, i0...) are the same in every organization, with every
// status, some projects not started and some invoices of no project. Each
// project has about a tenth of its organization's milestones and
// deliverables (perOrg must be at least 10). It runs ANALYZE, so that the
// planner knows the tables' sizes. db's statement_timeout must allow for
// the size.
func seed(t testing.TB, db *bun.DB, prefix string, orgs, perOrg int) {
	t.Helper()
	n := orgs * perOrg
	// Row g belongs to organization g % orgs and has number g / orgs there.
	stmts := []string{
		`INSERT INTO organizations (id, name, plan, retainer_active, api_enabled)
		SELECT ? || '_' || k, 'Org ' || k, 'growth', true, true FROM generate_series(0, ? - 1) AS k`,
		`INSERT INTO projects (org_id, id, name, status, started_at, due_at, updated_at)
		SELECT ? || '_' || (g % ?), 'p' || (g / ?), 'Project ' || g,
			(ARRAY['planned', 'in_progress', 'on_hold', 'completed', 'cancelled'])[1 + g % 5],
			CASE WHEN g % 7 = 0 THEN NULL ELSE timestamptz '2026-01-01 00:00:00Z' + g * interval '1 second' END,
			NULL, timestamptz '2026-03-01 00:00:00Z'
		FROM generate_series(0, ? - 1) AS g`,
		`INSERT INTO milestones (org_id, id, project_id, name, status, due_at, completed_at)
		SELECT ? || '_' || (g % ?), 'm' || (g / ?), 'p' || ((g / ?) % 10), 'Milestone ' || g,
			(ARRAY['pending', 'in_progress', 'completed'])[1 + g % 3],
			timestamptz '2026-01-01 00:00:00Z' + (g % 1000) * interval '1 hour', NULL
		FROM generate_series(0, ? - 1) AS g`,
		`INSERT INTO deliverables (org_id, id, project_id, name, status, file_key, file_name, content_type, size_bytes, created_at, updated_at)
		SELECT ? || '_' || (g % ?), 'd' || (g / ?), 'p' || ((g / ?) % 10), 'Deliverable ' || g,
			(ARRAY['pending', 'in_review', 'approved', 'rejected'])[1 + g % 4],
			'files/' || g, 'file-' || g || '.pdf', 'application/pdf', 1000 + g,
			timestamptz '2026-01-01 00:00:00Z' + g * interval '1 second', timestamptz '2026-03-01 00:00:00Z'
		FROM generate_series(0, ? - 1) AS g`,
		`INSERT INTO invoices (org_id, id, number, project_id, status, currency, total, amount_due, issued_at, due_at, paid_at)
		SELECT ? || '_' || (g % ?), 'i' || (g / ?), 'INV-' || g,
			CASE WHEN g % 3 = 0 THEN NULL ELSE 'p' || ((g / ?) % 10) END,
			(ARRAY['draft', 'open', 'paid', 'void'])[1 + g % 4], 'EUR', 10000 + g, g % 10000,
			timestamptz '2026-01-01 00:00:00Z' + g * interval '1 second',
			timestamptz '2026-02-01 00:00:00Z' + g * interval '1 second', NULL
		FROM generate_series(0, ? - 1) AS g`,
	}
	args := [][]any{
		{prefix, orgs},
		{prefix, orgs, orgs, n},
		{prefix, orgs, orgs, orgs, n},
		{prefix, orgs, orgs, orgs, n},
		{prefix, orgs, orgs, orgs, n},
	}
	for i, stmt := range stmts {
		if _, err := db.ExecContext(ctx, stmt, args[i]...); err != nil {
			t.Fatalf("seed: %v", err)
		}
	}
	if _, err := db.ExecContext(ctx, analyzeTables); err != nil {
		t.Fatalf("analyze: %v", err)
	}
}

// analyzeTables refreshes the planner's statistics of the store's tables
// in the search path's schema: a bare ANALYZE would read every schema of
// the database, those of other test runs included.
const analyzeTables = "ANALYZE organizations, api_keys, projects, milestones, deliverables, invoices, deletions, threads, messages, attachments, item_counts, data_version_log"
