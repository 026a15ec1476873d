// Package gosource reads the declarations of a package of this module from
// its sources, for tests that hold two packages to each other (the
// client's enums to the store's, the API document's to the store's)
// without a list kept by hand in either. It type-checks with go/types and
// the gc export data that `go list -export` builds, so it needs the go
// command: without it, a test is skipped, not failed.
package gosource
