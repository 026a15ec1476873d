package webhook_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/internal/test/eventfake"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/statusclient"
	"github.com/clientstatus/clientstatus/store"
	"github.com/clientstatus/clientstatus/webhook"
)

var testKey = mustDeriveKey("the portal's signing key, 32 bytes or more")

// attempts is an Observer that passes every attempt on.
type attempts chan webhook.Attempt

func (a attempts) Attempted(x webhook.Attempt) { a <- x }

func (a attempts) next(t *testing.T) webhook.Attempt {
	t.Helper()
	select {
	case x := <-a:
		return x
	case <-time.After(10 * time.Second):
		t.Fatal("no attempt within 10 s")
		return webhook.Attempt{}
	}
}

// fixture is a memory store with an organization, a fake event feed, a
// clock the test moves, and a dispatcher running on them.
type fixture struct {
	st       *watched
	ev       *eventfake.Events
	clk      *clock
	eps      *webhook.Endpoints
	attempts attempts
}

func newFixture(t *testing.T, opts ...webhook.Option) *fixture {
	t.Helper()
	f := &fixture{st: newWatched(), ev: eventfake.New(), clk: newClock(), attempts: make(attempts, 10000)}
	if err := f.st.PutOrganization(context.Background(), store.Organization{ID: "org_a", Name: "A", Plan: "starter"}); err != nil {
		t.Fatal(err)
	}
	opts = append([]webhook.Option{webhook.WithClock(f.clk.Now), webhook.WithPollInterval(2 * time.Millisecond),
		webhook.WithObserver(f.attempts), webhook.WithSchedule([]time.Duration{time.Minute, time.Hour})}, opts...)
	f.eps = webhook.NewEndpoints(f.st, f.ev, testKey, opts...)
	d := webhook.NewDispatcher(f.st, f.ev, testKey, opts...)
	d.Start(context.Background())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := d.Stop(ctx); err != nil {
			t.Error(err)
		}
	})
	return f
}

func (f *fixture) create(t *testing.T, s webhook.Settings) (store.WebhookEndpoint, string) {
	t.Helper()
	e, secret, err := f.eps.Create(context.Background(), "org_a", s)
	if err != nil {
		t.Fatal(err)
	}
	return e, secret
}

func invoicePaid(project string) store.Event {
	return store.Event{Type: "invoice.paid", Kind: store.KindInvoice, ItemID: "inv_1", ProjectID: project, PreviousStatus: "open"}
}

func TestDeliverSigned(t *testing.T) {
	is := is.New(t)
	f := newFixture(t, webhook.WithAllowLocal(true))
	rc := newReceiver(t)
	f.ev.Add("org_a", invoicePaid("p1")) // before the endpoint: not delivered
	e, secret := f.create(t, webhook.Settings{URL: rc.URL + "/hook"})
	is.True(e.Secret == nil) // the secret is never returned but once
	want := f.ev.Add("org_a", invoicePaid("p1"))

	r := rc.next(t)
	is.Equal(r.header.Get("webhook-id"), want.ID)
	ev, err := statusclient.VerifyWebhook(secret, r.header, r.body, f.clk.Now())
	is.NoErr(err) // signed with the endpoint's secret
	is.Equal(ev.ID, want.ID)
	is.Equal(ev.Type, "invoice.paid")
	is.Equal(*ev.Data.ProjectID, "p1")
	is.Equal(string(r.body), `{"id":"`+want.ID+`","type":"invoice.paid","createdAt":"2026-03-01T09:00:00Z","data":{"object":"invoice","id":"inv_1","projectId":"p1","previousStatus":"open"}}`)
	is.Equal(r.header.Get("Content-Type"), "application/json")

	a := f.attempts.next(t)
	is.Equal(a.Error, "") // a success
	is.Equal(a.StatusCode, 204)
	p, err := f.st.ListWebhookDeliveries(context.Background(), "org_a", e.ID, store.WebhookDeliveryQuery{PageRequest: store.PageRequest{Page: 1, Limit: 10}})
	is.NoErr(err)
	is.Equal(p.Total, 1)
	is.Equal(p.Items[0].EventID, want.ID)
	is.Equal(p.Items[0].Attempt, 1)
	is.Equal(p.Items[0].StatusCode, 204)
}

