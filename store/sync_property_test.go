package store_test

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/clientstatus/clientstatus/internal/testenv"
	"github.com/clientstatus/clientstatus/store"
)

// TestMemorySyncRandomInterleavings is the property of issue 19 on the
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
		m := store.NewMemory(store.WithClock(clock.Now))
		if err := m.PutOrganization(ctx, store.Organization{ID: "org_a", Plan: store.PlanGrowth}); err != nil {
			t.Fatal(err)
		}
		since := clock.Now()
		copy := map[string]string{}
		sync := func() {
			next := time.Time{}
			least := func(at time.Time) {
				if next.IsZero() || at.Before(next) {
					next = at
				}
			}
			var gone []string
			for page := 1; ; page++ {
				p, err := m.ListDeletions(ctx, "org_a", store.DeletionQuery{PageRequest: store.PageRequest{Page: page, Limit: 2}, Since: since})
				if err != nil {
					t.Fatalf("seed %d: deletions: %v", seed, err)
				}
				least(p.SyncedThrough)
				for _, d := range p.Items {
					gone = append(gone, d.ID)
				}
				if len(p.Items) < 2 {
					break
				}
			}
			changed := map[string]string{}
			for page := 1; ; page++ {
				p, err := m.ListProjects(ctx, "org_a", store.ProjectQuery{PageRequest: store.PageRequest{Page: page, Limit: 2}, UpdatedSince: since})
				if err != nil {
					t.Fatalf("seed %d: changes: %v", seed, err)
				}
				least(p.SyncedThrough)
				for _, it := range p.Items {
					changed[it.ID] = it.Name
				}
				if len(p.Items) < 2 {
					break
				}
			}
			for _, id := range gone {
				delete(copy, id)
			}
			maps.Copy(copy, changed)
			since = next
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
		want := map[string]string{}
		p, err := m.ListProjects(ctx, "org_a", store.ProjectQuery{PageRequest: store.PageRequest{Page: 1, Limit: store.MaxLimit}})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range p.Items {
			want[it.ID] = it.Name
		}
		if !maps.Equal(copy, want) {
			t.Fatalf("seed %d: after the last sync the copy is %v, the store holds %v", seed, copy, want)
		}
	}
}
