package store

import "context"

// Ping reports whether the store can serve, for a readiness check (see
// statusapi.Ready): memory always can, so it returns nil.
func (m *Memory) Ping(ctx context.Context) error { return nil }
