package sandbox_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"

	"github.com/matryer/is"
	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/internal/test/testenv"
	"github.com/clientstatus/clientstatus/sandbox"
	"github.com/clientstatus/clientstatus/store"
)

// TestOnPostgres seeds and drives a sandbox on PostgreSQL, in a schema of
// its own: the key store keeps the sandbox flag, the API keeps sandbox and
// live data apart, and the simulator's writes go through bunstore.
func TestOnPostgres(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	db, err := bunstore.Open(ctx, testenv.PostgresURL(t))
	is.NoErr(err)
	t.Cleanup(func() { db.Close() })
	schema := fmt.Sprintf("sandbox_%08x", rand.Uint32())
	t.Cleanup(func() {
		_, _ = db.ExecContext(context.Background(), "DROP SCHEMA IF EXISTS ? CASCADE", bun.Ident(schema))
	})
	is.NoErr(bunstore.Migrate(ctx, db, bunstore.WithSchema(schema)))
	st := bunstore.New(db, bunstore.WithSchema(schema))

	get, live, sbx := newWorldOn(t, st, st)
	checkNeverMix(t, get, live, sbx)

	before := snapshot(t, st)
	sim := sandbox.New(st, sandbox.WithSeed(3), sandbox.WithClock(clock), sandbox.WithChanges(8))
	sim.Add(acme.ID)
	is.NoErr(sim.Step(ctx))
	is.True(!maps.Equal(before, snapshot(t, st)))                     // the changes were written
	is.Equal(ids(t, get(live, "/v1/invoices")), []string{"inv_live"}) // still only live data
}

// snapshot returns the status of every item of acme's sandbox, by id, and
// its number of messages.
func snapshot(t *testing.T, st sandbox.Store) map[string]string {
	t.Helper()
	ctx := context.Background()
	org := auth.SandboxOrgID(acme.ID)
	all := store.PageRequest{Page: 1, Limit: 100}
	out := map[string]string{}
	inv, err := st.ListInvoices(ctx, org, store.InvoiceQuery{PageRequest: all})
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range inv.Items {
		out[i.ID] = string(i.Status)
	}
	dlv, err := st.ListDeliverables(ctx, org, store.DeliverableQuery{PageRequest: all})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dlv.Items {
		out[d.ID] = string(d.Status)
	}
	for _, p := range []string{"prj_sandbox_website", "prj_sandbox_app"} {
		ms, err := st.ListMilestones(ctx, org, p, store.MilestoneQuery{PageRequest: all})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms.Items {
			out[m.ID] = string(m.Status)
		}
	}
	msgs, err := st.ListMessages(ctx, org, store.MessageQuery{PageRequest: all})
	if err != nil {
		t.Fatal(err)
	}
	out["messages"] = fmt.Sprint(msgs.Total)
	return out
}
