package storetest

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/clientstatus/clientstatus/store"
	"github.com/matryer/is"
)

// testVersions makes every kind of write, of every kind of item
// (kindCases), and checks that each one moves the organization's data
// version to a value never seen before, the deleted and re-created
// organization included.
func testVersions(t *testing.T, open func(t *testing.T) Subject) {
	s := open(t)
	v := s
	is := is.New(t)
	f := seedData()
	f.put(t, s)
	seen := map[int64]string{}
	moved := versionCheck(t, v, orgA, seen)

	var written []kindCase
	for _, k := range kindCases {
		written = append(written, k)
		moved("a "+string(k.kind)+" put", func() error { return k.put(ctx, s, orgA, "v1", "p1", 0) })
		moved("a "+string(k.kind)+" changed", func() error { return k.put(ctx, s, orgA, "v1", "p1", 1) })
	}

	// Writes to the other organization may move org_a's version or not;
	// they never bring back a value it had.
	b := want(f.invoices, orgB, "ib", invoiceKey)
	b.AmountDue = 1
	is.NoErr(s.PutInvoice(ctx, b))
	if n, err := v.DataVersion(ctx, orgA); err != nil || seen[n] != "" && seen[n] != "a "+string(written[len(written)-1].kind)+" changed" {
		t.Fatalf("after a write to org_b, org_a's version is %d (%v), as after %s", n, err, seen[n])
	}

	del := s
	for _, k := range slices.Backward(written) {
		moved("a "+string(k.kind)+" deleted", func() error { return k.del(ctx, s, orgA, "v1") })
	}
	moved("a project deleted, with its items", func() error { return del.DeleteProject(ctx, orgA, "p1") })
	moved("the organization deleted", func() error { return del.DeleteOrganization(ctx, orgA) })
	moved("the organization put again, and a project", func() error {
		if err := s.PutOrganization(ctx, f.orgs[0]); err != nil {
			return err
		}
		return s.PutProject(ctx, want(f.projects, orgA, "p1", projectKey))
	})

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err := v.DataVersion(cancelled, orgA)
	is.True(errors.Is(err, context.Canceled)) // a cancelled context's error
}

// versionCheck returns moved, which makes a write and checks that it
// moved org's data version to a value not in seen, records it there, and
// checks that the version stays until the next write. The version before
// the first is recorded as well.
func versionCheck(t *testing.T, v store.Versions, org string, seen map[int64]string) func(what string, write func() error) {
	t.Helper()
	is := is.New(t)
	version := func() int64 {
		t.Helper()
		n, err := v.DataVersion(ctx, org)
		is.NoErr(err) // reading the data version
		return n
	}
	seen[version()] = "before the writes"
	return func(what string, write func() error) {
		t.Helper()
		is.NoErr(write()) // the write
		n := version()
		if prev, ok := seen[n]; ok {
			t.Fatalf("after %s the data version is %d, as it was after %s", what, n, prev)
		}
		seen[n] = what
		again := version()
		is.Equal(again, n) // a version moves only with a write
	}
}
