package webhooktest

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/internal/test/eventfake"
	"github.com/clientstatus/clientstatus/internal/test/testenv"
	"github.com/clientstatus/clientstatus/statusclient"
	"github.com/clientstatus/clientstatus/store"
	"github.com/clientstatus/clientstatus/webhook"
)

// portal is a store with two organizations (org_a, org_b), endpoints and
// a dispatcher on it (events from a fake feed), a clock the test moves,
// and a loopback receiver that passes each request on by path.
type portal struct {
	st   Subject
	ev   *eventfake.Events
	clk  *testenv.Clock
	eps  *webhook.Endpoints
	got  chan received
	url  string
	done chan webhook.Attempt
}

// ctx is the context of the cases' calls.
var ctx = context.Background()

// signingKey is the key the dispatchers of the cases sign with.
func signingKey(t testing.TB) []byte {
	t.Helper()
	key, err := webhook.DeriveKey([]byte("webhooktest: the portal's signing key, 32+ bytes"))
	if err != nil {
		t.Fatal(err)
	}
	return key
}

type received struct {
	path   string
	header http.Header
	body   []byte
}

type observer chan webhook.Attempt

func (o observer) Attempted(a webhook.Attempt) { o <- a }

func newPortal(t *testing.T, st Subject) *portal {
	t.Helper()
	for _, org := range []string{"org_a", "org_b"} {
		if err := st.PutOrganization(ctx, store.Organization{ID: org, Name: org, Plan: store.PlanStarter}); err != nil {
			t.Fatal(err)
		}
	}
	p := &portal{st: st, ev: eventfake.New(), clk: testenv.NewClock(time.Now().UTC().Truncate(time.Second)),
		got: make(chan received, 100), done: make(chan webhook.Attempt, 100)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		p.got <- received{r.URL.Path, r.Header.Clone(), body}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	p.url = srv.URL
	key := signingKey(t)
	opts := []webhook.Option{webhook.WithAllowLocal(true), webhook.WithClock(p.clk.Now),
		webhook.WithPollInterval(10 * time.Millisecond), webhook.WithObserver(observer(p.done))}
	p.eps = webhook.NewEndpoints(st, p.ev, key, opts...)
	d := webhook.NewDispatcher(st, p.ev, key, opts...)
	d.Start(ctx)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := d.Stop(ctx); err != nil {
			t.Error(err)
		}
	})
	return p
}

func (p *portal) create(t *testing.T, path string) (store.WebhookEndpoint, string) {
	t.Helper()
	e, secret, err := p.eps.Create(ctx, "org_a", webhook.Settings{URL: p.url + path})
	if err != nil {
		t.Fatal(err)
	}
	return e, secret
}

// within returns the next value of ch (p.got, the requests the receiver
// got; p.done, the attempts the dispatcher recorded), failing after 10 s
// without one.
func within[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("no %s within 10 s", what)
		var zero T
		return zero
	}
}

// Portal runs the cases of what a portal's settings pages do with an
// endpoint (a test event, its deliveries, revealing and rotating its
// secret, disabling and enabling it) on a fresh store of open's each.
// The webhook package runs it on memstore.Store, bunstore on
// PostgreSQL.
func Portal(t *testing.T, open func(t *testing.T) Subject) {
	for _, c := range []struct {
		name string
		run  func(t *testing.T, p *portal)
	}{
		{"SendTest", testSendTest},
		{"OtherOrganization", testOtherOrganization},
		{"DisableEnable", testDisableEnable},
		{"RevealAndRotate", testRevealAndRotate},
	} {
		t.Run(c.name, func(t *testing.T) { c.run(t, newPortal(t, open(t))) })
	}
}

// testSendTest: a test event reaches its endpoint only, signed, within
// the dispatcher's poll; it is recorded in the endpoint's deliveries and
// is no event of the organization.
func testSendTest(t *testing.T, p *portal) {
	is := is.New(t)
	e, secret := p.create(t, "/a")
	other, _ := p.create(t, "/b")
	id, err := p.eps.SendTest(ctx, "org_a", e.ID)
	is.NoErr(err)
	is.True(strings.HasPrefix(id, "evt_test_"))
	r := within(t, p.got, "delivery")
	is.Equal(r.path, "/a") // to that endpoint
	ev, err := statusclient.VerifyWebhook(secret, r.header, r.body, p.clk.Now())
	is.NoErr(err) // signed as any delivery
	is.Equal(ev.ID, id)
	is.Equal(ev.Type, webhook.TestEventType)
	is.Equal(string(ev.Data.Object), "webhook_endpoint")
	is.Equal(ev.Data.ID, e.ID)
	a := within(t, p.done, "attempt")
	is.Equal(a.EventType, webhook.TestEventType)
	log, err := p.eps.Deliveries(ctx, "org_a", e.ID, store.WebhookDeliveryQuery{PageRequest: store.PageRequest{Page: 1, Limit: 10}})
	is.NoErr(err)
	is.Equal(log.Total, 1) // recorded like any attempt
	is.Equal(log.Items[0].EventID, id)
	is.Equal(log.Items[0].EventType, webhook.TestEventType)
	is.Equal(log.Items[0].StatusCode, http.StatusNoContent)
	log, err = p.eps.Deliveries(ctx, "org_a", other.ID, store.WebhookDeliveryQuery{PageRequest: store.PageRequest{Page: 1, Limit: 10}})
	is.NoErr(err)
	is.Equal(log.Total, 0) // not on another endpoint
	evs, err := p.st.ListEvents(ctx, "org_a", store.EventQuery{Limit: store.MaxLimit})
	is.NoErr(err)
	is.Equal(len(evs.Events), 0) // nor among the organization's events
	is.NoErr(p.eps.Redeliver(ctx, "org_a", e.ID, id))
	is.Equal(within(t, p.got, "delivery").header.Get(webhook.HeaderID), id) // and sent again on demand
	is.Equal(within(t, p.done, "attempt").Number, 2)
	select {
	case r := <-p.got:
		t.Fatalf("unexpected delivery to %s", r.path)
	default:
	}
}

