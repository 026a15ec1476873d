package store

import "context"

// Versions is the part of Store that says, in one cheap read, whether
// anything of an organization that a read could return has changed. The
// handler (statusapi) keeps encoded responses in a cache keyed by the
// version: an unchanged organization is answered, and revalidated (304),
// without a list query or any encoding. storetest checks the promise.
type Versions interface {
	// DataVersion returns the organization's data version. Every write
	// that may change what a read of orgID returns (a put, a delete, a
	// cascade, a thread or message written, internal or not) moves it
	// atomically with the write (in its transaction): a reader never sees
	// the new version before the new data, and never the new data with
	// the old version for good. A value, once returned, never stands for
	// other data: it does not come back after the organization is deleted
	// and put again. It may also move when nothing visible changed (that
	// only costs a cache miss), and a put that changes nothing may move it
	// or not. An organization that does not exist has a version too (0,
	// say). The value is opaque: compare it for equality only.
	DataVersion(ctx context.Context, orgID string) (int64, error)
}
