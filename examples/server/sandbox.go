package main

import (
	"context"

	"github.com/clientstatus/clientstatus/sandbox"
	"github.com/clientstatus/clientstatus/store"
)

// seedSandboxes seeds the sandbox of every organization of ds that holds
// a sandbox key (revoked or not: its data waits for a new key) or a
// sandbox webhook endpoint (see seedSandbox). Seeding keeps what the
// simulator made of a sandbox already seeded (see sandbox.Seed).
func seedSandboxes(ctx context.Context, st sandbox.Store, ds *dataset, sim *sandbox.Simulator) error {
	want := map[string]bool{}
	for _, k := range ds.keys {
		want[k.OrgID] = want[k.OrgID] || k.Sandbox
	}
	for _, e := range ds.webhooks {
		want[e.OrgID] = want[e.OrgID] || e.Sandbox
	}
	for _, o := range ds.orgs {
		if want[o.ID] {
			if err := seedSandbox(ctx, st, o, sim); err != nil {
				return err
			}
		}
	}
	return nil
}

// seedSandbox seeds the sandbox of o and has sim drive it, when not nil.
func seedSandbox(ctx context.Context, st sandbox.Store, o store.Organization, sim *sandbox.Simulator) error {
	if err := sandbox.Seed(ctx, st, o); err != nil {
		return err
	}
	if sim != nil {
		sim.Add(o.ID)
	}
	return nil
}
