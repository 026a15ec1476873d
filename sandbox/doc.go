// Package sandbox fills and drives the sandbox organizations that sandbox
// keys read (see auth.Keys.MintSandbox and auth.SandboxOrgID): demo data
// of every kind, made for one live organization, that changes by itself,
// so that a client can build and test an integration before it touches
// live data.
//
// Seed writes a live organization's sandbox: the organization (the live
// one's plan and access flags, under auth.SandboxOrgID), and, when the
// sandbox has no projects yet, projects, milestones, deliverables with
// files, invoices with and without documents, threads and messages. It is
// idempotent: run again, it updates the organization and leaves the demo
// data (and what the Simulator made of it) as it is. The files' bytes
// come from Files, a files.Source to serve beside the portal's own (their
// keys start with "sandbox/").
//
// A Simulator changes the sandboxes it was given (Add takes the live
// organization's id, as Seed does) every interval: invoices issued
// (draft to open) and paid, deliverables through review (pending,
// in_review, approved or rejected), milestones completed, new messages
// from the agency. It writes through the store's writers, so its changes
// make events, webhook deliveries and sync changes like any write. Given
// WithSeed and WithClock, its changes are deterministic.
//
//	sandbox.Seed(ctx, st, liveOrg)
//	sim := sandbox.New(st, sandbox.WithInterval(10*time.Minute))
//	sim.Add(liveOrg.ID)
//	go sim.Run(ctx)
//
// Sandbox and live data never mix: the sandbox is another organization in
// the same store, and the status API reads it, and only it, for a sandbox
// key.
package sandbox
