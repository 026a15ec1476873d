package auth_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/store"
)

// A portal mints a key for an organization, shows it to the client once,
// and the API resolves it on every request.
func ExampleNewKeys() {
	ctx := context.Background()
	st := store.NewMemory() // bunstore.New(db) in production: one store for both
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

// A Cache in front of the keys spares a key-store lookup per request; a
// revoked key is refused once the cache's ttl has passed.
func ExampleNewCache() {
	ctx := context.Background()
	st := store.NewMemory()
	if err := st.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "Acme", Plan: store.PlanStarter, RetainerActive: true, APIEnabled: true}); err != nil {
		fmt.Println(err)
		return
	}
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now } // a test clock; leave WithClock out in production
	keys := auth.NewKeys(auth.NewMemoryKeyStore(st), auth.WithClock(clock))
	defer keys.Close()
	resolver := auth.NewCache(keys,
		auth.WithCacheTTL(10*time.Second), // revocation takes effect within 10s
		auth.WithMaxEntries(1000),         // credentials remembered at most
		auth.WithClock(clock))

	plaintext, rec, err := keys.Mint(ctx, "org_a", "CI pipeline", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := resolver.Resolve(ctx, plaintext)
	fmt.Println(p.Org.ID, err)

	if err := keys.Revoke(ctx, "org_a", rec.ID); err != nil {
		fmt.Println(err)
		return
	}
	_, err = resolver.Resolve(ctx, plaintext)
	fmt.Println("just revoked:", err) // still remembered
	now = now.Add(10 * time.Second)
	_, err = resolver.Resolve(ctx, plaintext)
	fmt.Println("10s later:", errors.Is(err, auth.ErrInvalidKey))
	// Output:
	// org_a <nil>
	// just revoked: <nil>
	// 10s later: true
}

// A portal mints a key that reads only the invoices of one project, for a
// client's accounting tool.
func ExampleKeys_MintRestricted() {
	ctx := context.Background()
	st := store.NewMemory()
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
