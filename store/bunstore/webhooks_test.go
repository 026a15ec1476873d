package bunstore_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/internal/eventfake"
	"github.com/clientstatus/clientstatus/store"
	"github.com/clientstatus/clientstatus/store/bunstore"
	"github.com/clientstatus/clientstatus/webhook"
)

var webhookKey = webhook.DeriveKey([]byte("test signing key"))

// replicas opens n pools on one fresh, migrated schema: the stores of n
// replicas of a portal.
func replicas(t *testing.T, n int) []*bunstore.Store {
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
	defer db.Close()
	if err := bunstore.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	if err := out[0].PutOrganization(ctx, store.Organization{ID: "org_a", Name: "A", Plan: store.PlanStarter}); err != nil {
		t.Fatal(err)
	}
	return out
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
// endpoint (by path), and signals when every one of want has come.
type tally struct {
	mu   sync.Mutex
	got  map[string]int
	want int
	done chan struct{}
	down bool
	// gate, when not nil, holds every request until it is closed (a
	// slow receiver: attempts in flight when a replica dies); held
	// counts the requests it has held, and arrived is closed and
	// replaced at each.
	gate    chan struct{}
	held    int
	arrived chan struct{}
}

func newTally(t *testing.T, want int) (*tally, *httptest.Server) {
	tl := &tally{got: map[string]int{}, want: want, done: make(chan struct{}), arrived: make(chan struct{})}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		tl.mu.Lock()
		down, gate := tl.down, tl.gate
		if gate != nil {
			tl.held++
			close(tl.arrived)
			tl.arrived = make(chan struct{})
		}
		tl.mu.Unlock()
		if down {
			w.WriteHeader(503)
			return
		}
		if gate != nil {
			select {
			case <-gate:
			case <-r.Context().Done(): // the sender gave up: not delivered
				return
			}
		}
		tl.mu.Lock()
		k := r.URL.Path + " " + r.Header.Get("webhook-id")
		tl.got[k]++
		if len(tl.got) == tl.want {
			select {
			case <-tl.done:
			default:
				close(tl.done)
			}
		}
		tl.mu.Unlock()
		w.WriteHeader(204)
	}))
	t.Cleanup(srv.Close)
	return tl, srv
}

// hold makes the receiver hold every request until release.
func (tl *tally) hold() {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	tl.gate = make(chan struct{})
}

// release lets the held requests, and those to come, through.
func (tl *tally) release() {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	close(tl.gate)
	tl.gate = nil
}

// waitHeld waits until the receiver has held n requests, failing the test
// after 10 s.
func (tl *tally) waitHeld(t *testing.T, n int) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		tl.mu.Lock()
		held, arrived := tl.held, tl.arrived
		tl.mu.Unlock()
		if held >= n {
			return
		}
		select {
		case <-arrived:
		case <-timeout:
			t.Fatalf("the receiver held %d requests within 10 s, want %d", held, n)
		}
	}
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

func (tl *tally) wait(t *testing.T, d time.Duration) {
	t.Helper()
	select {
	case <-tl.done:
	case <-time.After(d):
		distinct, _ := tl.count()
		t.Fatalf("%d of %d deliveries after %v", distinct, tl.want, d)
	}
}

// TestWebhookReplicas runs two dispatchers on two stores of one schema:
// 1,000 events to 3 endpoints arrive each exactly once; and again with one
// dispatcher stopped abruptly in the middle, its claims left to expire:
// none lost.
func TestWebhookReplicas(t *testing.T) {
	for _, kill := range []bool{false, true} {
		t.Run(fmt.Sprintf("kill=%v", kill), func(t *testing.T) {
			is := is.New(t)
			sts := replicas(t, 2)
			ev := eventfake.New()
			const events, endpoints = 1000, 3
			tl, srv := newTally(t, events*endpoints)
			if kill {
				tl.hold()
			}
			eps := webhook.NewEndpoints(sts[0], ev, webhookKey, webhook.WithAllowLocal(true))
			for i := range endpoints {
				_, _, err := eps.Create(ctx, "org_a", webhook.Settings{URL: fmt.Sprintf("%s/e%d", srv.URL, i)})
				is.NoErr(err)
			}
			opts := []webhook.Option{webhook.WithAllowLocal(true), webhook.WithPollInterval(20 * time.Millisecond),
				webhook.WithClaimExpiry(5 * time.Second), webhook.WithTimeout(10 * time.Second)}
			var ds []*webhook.Dispatcher
			for _, st := range sts {
				d := webhook.NewDispatcher(st, ev, webhookKey, opts...)
				d.Start(ctx)
				ds = append(ds, d)
			}
			start := time.Now()
			for i := range events {
				ev.Add("org_a", store.Event{Type: "invoice.paid", Kind: store.KindInvoice, ItemID: fmt.Sprint("inv_", i)})
				if kill && i == events/2 {
					// A replica dies with attempts in flight: more
					// requests are held than one replica makes at once
					// (16), so both have some. Nothing of its own is
					// finished, its claims stay until they expire.
					tl.waitHeld(t, 17)
					dead, cancel := context.WithCancel(ctx)
					cancel()
					ds[0].Stop(dead)
					tl.release()
				}
			}
			tl.wait(t, 60*time.Second)
			took := time.Since(start)
			for _, d := range ds {
				is.NoErr(d.Stop(ctx))
			}
			distinct, dups := tl.count()
			t.Logf("kill=%v: %d deliveries of %d events to %d endpoints by 2 replicas in %v; %d duplicates, %d lost",
				kill, distinct, events, endpoints, took.Round(time.Millisecond), dups, events*endpoints-distinct)
			is.Equal(distinct, events*endpoints) // none lost
			if !kill {
				is.Equal(dups, 0) // each event reaches each endpoint once
			}
		})
	}
}
