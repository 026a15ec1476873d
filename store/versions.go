package store

import "context"

// Versions is the part of Store that says, in one cheap read, whether
// anything a read of an organization could return has changed: the key of
// statusapi's response cache.
type Versions interface {
	// DataVersion returns the organization's data version (any value for
	// one that does not exist), moved atomically by every write that may
	// change a read of it, and never reused for other data. Compare it
	// for equality only (docs/store.md).
	DataVersion(ctx context.Context, orgID string) (int64, error)
}
