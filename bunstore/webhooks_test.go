package bunstore_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matryer/is"
	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/internal/test/eventfake"
	"github.com/clientstatus/clientstatus/internal/test/testenv"
	"github.com/clientstatus/clientstatus/store"
	"github.com/clientstatus/clientstatus/webhook"
)

var webhookKey, _ = webhook.DeriveKey([]byte("test signing key, 32 bytes or more"))

// replicas opens n pools on one fresh, migrated schema: the stores of n
// replicas of a portal.
func replicas(t *testing.T, n int) []*bunstore.Store {
	t.Helper()
	sts, _ := replicasOn(t, n)
	return sts
}

// replicasOn is replicas, with one more pool on the schema, to look at
// its tables.
func replicasOn(t *testing.T, n int) ([]*bunstore.Store, *bun.DB) {
	t.Helper()
	schema, dsn := newSchema(t)
	var out []*bunstore.Store
	for range n {
		db, err := bunstore.Open(ctx, withParams(dsn, map[string]string{"search_path": schema}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		out = append(out, bunstore.New(db))
	}
	db, err := bunstore.Open(ctx, withParams(dsn, map[string]string{"search_path": schema}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := bunstore.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	if err := out[0].PutOrganization(ctx, store.Organization{ID: "org_a", Name: "A", Plan: store.PlanStarter}); err != nil {
		t.Fatal(err)
	}
	return out, db
}

func TestWebhookEndpointsPostgres(t *testing.T) {
	is := is.New(t)
	st := replicas(t, 1)[0]
	ev := eventfake.New()
	eps := webhook.NewEndpoints(st, ev, webhookKey)
	e, secret, err := eps.Create(ctx, "org_a", webhook.Settings{ID: "we_1", URL: "https://hooks.example.com/a", Types: []string{"invoice.paid"}})
	is.NoErr(err)
	is.True(webhook.ValidSecret(secret))
	is.Equal(e.Types, []string{"invoice.paid"})
	is.True(e.Enabled)
	is.True(e.Scopes == nil) // NULL is no restriction
	_, _, err = eps.Create(ctx, "org_a", webhook.Settings{ID: "we_1", URL: "https://hooks.example.com/b"})
	is.True(errors.Is(err, store.ErrConflict))
	_, _, err = eps.Create(ctx, "org_none", webhook.Settings{URL: "https://hooks.example.com/b"})
	is.True(errors.Is(err, store.ErrNotFound))

	raw, err := st.GetWebhookEndpoint(ctx, "org_a", "we_1")
	is.NoErr(err)
	is.True(len(raw.Secret) > 0)
	is.True(!bytesContain(raw.Secret, secret[6:])) // sealed at rest

	off := false
	u, err := eps.Update(ctx, "org_a", "we_1", webhook.Update{Enabled: &off})
	is.NoErr(err)
	is.Equal(u.DisabledReason, webhook.ReasonDisabled)
	is.True(!u.UpdatedAt.Before(u.CreatedAt))
	rotated, err := eps.RotateSecret(ctx, "org_a", "we_1")
	is.NoErr(err)
	is.True(rotated != secret)
	raw2, err := st.GetWebhookEndpoint(ctx, "org_a", "we_1")
	is.NoErr(err)
	is.Equal(raw2.PreviousSecret, raw.Secret) // the old one still signs for a while
	is.True(raw2.PreviousSecretUntil.After(time.Now().Add(23 * time.Hour)))

	p, err := eps.List(ctx, "org_a", store.PageRequest{Page: 1, Limit: 10})
	is.NoErr(err)
	is.Equal(p.Total, 1)
	for status, want := range map[store.WebhookEndpointStatus]int{store.WebhookEndpointDisabled: 1, store.WebhookEndpointEnabled: 0, "": 1} {
		p, err := st.ListWebhookEndpoints(ctx, "org_a", store.WebhookEndpointQuery{PageRequest: store.PageRequest{Page: 1, Limit: 10}, Status: status})
		is.NoErr(err)
		is.Equal(p.Total, want)      // the status filter
		is.Equal(len(p.Items), want) // counts what it lists
	}
	_, err = st.ListWebhookDeliveries(ctx, "org_a", "nope", store.WebhookDeliveryQuery{PageRequest: store.PageRequest{Page: 1, Limit: 10}})
	is.True(errors.Is(err, store.ErrNotFound))
	is.NoErr(eps.Delete(ctx, "org_a", "we_1"))
	is.True(errors.Is(eps.Delete(ctx, "org_a", "we_1"), store.ErrNotFound))
}

func bytesContain(b []byte, s string) bool {
	return len(s) > 0 && string(b) != "" && (len(b) >= len(s) && containsString(string(b), s))
}

func containsString(a, b string) bool {
	for i := 0; i+len(b) <= len(a); i++ {
		if a[i:i+len(b)] == b {
			return true
		}
	}
	return false
}

// tally is a receiver that counts the deliveries of each event to each
// endpoint (by path). With a gate, it holds every request until the gate
// opens, and drops (counts not) one whose sender left meanwhile.
type tally struct {
	mu   sync.Mutex
	got  map[string]int
	gate chan struct{}
}

func newTally(t *testing.T, gate chan struct{}) (*tally, *httptest.Server) {
	tl := &tally{got: map[string]int{}, gate: gate}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if tl.gate != nil {
			select {
			case <-tl.gate:
			case <-r.Context().Done():
				return
			}
		}
		tl.mu.Lock()
		tl.got[r.URL.Path+" "+r.Header.Get("webhook-id")]++
		tl.mu.Unlock()
		w.WriteHeader(204)
	}))
	t.Cleanup(srv.Close)
	return tl, srv
}

// count returns the distinct deliveries and the duplicates.
func (tl *tally) count() (distinct, dups int) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	for _, n := range tl.got {
		dups += n - 1
	}
	return len(tl.got), dups
}

