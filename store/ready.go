package store

import "context"

// Ping reports whether the store can serve, for a readiness check (see
// statusapi.Ready): memory always can, so it returns nil.
func (m *Memory) Ping(ctx context.Context) error { return nil }

// SchemaError is a store's Ping error when its database does not hold the
// schema this version needs: never migrated, or migrated by a newer
// version. Reason says what to do, and holds no host name, password or
// driver message, so that a readiness probe may show it.
type SchemaError struct {
	Reason string
}

// Error returns the reason.
func (e *SchemaError) Error() string { return "store: not ready: " + e.Reason }
