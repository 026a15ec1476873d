package webhook_test

import (
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/internal/test/webhooktest"
	"github.com/clientstatus/clientstatus/memstore"
)

// TestDispatcherBoundedMemory: the dispatcher's goroutines follow the
// organizations with enabled endpoints (put then deleted, they leave
// none behind), and a quiet pass over their endpoints makes a bounded
// number of store calls. docs/performance.md quotes its log line.
func TestDispatcherBoundedMemory(t *testing.T) {
	n := webhooktest.Size(t)
	f := webhooktest.Measure(t, memstore.New(), n, 10)
	t.Log(f)
	is := is.New(t)
	is.True(f.GoroutinesWithOrgs >= f.GoroutinesBefore+n) // a watch per organization while it has an endpoint
	is.True(f.Pass.Calls <= 2+1)                          // the listing, the claim and at most the sweep's organization
}

// TestPortalMemory runs the portal's cases (a test event, deliveries,
// revealing and rotating a secret, disabling) on memstore.Store.
func TestPortalMemory(t *testing.T) {
	webhooktest.Portal(t, func(*testing.T) webhooktest.Subject { return memstore.New() })
}