func TestRefusedWithoutAllowLocal(t *testing.T) {
	is := is.New(t)
	// Endpoints are created with http allowed; the dispatcher refuses
	// the loopback address all the same.
	f := newFixture(t)
	rc := newReceiver(t)
	eps := webhook.NewEndpoints(f.st, f.ev, testKey, webhook.WithAllowLocal(true))
	_, _, err := eps.Create(context.Background(), "org_a", webhook.Settings{URL: strings.Replace(rc.URL, "http:", "https:", 1)})
	is.NoErr(err)
	f.ev.Add("org_a", invoicePaid("p1"))
	a := f.attempts.next(t)
	is.Equal(a.Error, webhook.ErrorRefusedAddress) // 127.0.0.1 is not public
	is.Equal(a.StatusCode, 0)
	select {
	case <-rc.got:
		t.Fatal("the receiver on 127.0.0.1 got a request")
	default:
	}
	_, _, err = f.eps.Create(context.Background(), "org_a", webhook.Settings{URL: rc.URL})
	is.True(errors.Is(err, webhook.ErrInvalid)) // http is refused without allow-local
}

func TestRetries(t *testing.T) {
	is := is.New(t)
	f := newFixture(t, webhook.WithAllowLocal(true))
	rc := newReceiver(t)
	fails := 2
	rc.setAnswer(func(*http.Request) int {
		if fails > 0 {
			fails--
			return 503
		}
		return 200
	})
	e, _ := f.create(t, webhook.Settings{URL: rc.URL})
	want := f.ev.Add("org_a", invoicePaid("p1"))
	first := rc.next(t)
	is.Equal(f.attempts.next(t).Error, "status")
	f.clk.Add(45 * time.Second) // before the first delay (1 min, less 20% at most)
	rc.none(t, f)
	f.clk.Add(30 * time.Second) // past it
	second := rc.next(t)
	is.Equal(f.attempts.next(t).Number, 2)
	f.clk.Add(time.Hour + 15*time.Minute)
	third := rc.next(t)
	a := f.attempts.next(t)
	is.Equal(a.Number, 3)
	is.Equal(a.Error, "") // the third attempt succeeds
	for _, r := range []request{first, second, third} {
		is.Equal(r.header.Get("webhook-id"), want.ID) // the same id on every attempt
	}
	is.True(first.header.Get("webhook-timestamp") != second.header.Get("webhook-timestamp")) // each attempt's own time
	p, err := f.st.ListWebhookDeliveries(context.Background(), "org_a", e.ID, store.WebhookDeliveryQuery{PageRequest: store.PageRequest{Page: 1, Limit: 10}})
	is.NoErr(err)
	is.Equal(p.Total, 3)
	is.Equal(p.Items[0].Attempt, 3) // newest first
	is.Equal(p.Items[2].StatusCode, 503)
}

// TestTimeout: an answer later than the attempt's timeout
// (DeliveryTimeout, 15 s, unless WithTimeout) is a failure of kind
// "timeout", logged and retried as any other.
func TestTimeout(t *testing.T) {
	is := is.New(t)
	f := newFixture(t, webhook.WithAllowLocal(true), webhook.WithTimeout(50*time.Millisecond))
	rc := newReceiver(t)
	rc.setAnswer(func(r *http.Request) int {
		<-r.Context().Done() // answers only once the sender gave up
		return 204
	})
	e, _ := f.create(t, webhook.Settings{URL: rc.URL})
	f.ev.Add("org_a", invoicePaid("p1"))
	a := f.attempts.next(t)
	is.Equal(a.Error, webhook.ErrorTimeout) // too late is a failure
	is.Equal(a.StatusCode, 0)               // with no status
	p, err := f.st.ListWebhookDeliveries(context.Background(), "org_a", e.ID, store.WebhookDeliveryQuery{PageRequest: store.PageRequest{Page: 1, Limit: 10}})
	is.NoErr(err)
	is.Equal(p.Items[0].Error, webhook.ErrorTimeout) // as the log shows it
	rc.setAnswer(func(*http.Request) int { return 204 })
	f.clk.Add(2 * time.Minute) // past the first delay
	a = f.attempts.next(t)
	is.Equal(a.Number, 2)
	is.Equal(a.Error, "") // retried, and delivered
}

