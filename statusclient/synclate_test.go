package statusclient_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/statusclient"
)

// TestSyncLateCommit runs the schedule on the fake: a transaction
// stamps invoice C, then waits; a later one writes invoice B and commits;
// the client syncs (it sees B, not C); then C commits, stamped before B.
// Asking again from the smallest syncedThrough fetches C; asking from the
// largest updatedAt seen (the older servers' rule, which sends no
// syncedThrough) passes over it for good, which shows the schedule is the
// one that matters.
func TestSyncLateCommit(t *testing.T) {
	for _, legacy := range []bool{false, true} {
		t.Run(fmt.Sprint("legacy=", legacy), func(t *testing.T) {
			is := is.New(t)
			ctx := context.Background()
			f := newChangeAPI(t0)
			f.noSyncedThrough = legacy
			c := syncServer(t, f)
			seed(f)
			var r statusclient.Replica
			_, err := c.Sync(ctx, &r)
			is.NoErr(err)

			f.tick(time.Minute)
			tx1 := f.begin() // stamps C now
			tx1.put(statusclient.Invoice{ID: "C", Number: "C", Status: statusclient.InvoiceOpen, Currency: "EUR", IssuedAt: t0, DueAt: t0})
			tx1.del(statusclient.DeletionMilestone, "m3") // a deletion inside the late transaction
			f.tick(2 * time.Second)
			f.put(statusclient.Invoice{ID: "B", Number: "B", Status: statusclient.InvoiceOpen, Currency: "EUR", IssuedAt: t0, DueAt: t0})
			_, err = c.Sync(ctx, &r)
			is.NoErr(err)
			_, ok := r.Invoices["B"]
			is.True(ok) // B committed: seen

			f.tick(time.Second)
			tx1.commit() // C and the deletion, stamped before B
			for range 2 {
				f.tick(time.Minute)
				_, err = c.Sync(ctx, &r)
				is.NoErr(err)
			}
			_, hasC := r.Invoices["C"]
			_, hasM3 := r.Milestones["m3"]
			if legacy {
				is.True(!hasC) // the old rule misses C forever
				return
			}
			is.True(hasC)  // fetched by the next Sync
			is.True(!hasM3) // and the deletion applied
			f.equal(t, &r)
		})
	}
}

// TestSyncLateCommitDuringALoad opens a transaction before the first Sync
// (a full load) and commits it after: its new project, its edit of an
// invoice and its deletion of a deliverable all reach the replica by the
// next Sync.
func TestSyncLateCommitDuringALoad(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	f := newChangeAPI(t0)
	c := syncServer(t, f)
	seed(f)
	f.tick(time.Minute)
	tx := f.begin()
	tx.put(statusclient.Project{ID: "p9", Name: "Late", Status: statusclient.ProjectPlanned})
	inv := f.invoices["i2"]
	inv.Status = statusclient.InvoiceOpen
	tx.put(inv)
	tx.del(statusclient.DeletionDeliverable, "d2")
	f.tick(5 * time.Second)
	f.put(statusclient.Project{ID: "p8", Name: "Early", Status: statusclient.ProjectPlanned})

	var r statusclient.Replica
	st, err := c.Sync(ctx, &r)
	is.NoErr(err)
	is.True(st.Full)
	tx.commit()
	f.tick(time.Minute)
	st, err = c.Sync(ctx, &r)
	is.NoErr(err)
	is.True(!st.Full)
	f.equal(t, &r)
}

// inProcess is a transport that serves every request with h, without a
// socket: the many requests of TestSyncLateCommitsRandom stay cheap.
type inProcess struct{ h http.Handler }

func (t inProcess) RoundTrip(req *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, req)
	return rec.Result(), nil
}

// TestSyncLateCommitsRandom interleaves several writers, each a
// transaction stamped when it begins and seen when it commits, with a
// syncing client, over many seeds: after the last commit and a last Sync,
// the replica equals the fake's data.
func TestSyncLateCommitsRandom(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(100) {
		rng := rand.New(rand.NewPCG(seed, 19))
		f := newChangeAPI(t0)
		c := statusclient.New("http://fake.invalid/v1", "k", statusclient.WithHTTPClient(&http.Client{Transport: inProcess{f}}))
		for i := range 5 {
			f.put(statusclient.Project{ID: fmt.Sprint("p", i), Status: statusclient.ProjectPlanned})
		}
		var r statusclient.Replica
		var open []*lateTx
		for range 60 {
			switch rng.IntN(5) {
			case 0: // a writer begins
				open = append(open, f.begin())
			case 1: // a writer writes in its transaction, or on its own
				inv := statusclient.Invoice{ID: fmt.Sprint("i", rng.IntN(20)), Number: fmt.Sprint(rng.IntN(1000)), Status: statusclient.InvoiceOpen, Currency: "EUR", IssuedAt: t0, DueAt: t0}
				ms := statusclient.Milestone{ID: fmt.Sprint("m", rng.IntN(20)), ProjectID: fmt.Sprint("p", rng.IntN(5)), Name: fmt.Sprint(rng.IntN(1000)), Status: statusclient.MilestonePending, DueAt: t0}
				if len(open) > 0 && rng.IntN(3) > 0 {
					open[rng.IntN(len(open))].put(inv, ms)
				} else {
					f.put(inv, ms)
				}
			case 2: // a writer deletes in its transaction (once committed, if the item is there)
				if len(open) > 0 {
					tx := open[rng.IntN(len(open))]
					id := fmt.Sprint("i", rng.IntN(20))
					tx.dels = append(tx.dels, deletionKey{statusclient.DeletionInvoice, id})
				}
			case 3: // a writer commits
				if len(open) > 0 {
					i := rng.IntN(len(open))
					open[i].commit()
					open = append(open[:i], open[i+1:]...)
				}
			case 4:
				_, err := c.Sync(ctx, &r)
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
			}
			f.tick(time.Duration(rng.IntN(3)) * time.Second)
		}
		for _, tx := range open {
			tx.commit()
		}
		f.tick(time.Second)
		if _, err := c.Sync(ctx, &r); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) { f.equal(t, &r) })
	}
}