// claims is a replica's store that counts the jobs it claimed and the
// attempts it finished: the difference is the claims it holds.
type claims struct {
	*bunstore.Store
	claimed, finished atomic.Int64
}

func (c *claims) ClaimWebhookJobs(ctx context.Context, now time.Time, limit int, claim time.Duration) ([]store.WebhookJob, error) {
	jobs, err := c.Store.ClaimWebhookJobs(ctx, now, limit, claim)
	c.claimed.Add(int64(len(jobs)))
	return jobs, err
}

func (c *claims) FinishWebhookAttempt(ctx context.Context, job store.WebhookJob, d store.WebhookDelivery, o store.WebhookOutcome) error {
	c.finished.Add(1)
	return c.Store.FinishWebhookAttempt(ctx, job, d, o)
}

func (c *claims) held() int64 { return c.claimed.Load() - c.finished.Load() }

// eventually polls cond, a state of the database that dispatchers move,
// until it holds or a minute has passed.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if !testenv.Until(time.Minute, cond) {
		t.Fatalf("not after a minute: %s", what)
	}
}

// TestWebhookReplicas runs two dispatchers on two pools of one schema:
// 300 events to 3 endpoints arrive each exactly once (tools/webhookload
// measures 1,000, with replica processes and PostgreSQL's event spine). Then again with
// one dispatcher killed while it holds claims (its attempts held at the
// receiver, then abandoned, nothing of them recorded): its jobs stay
// claimed, and the survivor delivers them once the claims expire, on the
// dispatchers' clock, moved by the test.
func TestWebhookReplicas(t *testing.T) {
	for _, kill := range []bool{false, true} {
		t.Run(fmt.Sprintf("kill=%v", kill), func(t *testing.T) {
			is := is.New(t)
			sts, db := replicasOn(t, 2)
			ev := eventfake.New()
			const events, endpoints = 300, 3
			var gate chan struct{}
			if kill {
				gate = make(chan struct{})
			}
			tl, srv := newTally(t, gate)
			eps := webhook.NewEndpoints(sts[0], ev, webhookKey, webhook.WithAllowLocal(true))
			for i := range endpoints {
				_, _, err := eps.Create(ctx, "org_a", webhook.Settings{URL: fmt.Sprintf("%s/e%d", srv.URL, i)})
				is.NoErr(err)
			}
			clock := testenv.NewClock(time.Now())
			const claim = time.Minute
			opts := []webhook.Option{webhook.WithAllowLocal(true), webhook.WithPollInterval(20 * time.Millisecond),
				webhook.WithClaimExpiry(claim), webhook.WithTimeout(30 * time.Second), webhook.WithClock(clock.Now)}
			var reps []*claims
			var ds []*webhook.Dispatcher
			for _, st := range sts {
				c := &claims{Store: st}
				d := webhook.NewDispatcher(c, ev, webhookKey, opts...)
				d.Start(ctx)
				reps, ds = append(reps, c), append(ds, d)
			}
			for i := range events {
				ev.Add("org_a", store.Event{Type: "invoice.paid", Kind: store.KindInvoice, ItemID: fmt.Sprint("inv_", i)})
			}
			pending := func() int {
				var n int
				if err := db.NewRaw("SELECT count(*) FROM webhook_jobs WHERE due IS NOT NULL").Scan(ctx, &n); err != nil {
					t.Fatal(err)
				}
				return n
			}
			var held int64
			if kill {
				// The first replica dies while its attempts wait at the
				// receiver: nothing of them is finished.
				eventually(t, "the first replica holds claims", func() bool { return reps[0].held() > 0 })
				dead, cancel := context.WithCancel(ctx)
				cancel()
				ds[0].Stop(dead)
				held = reps[0].held()
				is.True(held > 0) // it held claims when it died
				close(gate)
				// The survivor delivers everything else; the dead
				// replica's jobs stay claimed until their claims expire.
				eventually(t, "only the dead replica's jobs pending", func() bool { return pending() == int(held) })
				clock.Advance(claim + time.Second)
			}
			eventually(t, "every job finished", func() bool { return pending() == 0 })
			eventually(t, "every delivery arrived", func() bool { n, _ := tl.count(); return n == events*endpoints })
			for _, d := range ds {
				is.NoErr(d.Stop(ctx))
			}
			distinct, dups := tl.count()
			t.Logf("kill=%v: %d deliveries of %d events to %d endpoints by 2 replicas; %d claims held by the dead one, %d duplicates, %d lost",
				kill, distinct, events, endpoints, held, dups, events*endpoints-distinct)
			is.Equal(distinct, events*endpoints) // none lost
			if kill {
				is.True(int64(dups) <= held) // a duplicate only of an attempt the dead replica may have made
			} else {
				is.Equal(dups, 0) // each event reaches each endpoint once
			}
		})
	}
}