func TestGoneDisables(t *testing.T) {
	is := is.New(t)
	f := newFixture(t, webhook.WithAllowLocal(true))
	rc := newReceiver(t)
	rc.setAnswer(func(*http.Request) int { return http.StatusGone })
	e, _ := f.create(t, webhook.Settings{URL: rc.URL})
	f.ev.Add("org_a", invoicePaid("p1"))
	rc.next(t)
	f.attempts.next(t)
	got, err := f.eps.Get(context.Background(), "org_a", e.ID)
	is.NoErr(err)
	is.True(!got.Enabled)
	is.Equal(got.DisabledReason, webhook.ReasonGone)
}

func TestRedirectNotFollowed(t *testing.T) {
	is := is.New(t)
	f := newFixture(t, webhook.WithAllowLocal(true))
	rc := newReceiver(t)
	rc.setAnswer(func(r *http.Request) int {
		if r.URL.Path == "/elsewhere" {
			return 200
		}
		return http.StatusFound
	})
	f.create(t, webhook.Settings{URL: rc.URL})
	f.ev.Add("org_a", invoicePaid("p1"))
	rc.next(t)
	a := f.attempts.next(t)
	is.Equal(a.Error, webhook.ErrorRedirect)
	is.Equal(a.StatusCode, 302)
	rc.none(t, f) // /elsewhere is never asked
}

func TestMatching(t *testing.T) {
	is := is.New(t)
	f := newFixture(t, webhook.WithAllowLocal(true))
	rc := newReceiver(t)
	f.create(t, webhook.Settings{URL: rc.URL, Types: []string{"invoice.paid", "deliverable.created"},
		Restriction: auth.Restriction{Scopes: []auth.Scope{auth.ScopeInvoices}, ProjectIDs: []string{"p1"}}})
	f.ev.Add("org_a", invoicePaid("p2"))                                                                                   // another project
	f.ev.Add("org_a", invoicePaid(""))                                                                                     // no project
	f.ev.Add("org_a", store.Event{Type: "invoice.created", Kind: store.KindInvoice, ItemID: "i", ProjectID: "p1"})         // another type
	f.ev.Add("org_a", store.Event{Type: "deliverable.created", Kind: store.KindDeliverable, ItemID: "d", ProjectID: "p1"}) // outside the scopes
	want := f.ev.Add("org_a", invoicePaid("p1"))
	r := rc.next(t)
	is.Equal(r.header.Get("webhook-id"), want.ID) // only the event the endpoint may see
	rc.none(t, f)
}

func TestRotation(t *testing.T) {
	is := is.New(t)
	f := newFixture(t, webhook.WithAllowLocal(true))
	rc := newReceiver(t)
	e, old := f.create(t, webhook.Settings{URL: rc.URL})
	secret, err := f.eps.RotateSecret(context.Background(), "org_a", e.ID)
	is.NoErr(err)
	is.True(secret != old)
	f.ev.Add("org_a", invoicePaid("p1"))
	r := rc.next(t)
	is.Equal(len(strings.Fields(r.header.Get("webhook-signature"))), 2) // both, during the overlap
	_, err = statusclient.VerifyWebhook(secret, r.header, r.body, f.clk.Now())
	is.NoErr(err) // the new secret verifies
	_, err = statusclient.VerifyWebhook(old, r.header, r.body, f.clk.Now())
	is.NoErr(err) // and so does the old one, for 24 hours

	f.clk.Add(webhook.RotationOverlap)
	f.ev.Add("org_a", invoicePaid("p1"))
	r = rc.next(t)
	is.Equal(len(strings.Fields(r.header.Get("webhook-signature"))), 1) // the old one no longer signs
	_, err = statusclient.VerifyWebhook(old, r.header, r.body, f.clk.Now())
	is.True(errors.Is(err, statusclient.ErrWebhookSignature))
}