// testOtherOrganization: another organization's endpoint is not found by
// SendTest, Deliveries or RevealSecret, and gets no test.
func testOtherOrganization(t *testing.T, p *portal) {
	is := is.New(t)
	e, _ := p.create(t, "/a")
	_, err := p.eps.SendTest(ctx, "org_b", e.ID)
	is.True(errors.Is(err, store.ErrNotFound))
	_, err = p.eps.Deliveries(ctx, "org_b", e.ID, store.WebhookDeliveryQuery{PageRequest: store.PageRequest{Page: 1, Limit: 10}})
	is.True(errors.Is(err, store.ErrNotFound))
	secret, err := p.eps.RevealSecret(ctx, "org_b", e.ID)
	is.True(errors.Is(err, store.ErrNotFound))
	is.Equal(secret, "")
	_, err = p.eps.SendTest(ctx, "org_a", "we_none")
	is.True(errors.Is(err, store.ErrNotFound))
}

// testDisableEnable: a disabled endpoint gets neither events nor a test
// (ErrDisabled); enabled again, it gets the next events.
func testDisableEnable(t *testing.T, p *portal) {
	is := is.New(t)
	e, _ := p.create(t, "/a")
	p.create(t, "/witness") // stays enabled: its delivery shows the event was dispatched
	off, on := false, true
	u, err := p.eps.Update(ctx, "org_a", e.ID, webhook.Update{Enabled: &off})
	is.NoErr(err)
	is.True(!u.Enabled)
	_, err = p.eps.SendTest(ctx, "org_a", e.ID)
	is.True(errors.Is(err, webhook.ErrDisabled))
	is.True(errors.Is(err, store.ErrConflict))
	missed := p.ev.Add("org_a", store.Event{Type: "invoice.paid", Kind: store.KindInvoice, ItemID: "inv_1"})
	r := within(t, p.got, "delivery")
	is.Equal(r.path, "/witness") // the witness got it; the disabled endpoint did not
	is.Equal(r.header.Get(webhook.HeaderID), missed.ID)
	within(t, p.done, "attempt")
	log, err := p.eps.Deliveries(ctx, "org_a", e.ID, store.WebhookDeliveryQuery{PageRequest: store.PageRequest{Page: 1, Limit: 10}})
	is.NoErr(err)
	is.Equal(log.Total, 0) // no attempt while disabled

	u, err = p.eps.Update(ctx, "org_a", e.ID, webhook.Update{Enabled: &on})
	is.NoErr(err)
	is.True(u.Enabled)
	next := p.ev.Add("org_a", store.Event{Type: "invoice.paid", Kind: store.KindInvoice, ItemID: "inv_2"})
	// The endpoint gets the next event (and may get the one it missed,
	// which the contract allows); the witness gets the next one too.
	var gotNext, witnessNext bool
	for !gotNext || !witnessNext {
		r := within(t, p.got, "delivery")
		switch {
		case r.path == "/a" && r.header.Get(webhook.HeaderID) == next.ID:
			gotNext = true
		case r.path == "/witness":
			is.Equal(r.header.Get(webhook.HeaderID), next.ID)
			witnessNext = true
		default:
			is.Equal(r.header.Get(webhook.HeaderID), missed.ID) // nothing else
		}
	}
	_, err = p.eps.SendTest(ctx, "org_a", e.ID)
	is.NoErr(err) // enabled, it takes a test again
}

// testRevealAndRotate: RevealSecret shows the current secret; after
// RotateSecret both secrets sign for RotationOverlap, then only the new.
func testRevealAndRotate(t *testing.T, p *portal) {
	is := is.New(t)
	e, old := p.create(t, "/a")
	got, err := p.eps.RevealSecret(ctx, "org_a", e.ID)
	is.NoErr(err)
	is.Equal(got, old)
	secret, err := p.eps.RotateSecret(ctx, "org_a", e.ID)
	is.NoErr(err)
	got, err = p.eps.RevealSecret(ctx, "org_a", e.ID)
	is.NoErr(err)
	is.Equal(got, secret) // the new secret once rotated
	_, err = p.eps.SendTest(ctx, "org_a", e.ID)
	is.NoErr(err)
	r := within(t, p.got, "delivery")
	for _, s := range []string{old, secret} {
		_, err = statusclient.VerifyWebhook(s, r.header, r.body, p.clk.Now())
		is.NoErr(err) // both sign during the overlap
	}
	within(t, p.done, "attempt")
	p.clk.Advance(webhook.RotationOverlap - time.Second)
	_, err = p.eps.SendTest(ctx, "org_a", e.ID)
	is.NoErr(err)
	r = within(t, p.got, "delivery")
	_, err = statusclient.VerifyWebhook(old, r.header, r.body, p.clk.Now())
	is.NoErr(err) // still, a second before the overlap ends
	within(t, p.done, "attempt")
	p.clk.Advance(time.Second)
	_, err = p.eps.SendTest(ctx, "org_a", e.ID)
	is.NoErr(err)
	r = within(t, p.got, "delivery")
	_, err = statusclient.VerifyWebhook(secret, r.header, r.body, p.clk.Now())
	is.NoErr(err)
	_, err = statusclient.VerifyWebhook(old, r.header, r.body, p.clk.Now())
	is.True(errors.Is(err, statusclient.ErrWebhookSignature)) // the old one no longer signs
}
