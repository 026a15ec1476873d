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
	orgs := make(map[string]store.Organization, len(ds.orgs))
	for _, o := range ds.orgs {
		orgs[o.ID] = o
	}
	var want []string
	for _, k := range ds.keys {
		if k.Sandbox {
			want = append(want, k.OrgID)
		}
	}
	for _, e := range ds.webhooks {
		if e.Sandbox {
			want = append(want, e.OrgID)
		}
	}
	for _, id := range want {
		o, ok := orgs[id]
		if !ok {
			continue
		}
		delete(orgs, id) // once per organization
		if err := seedSandbox(ctx, st, o, sim); err != nil {
			return err
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
