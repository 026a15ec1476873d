package bunstore_test

import (
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/internal/test/webhooktest"
)

// TestDispatcherBoundedPostgres is webhook's TestDispatcherBoundedMemory on
// PostgreSQL: organizations with endpoints put, watched, then
// deleted; a quiet pass's statements bounded. docs/performance.md quotes
// its log line.
func TestDispatcherBoundedPostgres(t *testing.T) {
	n := webhooktest.Size(t)
	st := bunstore.New(migrated(t))
	f := webhooktest.Measure(t, st, n, 20)
	t.Log(f)
	is := is.New(t)
	is.True(f.Pass.Calls <= 2+1) // the listing, the claim and the sweep's organization
}

// TestPortalPostgres is webhook's TestPortalMemory on PostgreSQL.
func TestPortalPostgres(t *testing.T) {
	webhooktest.Portal(t, func(t *testing.T) webhooktest.Subject { return bunstore.New(migrated(t)) })
}