// TestWebhookFailingSince: a failed attempt starts the endpoint's run of
// failures, a later one keeps its start, a success ends it, and a
// success of an endpoint not failing changes nothing of it; an outcome
// that disables, disables.
func TestWebhookFailingSince(t *testing.T) {
	is := is.New(t)
	st := replicas(t, 1)[0]
	is.NoErr(st.CreateWebhookEndpoint(ctx, store.WebhookEndpoint{ID: "we_1", OrgID: "org_a", URL: "https://hooks.example.com/",
		Types: []string{"*"}, Enabled: true, Secret: []byte("sealed")}))
	t0 := time.Now().UTC().Truncate(time.Second)
	var jobs []store.WebhookJob
	for i := range 5 {
		jobs = append(jobs, store.WebhookJob{EventID: fmt.Sprint("evt_", i), EventType: "invoice.paid", Body: []byte(`{}`), Due: t0, QueuedAt: t0})
	}
	is.NoErr(st.EnqueueWebhookJobs(ctx, "org_a", "we_1", "", "evt_4", jobs))
	claimed, err := st.ClaimWebhookJobs(ctx, t0, 5, time.Minute)
	is.NoErr(err)
	is.Equal(len(claimed), 5)
	finish := func(j store.WebhookJob, at time.Time, status int, o store.WebhookOutcome) store.WebhookEndpoint {
		t.Helper()
		is.NoErr(st.FinishWebhookAttempt(ctx, j, store.WebhookDelivery{ID: "whd_" + j.EventID, EndpointID: "we_1", EventID: j.EventID,
			EventType: j.EventType, Attempt: 1, AttemptedAt: at, StatusCode: status}, o))
		e, err := st.GetWebhookEndpoint(ctx, "org_a", "we_1")
		is.NoErr(err)
		return e
	}
	e := finish(claimed[0], t0, 204, store.WebhookOutcome{Success: true})
	is.True(e.FailingSince.IsZero()) // a success of an endpoint not failing
	is.True(e.Enabled)
	e = finish(claimed[1], t0.Add(time.Second), 503, store.WebhookOutcome{Retry: t0.Add(time.Hour)})
	is.True(e.FailingSince.Equal(t0.Add(time.Second))) // a failure starts the run
	e = finish(claimed[2], t0.Add(2*time.Second), 503, store.WebhookOutcome{Retry: t0.Add(time.Hour)})
	is.True(e.FailingSince.Equal(t0.Add(time.Second))) // a later one keeps its start
	e = finish(claimed[3], t0.Add(3*time.Second), 204, store.WebhookOutcome{Success: true})
	is.True(e.FailingSince.IsZero()) // a success ends it
	e = finish(claimed[4], t0.Add(4*time.Second), 410, store.WebhookOutcome{Disable: "gone"})
	is.True(!e.Enabled) // disabled
	is.Equal(e.DisabledReason, "gone")
}

