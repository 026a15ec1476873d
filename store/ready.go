package store

// SchemaError is a store's Ping error when its database does not hold the
// schema this version needs: never migrated, or migrated by a newer
// version. Reason says what to do, and holds no host name, password or
// driver message, so that a readiness probe may show it.
type SchemaError struct {
	Reason string
}

// Error returns the reason.
func (e *SchemaError) Error() string { return "store: not ready: " + e.Reason }
