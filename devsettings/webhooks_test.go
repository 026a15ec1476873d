package devsettings_test

import (
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/store"
)

// secretField finds a revealed or rotated signing secret.
var secretField = regexp.MustCompile(`<input id="signing-secret" type="text" readonly value="(whsec_[^"]+)"`)

func TestAddEndpoint(t *testing.T) {
	is := is.New(t)
	f := newFixture(t)
	res := f.post(adminA, "/webhooks", url.Values{"url": {"http://127.0.0.1:9/hook"}, "type": {"invoice.paid", "project.created"}})
	is.Equal(res.Code, http.StatusSeeOther)
	loc := res.Header().Get("Location")
	is.True(strings.HasPrefix(loc, "/webhooks/we_")) // to the endpoint's page
	is.True(!strings.Contains(loc, "whsec_"))        // with no secret in the URL
	page := f.get(adminA, loc)
	is.Equal(page.Code, 200)
	body := page.Body.String()
	is.True(strings.Contains(body, "invoice.paid, project.created")) // its types
	is.True(!strings.Contains(body, "whsec_"))                       // the secret only on asking
	for _, b := range []string{"Reveal secret", "Rotate secret", "Disable", "Send test event"} {
		is.True(strings.Contains(body, ">"+b+"</button>")) // the contract's buttons
	}
	is.True(strings.Contains(body, `<h2 id="deliveries-heading">Deliveries</h2>`))
	list := f.get(adminA, "/webhooks").Body.String()
	path, _, _ := strings.Cut(loc, "?")
	is.True(strings.Contains(list, `<a href="`+path+`">http://127.0.0.1:9/hook</a>`)) // the row links by its URL
	is.Equal(f.changed()[0].Action, "webhook_endpoint.created")

	all := f.post(adminA, "/webhooks", url.Values{"url": {"http://127.0.0.1:9/all"}, "all": {"1"}, "type": {"invoice.paid"}})
	is.Equal(all.Code, http.StatusSeeOther)
	is.True(strings.Contains(f.get(adminA, all.Header().Get("Location")).Body.String(), "<dd>all events</dd>")) // All events wins
}