// TestRotateSecretTo: a secret the portal gives (a data file's) rotates
// as a random one does, both signing during the overlap; the same secret
// again changes nothing, and one that is not a secret is refused.
func TestRotateSecretTo(t *testing.T) {
	is := is.New(t)
	f := newFixture(t, webhook.WithAllowLocal(true))
	rc := newReceiver(t)
	e, old := f.create(t, webhook.Settings{URL: rc.URL})
	ctx := context.Background()
	rotated, err := f.eps.RotateSecretTo(ctx, "org_a", e.ID, old)
	is.NoErr(err)
	is.True(!rotated) // its own secret: nothing to rotate
	given := webhook.NewSecret()
	rotated, err = f.eps.RotateSecretTo(ctx, "org_a", e.ID, given)
	is.NoErr(err)
	is.True(rotated) // a new secret
	rotated, err = f.eps.RotateSecretTo(ctx, "org_a", e.ID, given)
	is.NoErr(err)
	is.True(!rotated) // given twice (a file reloaded): one rotation, the old secret still signing
	_, err = f.eps.RotateSecretTo(ctx, "org_a", e.ID, "hunter2")
	is.True(errors.Is(err, webhook.ErrInvalid)) // not a secret
	_, err = f.eps.RotateSecretTo(ctx, "org_a", "we_none", given)
	is.True(errors.Is(err, store.ErrNotFound)) // no such endpoint

	f.ev.Add("org_a", invoicePaid("p1"))
	r := rc.next(t)
	_, err = statusclient.VerifyWebhook(given, r.header, r.body, f.clk.Now())
	is.NoErr(err) // the given secret signs
	_, err = statusclient.VerifyWebhook(old, r.header, r.body, f.clk.Now())
	is.NoErr(err) // and the one before, during the overlap
}

func TestRedeliver(t *testing.T) {
	is := is.New(t)
	f := newFixture(t, webhook.WithAllowLocal(true))
	rc := newReceiver(t)
	e, _ := f.create(t, webhook.Settings{URL: rc.URL})
	want := f.ev.Add("org_a", invoicePaid("p1"))
	rc.next(t)
	f.attempts.next(t)
	is.NoErr(f.eps.Redeliver(context.Background(), "org_a", e.ID, want.ID))
	r := rc.next(t)
	is.Equal(r.header.Get("webhook-id"), want.ID)
	is.Equal(f.attempts.next(t).Number, 2)
	err := f.eps.Redeliver(context.Background(), "org_a", e.ID, "evt_unknown")
	is.True(errors.Is(err, store.ErrNotFound))
}

func TestEndpointsAPI(t *testing.T) {
	is := is.New(t)
	f := newFixture(t)
	ctx := context.Background()
	e, secret := f.create(t, webhook.Settings{ID: "we_1", URL: "https://hooks.example.com/a"})
	is.True(strings.HasPrefix(secret, "whsec_"))
	is.Equal(e.Types, []string{"*"}) // all by default
	is.True(e.Enabled)
	_, _, err := f.eps.Create(ctx, "org_a", webhook.Settings{ID: "we_1", URL: "https://hooks.example.com/b"})
	is.True(errors.Is(err, store.ErrConflict)) // the id is taken
	_, _, err = f.eps.Create(ctx, "org_zz", webhook.Settings{URL: "https://hooks.example.com/b"})
	is.True(errors.Is(err, store.ErrNotFound)) // no such organization
	for _, bad := range []webhook.Settings{
		{URL: "ftp://x"}, {URL: "https://u:p@x.example.com"}, {URL: "/relative"},
		{URL: "https://x.example.com", Types: []string{}}, {URL: "https://x.example.com", Types: []string{"*", "invoice.paid"}},
		{URL: "https://x.example.com", Types: []string{"nope.paid"}}, {URL: "https://x.example.com", Secret: "whsec_short"},
		{URL: "https://x.example.com", Restriction: auth.Restriction{Scopes: []auth.Scope{"bad:read"}}},
	} {
		_, _, err := f.eps.Create(ctx, "org_a", bad)
		is.True(errors.Is(err, webhook.ErrInvalid)) // refused
		is.True(errors.Is(err, store.ErrInvalid))   // as the store's invalid input
	}
	off := false
	u, err := f.eps.Update(ctx, "org_a", "we_1", webhook.Update{Enabled: &off, Types: []string{"invoice.paid"}})
	is.NoErr(err)
	is.True(!u.Enabled)
	is.Equal(u.DisabledReason, webhook.ReasonDisabled)
	is.Equal(u.Types, []string{"invoice.paid"})
	on := true
	u, err = f.eps.Update(ctx, "org_a", "we_1", webhook.Update{Enabled: &on})
	is.NoErr(err)
	is.True(u.Enabled)
	is.Equal(u.DisabledReason, "")
	p, err := f.eps.List(ctx, "org_a", store.PageRequest{Page: 1, Limit: 10})
	is.NoErr(err)
	is.Equal(p.Total, 1)
	is.True(p.Items[0].Secret == nil)
	is.NoErr(f.eps.Delete(ctx, "org_a", "we_1"))
	_, err = f.eps.Get(ctx, "org_a", "we_1")
	is.True(errors.Is(err, store.ErrNotFound))
}

