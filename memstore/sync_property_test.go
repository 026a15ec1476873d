package memstore_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/clientstatus/clientstatus/internal/test/testenv"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/store"
	"github.com/clientstatus/clientstatus/storetest"
)

// TestMemorySyncRandomInterleavings is the sync property on the
// memory store (bunstore's TestSyncRandomInterleavings on PostgreSQL):
// writers upsert and delete projects, the clock moves by random steps
// (none, or a second or two), and a client syncs at random moments by the
// contract's rule (deletions, then changes, page by page; the next since
// is the smallest SyncedThrough of the pages walked; upsert by id). After
// the last sync its copy equals the store, for 100 seeds. The memory
// store has no transactions: every write commits at once.
func TestMemorySyncRandomInterleavings(t *testing.T) {
	ctx := t.Context()
	for seed := range 100 {
		r := rand.New(rand.NewPCG(uint64(seed), 19))
		clock := testenv.NewClock(time.Date(2026, 11, 26, 7, 19, 7, 0, time.UTC))
		m := memstore.New(memstore.WithClock(clock.Now))
		if err := m.PutOrganization(ctx, store.Organization{ID: "org_a", Plan: store.PlanGrowth}); err != nil {
			t.Fatal(err)
		}
		c := storetest.ProjectCopy{Since: clock.Now()}
		sync := func() {
			if err := c.Sync(ctx, m, "org_a"); err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
		}
		for range 30 {
			clock.Advance(time.Duration(r.IntN(3)) * time.Second / 2)
			id := fmt.Sprint("p", r.IntN(5))
			switch k := r.IntN(10); {
			case k < 2:
				sync()
			case k < 4:
				if err := m.DeleteProject(ctx, "org_a", id); err != nil && !errors.Is(err, store.ErrNotFound) {
					t.Fatal(err)
				}
			default:
				if err := m.PutProject(ctx, store.Project{ID: id, OrgID: "org_a", Name: fmt.Sprint("name ", r.Uint32()), Status: store.ProjectPlanned}); err != nil {
					t.Fatal(err)
				}
			}
		}
		sync()
		if err := c.Check(ctx, m, "org_a"); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
}