func TestAddEndpointRefusesBadInput(t *testing.T) {
	f := newFixture(t)
	strict := newStrictFixture(t)
	for _, tt := range []struct {
		name string
		f    *fixture
		form url.Values
	}{
		{"not a URL", f, url.Values{"url": {"not a url"}}},
		{"unknown type", f, url.Values{"url": {"http://127.0.0.1:9/x"}, "type": {"invoice.exploded"}}},
		{"credentials", f, url.Values{"url": {"http://user:pw@127.0.0.1:9/x"}}},
		{"http without allow-local", strict, url.Values{"url": {"http://127.0.0.1:9/x"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			res := tt.f.post(adminA, "/webhooks", tt.form)
			is.Equal(res.Code, http.StatusBadRequest)                    // refused, not a 500
			is.True(strings.Contains(res.Body.String(), `role="alert"`)) // saying why
			is.True(!strings.Contains(res.Body.String(), "<script>x"))   // as text
		})
	}
	is := is.New(t)
	res := f.post(adminA, "/webhooks", url.Values{"url": {"https://x.example/<script>x</script>"}, "type": {"nope"}})
	is.Equal(res.Code, http.StatusBadRequest)
	is.True(strings.Contains(res.Body.String(), "&lt;script&gt;x")) // the URL kept in the form, escaped
}

func TestDisableEnableEndpoint(t *testing.T) {
	is := is.New(t)
	f := newFixture(t)
	e := f.endpoint("org_a", "http://127.0.0.1:9/a")
	res := f.post(adminA, "/webhooks/"+e.ID+"/disable", nil)
	is.Equal(res.Code, http.StatusSeeOther)
	got, err := f.eps.Get(t.Context(), "org_a", e.ID)
	is.NoErr(err)
	is.True(!got.Enabled) // disabled
	body := f.get(adminA, res.Header().Get("Location")).Body.String()
	is.True(strings.Contains(body, ">Enable</button>")) // offered again
	is.True(strings.Contains(body, "disabled (disabled)"))
	res = f.post(adminA, "/webhooks/"+e.ID+"/enable", nil)
	is.Equal(res.Code, http.StatusSeeOther)
	got, _ = f.eps.Get(t.Context(), "org_a", e.ID)
	is.True(got.Enabled) // enabled
	c := f.changed()
	is.Equal(c[0].Action, "webhook_endpoint.disabled")
	is.Equal(c[1].Action, "webhook_endpoint.enabled")
}

func TestRotateSecretShownOnce(t *testing.T) {
	is := is.New(t)
	f := newFixture(t)
	e := f.endpoint("org_a", "http://127.0.0.1:9/a")
	res := f.post(adminA, "/webhooks/"+e.ID+"/rotate", nil)
	is.Equal(res.Code, 200)
	m := secretField.FindStringSubmatch(res.Body.String())
	is.True(m != nil)                                                     // the new secret, in this answer
	is.True(!holds(f.get(adminA, "/webhooks/"+e.ID).Body.String(), m[1])) // and no other
	is.True(!strings.Contains(f.log(), m[1]))                             // nor the log
	is.Equal(f.changed()[0].Action, "webhook_endpoint.secret_rotated")
}

func TestSandboxEndpointsApart(t *testing.T) {
	is := is.New(t)
	f := newFixture(t)
	res := f.post(adminA, "/sandbox/webhooks", url.Values{"url": {"http://127.0.0.1:9/sandbox"}})
	is.Equal(res.Code, http.StatusSeeOther)
	is.True(strings.HasPrefix(res.Header().Get("Location"), "/sandbox/webhooks/we_"))
	is.True(strings.Contains(f.get(adminA, "/sandbox/webhooks").Body.String(), "http://127.0.0.1:9/sandbox"))
	is.True(!strings.Contains(f.get(adminA, "/webhooks").Body.String(), "http://127.0.0.1:9/sandbox")) // not among the live ones
	id := strings.TrimPrefix(res.Header().Get("Location"), "/sandbox/webhooks/")
	is.Equal(f.get(adminA, "/webhooks/"+id).Code, http.StatusNotFound) // nor reachable as one
}

func TestRevealSecretShownOnce(t *testing.T) {
	is := is.New(t)
	f := newFixture(t)
	e, secret, err := f.eps.Create(t.Context(), "org_a", webhookSettings("http://127.0.0.1:9/a"))
	is.NoErr(err)
	is.True(!holds(f.get(adminA, "/webhooks/"+e.ID).Body.String(), secret)) // not without asking
	is.True(!holds(f.get(memberA, "/webhooks/"+e.ID).Body.String(), secret))
	is.Equal(f.post(memberA, "/webhooks/"+e.ID+"/reveal", nil).Code, http.StatusForbidden) // not to a member
	res := f.post(adminA, "/webhooks/"+e.ID+"/reveal", nil)
	is.Equal(res.Code, 200)
	m := secretField.FindStringSubmatch(res.Body.String())
	is.True(m != nil)
	is.Equal(html.UnescapeString(m[1]), secret)                             // the endpoint's secret, in this answer
	is.True(!holds(f.get(adminA, "/webhooks/"+e.ID).Body.String(), secret)) // and no later one
	is.True(!strings.Contains(f.log(), secret))                             // nor the log
	is.True(!strings.Contains(fmt.Sprint(f.changed()), secret))
	is.Equal(f.changed()[0].Action, "webhook_endpoint.secret_revealed") // reported: who saw it
}

func TestSendTestEvent(t *testing.T) {
	is := is.New(t)
	f := newFixture(t)
	e := f.endpoint("org_a", "http://127.0.0.1:9/a")
	res := f.post(adminA, "/webhooks/"+e.ID+"/test", nil)
	is.Equal(res.Code, http.StatusSeeOther)
	is.Equal(res.Header().Get("Location"), "/webhooks/"+e.ID+"?done=sent")
	jobs, err := f.st.ClaimWebhookJobs(t.Context(), f.clock.Now(), 10, time.Minute)
	is.NoErr(err)
	is.Equal(len(jobs), 1) // a delivery is queued
	is.Equal(jobs[0].EventType, "webhook.test")
	is.Equal(jobs[0].EndpointID, e.ID)
	is.Equal(f.changed()[0].Action, "webhook_endpoint.test_sent")

	f.post(adminA, "/webhooks/"+e.ID+"/disable", nil)
	res = f.post(adminA, "/webhooks/"+e.ID+"/test", nil)
	is.Equal(res.Code, http.StatusConflict) // a disabled endpoint gets none
	is.True(strings.Contains(res.Body.String(), "enable it"))
}

// deliver records n attempts of an endpoint, a minute apart, up to now.
func (f *fixture) deliver(org, endpointID string, n int) {
	f.t.Helper()
	now := f.clock.Now()
	for i := range n {
		d := store.WebhookDelivery{ID: fmt.Sprintf("del_%05d", i), EndpointID: endpointID, EventID: fmt.Sprintf("evt_%05d", i),
			EventType: "invoice.paid", Attempt: 1 + i%3, AttemptedAt: now.Add(time.Duration(i-n) * time.Minute),
			StatusCode: 200, Duration: 15 * time.Millisecond}
		if i%4 == 0 {
			d.StatusCode, d.Error = 0, "timeout"
		}
		job := store.WebhookJob{OrgID: org, EndpointID: endpointID, EventID: d.EventID, EventType: d.EventType}
		if err := f.st.FinishWebhookAttempt(f.t.Context(), job, d, store.WebhookOutcome{Success: true}); err != nil {
			f.t.Fatal(err)
		}
	}
}

func TestDeliveriesPaged(t *testing.T) {
	is := is.New(t)
	f := newFixture(t)
	e := f.endpoint("org_a", "http://127.0.0.1:9/a")
	f.deliver("org_a", e.ID, 60)
	rows := regexp.MustCompile(`<td class="num">\d+ ms</td><td><code>(evt_\d+)</code>`)
	seen := map[string]bool{}
	for page := 1; page <= 3; page++ {
		body := f.get(adminA, fmt.Sprintf("/webhooks/%s?page=%d", e.ID, page)).Body.String()
		for _, m := range rows.FindAllStringSubmatch(body, -1) {
			is.True(!seen[m[1]]) // each attempt once
			seen[m[1]] = true
		}
		if page == 1 {
			is.True(strings.Contains(body, "evt_00059")) // newest first
			is.True(strings.Contains(body, "Page 1 of 3 (60 in all)"))
			is.True(strings.Contains(body, "<td>timeout</td>")) // an error when no status came
		}
	}
	is.Equal(len(seen), 60)
	list := f.get(adminA, "/webhooks").Body.String()
	is.True(strings.Contains(list, ": 200</td>")) // the last delivery in the list
}
