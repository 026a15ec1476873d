package auth_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/store"
)

// A portal mints a key for an organization, shows it to the client once,
// and the API resolves it on every request.
func ExampleNewKeys() {
	ctx := context.Background()
	st := memstore.New() // bunstore.New(db) in production: one store for both
	if err := st.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "Acme", Plan: store.PlanGrowth, RetainerActive: true, APIEnabled: true}); err != nil {
		fmt.Println(err)
		return
	}
	keys := auth.NewKeys(auth.NewMemoryKeyStore(st), // the key store reads organizations from st
		auth.WithFlushInterval(5*time.Minute), // "last used" may be 5 minutes stale
		auth.WithLogger(slog.Default()))       // where failed last-use writes are reported
	defer keys.Close() // writes the last batch of last-use times

	plaintext, rec, err := keys.Mint(ctx, "org_a", "CI pipeline", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.HasPrefix(plaintext, "csk_"), len(plaintext), rec.Prefix == plaintext[:8])

	p, err := keys.Resolve(ctx, plaintext)
	fmt.Println(p.Org.ID, p.Org.Plan, p.Org.CanUseAPI(), p.KeyID == rec.ID, err)

	if err := keys.Revoke(ctx, "org_a", rec.ID); err != nil {
		fmt.Println(err)
		return
	}
	_, err = keys.Resolve(ctx, plaintext)
	fmt.Println(errors.Is(err, auth.ErrInvalidKey))

	_, _, err = keys.Mint(ctx, "org_a", strings.Repeat("n", 201), nil)
	fmt.Println(errors.Is(err, auth.ErrInvalidInput)) // the portal's caller typed too long a name
	_, _, err = keys.Mint(ctx, "org_x", "CI pipeline", nil)
	fmt.Println(errors.Is(err, auth.ErrUnknownOrganization)) // put the organization first
	// Output:
	// true 42 true
	// org_a growth true true <nil>
	// true
	// true
	// true
}

// A Cache in front of the keys spares a key-store lookup per request. It
// hears what Keys revokes, and what memstore.Store changes, by itself: the
// next request is refused, however long the ttl. The ttl bounds only
// changes that no channel reports (see ExampleWithInvalidations).
func ExampleNewCache() {
	ctx := context.Background()
	st := memstore.New()
	acme := store.Organization{ID: "org_a", Name: "Acme", Plan: store.PlanStarter, RetainerActive: true, APIEnabled: true}
	if err := st.PutOrganization(ctx, acme); err != nil {
		fmt.Println(err)
		return
	}
	keys := auth.NewKeys(auth.NewMemoryKeyStore(st))
	defer keys.Close()
	resolver := auth.NewCache(keys,
		auth.WithCacheTTL(30*time.Second), // the bound when no channel reports a change
		auth.WithMaxEntries(1000))         // credentials remembered at most
	defer resolver.Close()

	plaintext, rec, err := keys.Mint(ctx, "org_a", "CI pipeline", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := resolver.Resolve(ctx, plaintext)
	fmt.Println(p.Org.ID, p.Org.CanUseAPI(), err)

	acme.RetainerActive = false
	if err := st.PutOrganization(ctx, acme); err != nil {
		fmt.Println(err)
		return
	}
	p, err = resolver.Resolve(ctx, plaintext)
	fmt.Println("retainer ended:", p.Org.CanUseAPI(), err)

	if err := keys.Revoke(ctx, "org_a", rec.ID); err != nil {
		fmt.Println(err)
		return
	}
	_, err = resolver.Resolve(ctx, plaintext)
	fmt.Println("just revoked:", errors.Is(err, auth.ErrInvalidKey))
	// Output:
	// org_a true <nil>
	// retainer ended: false <nil>
	// just revoked: true
}

// A portal that changes organizations in a key store that reports nothing
// (its own) tells its caches through a Broadcast; Cache.Forget does the
// same for one cache. Without either, the change is seen once the ttl has
// passed.
func ExampleWithInvalidations() {
	ctx := context.Background()
	acme := store.Organization{ID: "org_a", Plan: store.PlanStarter, RetainerActive: true, APIEnabled: true}
	portal := auth.ResolverFunc(func(context.Context, string) (auth.Principal, error) {
		return auth.Principal{Org: acme}, nil // the portal's own lookup
	})
	changes := auth.NewBroadcast()
	resolver := auth.NewCache(portal, auth.WithInvalidations(changes))
	defer resolver.Close()

	p, _ := resolver.Resolve(ctx, "token")
	fmt.Println(p.Org.CanUseAPI())
	acme.APIEnabled = false
	p, _ = resolver.Resolve(ctx, "token")
	fmt.Println("before Publish:", p.Org.CanUseAPI()) // remembered
	changes.Publish("org_a")
	p, _ = resolver.Resolve(ctx, "token")
	fmt.Println("after Publish:", p.Org.CanUseAPI())
	// Output:
	// true
	// before Publish: true
	// after Publish: false
}

// A portal mints a key that reads only the invoices of one project, for a
// client's accounting tool.
func ExampleKeys_MintRestricted() {
	ctx := context.Background()
	st := memstore.New()
	_ = st.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "Acme", Plan: store.PlanGrowth, RetainerActive: true, APIEnabled: true})
	_ = st.PutProject(ctx, store.Project{ID: "p1", OrgID: "org_a", Name: "Website", Status: store.ProjectInProgress})
	keys := auth.NewKeys(auth.NewMemoryKeyStore(st))
	defer keys.Close()

	plaintext, _, err := keys.MintRestricted(ctx, "org_a", "accounting", nil, auth.Restriction{
		Scopes:     []auth.Scope{auth.ScopeInvoices},
		ProjectIDs: []string{"p1"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	p, _ := keys.Resolve(ctx, plaintext)
	fmt.Println(p.Allows(auth.ScopeInvoices), p.Allows(auth.ScopeDeliverables), p.AllowsProject("p1"), p.AllowsProject("p2"))

	_, _, err = keys.MintRestricted(ctx, "org_a", "typo", nil, auth.Restriction{ProjectIDs: []string{"p9"}})
	fmt.Println(errors.Is(err, auth.ErrInvalidInput)) // no such project
	// Output:
	// true false true false
	// true
}
