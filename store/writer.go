package store

import "context"

// Writer inserts or replaces items by id. The API is read-only; Writer is for
// seeding a store: the example server's data file, tests, a portal's sync.
// An organization must be put before the items it owns.
//
// Implementations are safe for concurrent use.
type Writer interface {
	PutOrganization(ctx context.Context, o Organization) error
	PutProject(ctx context.Context, p Project) error
	PutMilestone(ctx context.Context, m Milestone) error
	PutDeliverable(ctx context.Context, d Deliverable) error
	PutInvoice(ctx context.Context, i Invoice) error
}