// TestReceiverDownThenBack: a receiver down for a while (503, then no
// answer at all) gets every event once it is back, on the schedule.
func TestReceiverDownThenBack(t *testing.T) {
	is := is.New(t)
	f := newFixture(t, webhook.WithAllowLocal(true))
	rc := newReceiver(t)
	down := true
	rc.setAnswer(func(*http.Request) int {
		if down {
			return 503
		}
		return 200
	})
	f.create(t, webhook.Settings{URL: rc.URL})
	const events = 20
	want := map[string]bool{}
	for range events {
		want[f.ev.Add("org_a", invoicePaid("p1")).ID] = true
	}
	for range events { // the first attempts fail
		rc.next(t)
		is.Equal(f.attempts.next(t).Error, "status")
	}
	f.clk.Add(2 * time.Minute) // the second attempts, still down
	for range events {
		rc.next(t)
		f.attempts.next(t)
	}
	rc.setAnswer(func(*http.Request) int { return 200 })
	f.clk.Add(2 * time.Hour) // back: the third attempts succeed
	got := map[string]bool{}
	for range events {
		r := rc.next(t)
		got[r.header.Get("webhook-id")] = true
		is.Equal(f.attempts.next(t).Error, "")
	}
	is.Equal(got, want) // every event arrived
	f.clk.Add(24 * time.Hour)
	rc.none(t, f) // and none again
}

// TestDisabledAfterFiveDays: an endpoint failing for DisableAfter is
// disabled.
func TestDisabledAfterFiveDays(t *testing.T) {
	is := is.New(t)
	f := newFixture(t, webhook.WithAllowLocal(true), webhook.WithSchedule([]time.Duration{24 * time.Hour, 24 * time.Hour, 24 * time.Hour, 24 * time.Hour, 24 * time.Hour, 24 * time.Hour}))
	rc := newReceiver(t)
	rc.setAnswer(func(*http.Request) int { return 500 })
	e, _ := f.create(t, webhook.Settings{URL: rc.URL})
	f.ev.Add("org_a", invoicePaid("p1"))
	for range 5 { // at 0, 30, 60, 90 and 120 hours: 5 days
		rc.next(t)
		f.attempts.next(t)
		f.clk.Add(30 * time.Hour)
	}
	got, err := f.eps.Get(context.Background(), "org_a", e.ID)
	is.NoErr(err)
	is.True(!got.Enabled)
	is.Equal(got.DisabledReason, webhook.ReasonFailing)
	rc.none(t, f) // no sixth attempt
}