// TestDispatcherStore: with every connection of the request pool taken
// (requests starving), a dispatcher on DispatcherStore's pool of its
// own still delivers.
func TestDispatcherStore(t *testing.T) {
	is := is.New(t)
	db := migrated(t)
	st := bunstore.New(db)
	is.NoErr(st.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "A", Plan: store.PlanStarter}))
	ev := eventfake.New()
	tl, srv := newTally(t, nil)
	eps := webhook.NewEndpoints(st, ev, webhookKey, webhook.WithAllowLocal(true))
	_, _, err := eps.Create(ctx, "org_a", webhook.Settings{URL: srv.URL + "/a"})
	is.NoErr(err)
	_, _, err = bunstore.New(db).DispatcherStore(ctx, -1)
	is.True(err != nil) // a negative size is refused

	ds, closePool, err := st.DispatcherStore(ctx, 2)
	is.NoErr(err)
	defer func() { is.NoErr(closePool()) }()
	d := webhook.NewDispatcher(ds, ev, webhookKey, webhook.WithAllowLocal(true), webhook.WithPollInterval(20*time.Millisecond),
		webhook.WithLeader(ds))
	d.Start(ctx)
	defer d.Stop(ctx)

	// Requests take every connection of their pool and keep them.
	var held []*sql.Conn
	for range db.Stats().MaxOpenConnections {
		c, err := db.DB.Conn(ctx)
		is.NoErr(err)
		held = append(held, c)
	}
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	_, err = st.GetWebhookEndpoint(short, "org_a", "we_none")
	cancel()
	is.True(errors.Is(err, store.ErrUnavailable)) // a request waits for a connection in vain

	for range 5 {
		ev.Add("org_a", store.Event{Type: "invoice.paid", Kind: store.KindInvoice, ItemID: "inv_1"})
	}
	eventually(t, "five deliveries while requests hold their pool", func() bool { n, _ := tl.count(); return n == 5 })
}

// TestWebhookLeaderHandover: of two replicas, the one that led queues
// alone; once its dispatcher stops, the other takes the lead at its next
// poll and the next events are delivered.
func TestWebhookLeaderHandover(t *testing.T) {
	is := is.New(t)
	sts := replicas(t, 2)
	ev := eventfake.New()
	tl, srv := newTally(t, nil)
	eps := webhook.NewEndpoints(sts[0], ev, webhookKey, webhook.WithAllowLocal(true))
	_, _, err := eps.Create(ctx, "org_a", webhook.Settings{URL: srv.URL + "/a"})
	is.NoErr(err)
	opts := []webhook.Option{webhook.WithAllowLocal(true), webhook.WithPollInterval(20 * time.Millisecond)}
	first := webhook.NewDispatcher(sts[0], ev, webhookKey, append(opts, webhook.WithLeader(sts[0]))...)
	first.Start(ctx)
	ev.Add("org_a", store.Event{Type: "invoice.paid", Kind: store.KindInvoice, ItemID: "inv_1"})
	eventually(t, "the first replica, alone, delivers", func() bool { n, _ := tl.count(); return n == 1 })
	asking, stopAsking := context.WithCancel(ctx)
	is.True(!sts[1].LeadWebhooks(asking)(ctx)) // the first replica leads
	stopAsking()
	second := webhook.NewDispatcher(sts[1], ev, webhookKey, append(opts, webhook.WithLeader(sts[1]))...)
	second.Start(ctx)
	defer second.Stop(ctx)
	is.NoErr(first.Stop(ctx))
	ev.Add("org_a", store.Event{Type: "invoice.paid", Kind: store.KindInvoice, ItemID: "inv_2"})
	eventually(t, "the second replica delivers once the first stopped", func() bool { n, _ := tl.count(); return n == 2 })
	_, dups := tl.count()
	is.Equal(dups, 0)
}