// TestRetryAfter: a Retry-After longer than the scheduled delay is
// honoured.
func TestRetryAfter(t *testing.T) {
	is := is.New(t)
	f := newFixture(t, webhook.WithAllowLocal(true), webhook.WithSchedule([]time.Duration{time.Second, 10 * time.Minute}))
	rc := newReceiver(t)
	first := true
	rc.setAnswer(func(r *http.Request) int {
		if first {
			first = false
			return 429
		}
		return 200
	})
	rc.Config.Handler = retryAfter(rc.Config.Handler)
	f.create(t, webhook.Settings{URL: rc.URL})
	f.ev.Add("org_a", invoicePaid("p1"))
	rc.next(t)
	f.attempts.next(t)
	f.clk.Add(30 * time.Second) // past the schedule's 1 s, before Retry-After's 60 s
	rc.none(t, f)
	f.clk.Add(31 * time.Second)
	rc.next(t)
	is.Equal(f.attempts.next(t).Error, "")
}

func retryAfter(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "60")
		h.ServeHTTP(w, r)
	})
}

// TestStop: a stop waits for the attempt in flight, and one whose grace
// runs out abandons it unrecorded, for another replica once its claim
// expires.
func TestStop(t *testing.T) {
	for _, graceful := range []bool{true, false} {
		t.Run(fmt.Sprint("graceful=", graceful), func(t *testing.T) {
			is := is.New(t)
			st := memstore.New()
			is.NoErr(st.PutOrganization(context.Background(), store.Organization{ID: "org_a", Name: "A", Plan: "starter"}))
			ev := eventfake.New()
			rc := newReceiver(t)
			arrived, release := make(chan struct{}), make(chan struct{})
			rc.setAnswer(func(*http.Request) int {
				close(arrived)
				<-release
				return 200
			})
			obs := make(attempts, 10)
			opts := []webhook.Option{webhook.WithAllowLocal(true), webhook.WithObserver(obs), webhook.WithPollInterval(2 * time.Millisecond)}
			e, _, err := webhook.NewEndpoints(st, ev, testKey, opts...).Create(context.Background(), "org_a", webhook.Settings{URL: rc.URL})
			is.NoErr(err)
			d := webhook.NewDispatcher(st, ev, testKey, opts...)
			d.Start(context.Background())
			ev.Add("org_a", invoicePaid("p1"))
			<-arrived
			ctx, cancel := context.WithCancel(context.Background())
			stopped := make(chan error)
			go func() { stopped <- d.Stop(ctx) }()
			if graceful {
				close(release)
				is.NoErr(<-stopped) // it waited for the attempt
				is.Equal(obs.next(t).Error, "")
			} else {
				cancel()
				is.True(errors.Is(<-stopped, context.Canceled)) // the grace ran out
				close(release)
			}
			cancel()
			p, err := st.ListWebhookDeliveries(context.Background(), "org_a", e.ID, store.WebhookDeliveryQuery{PageRequest: store.PageRequest{Page: 1, Limit: 10}})
			is.NoErr(err)
			if graceful {
				is.Equal(p.Total, 1) // recorded
			} else {
				is.Equal(p.Total, 0) // abandoned, unrecorded: the claim expires and it is made again
			}
		})
	}
}

// TestIdleDispatcherClaimsSeldom: with nothing due, a dispatcher claims
// on one poll in five, not on each; an event it is woken for is still
// delivered at once, and so is its own retry once due.
func TestIdleDispatcherClaimsSeldom(t *testing.T) {
	is := is.New(t)
	f := newFixture(t, webhook.WithAllowLocal(true))
	rc := newReceiver(t)
	rc.setAnswer(func(*http.Request) int { return 500 })
	f.create(t, webhook.Settings{URL: rc.URL})
	f.st.idle(t)
	p0, c0 := f.st.counts()
	deadline := time.After(10 * time.Second)
	for p, _ := f.st.counts(); p < p0+50; p, _ = f.st.counts() {
		select {
		case <-deadline:
			t.Fatal("the dispatcher did not poll 50 times within 10 s")
		case <-time.After(time.Millisecond):
		}
	}
	p1, c1 := f.st.counts()
	is.True(c1-c0 <= (p1-p0)/5+2) // one claim in five idle polls

	f.ev.Add("org_a", invoicePaid(""))
	is.Equal(f.attempts.next(t).Number, 1) // woken: claimed at once, and failed
	f.clk.Add(75 * time.Second)            // past the first delay (1 min, 20% more at most)
	is.Equal(f.attempts.next(t).Number, 2) // its retry, claimed once due
}
