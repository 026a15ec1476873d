package main

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/internal/test/testenv"
	"github.com/clientstatus/clientstatus/statusclient"
	"github.com/clientstatus/clientstatus/webhook"
)

func TestWebhookFlags(t *testing.T) {
	is := is.New(t)
	c, err := parseConfig([]string{"-webhook-retries", "1s,2s,4s", "-webhooks-allow-local"}, func(string) string { return "" }, io.Discard)
	is.NoErr(err)
	is.Equal(c.webhookRetries, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second})
	is.True(c.webhookAllowLocal)
	c, err = parseConfig(nil, func(string) string { return "" }, io.Discard)
	is.NoErr(err)
	is.True(c.webhookRetries == nil) // the default schedule
	loop, public := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}, &net.TCPAddr{IP: net.IPv4(0, 0, 0, 0)}
	is.True(allowLocalWebhooks(c, loop))    // by default on while listening on loopback
	is.True(!allowLocalWebhooks(c, public)) // and off on any other address
	c, err = parseConfig([]string{"-webhooks-allow-local=false"}, func(string) string { return "" }, io.Discard)
	is.NoErr(err)
	is.True(!allowLocalWebhooks(c, loop)) // the flag given says it either way
	_, err = parseConfig([]string{"-webhook-retries", "1s,soon"}, func(string) string { return "" }, io.Discard)
	is.True(err != nil) // a bad delay is refused
}

func TestWebhookEndpointsFile(t *testing.T) {
	is := is.New(t)
	const file = `{"organizations": [{"id": "org_a", "name": "A", "plan": "starter", "retainerActive": true, "apiEnabled": true}],
	  "webhookEndpoints": [{"id": "we_1", "orgId": "org_a", "url": "https://hooks.example.com/a", "types": ["invoice.paid"],
	    "scopes": ["invoices:read"], "projectIds": null, "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}]}`
	ds, err := parseData(strings.NewReader(file))
	is.NoErr(err)
	is.Equal(len(ds.webhooks), 1)
	is.Equal(ds.webhooks[0].Settings.URL, "https://hooks.example.com/a")
	is.Equal(len(ds.ignored), 0) // every field is known
	_, err = parseData(strings.NewReader(strings.Replace(file, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "hunter2", 1)))
	is.True(err != nil)                                // a secret that is not whsec_ is refused
	is.True(!strings.Contains(err.Error(), "hunter2")) // and never echoed
}

// delivery is a webhook request as a test's receiver got it.
type delivery struct {
	path   string
	header http.Header
	body   []byte
}

// TestReloadWebhookEndpoints: a reload (SIGHUP) brings the store's
// webhook endpoints in line with the file: a new one is registered, a
// changed one gets its new URL and its new secret (the old one still
// signing during the overlap), a removed one is deleted, an unchanged one
// is left alone; a file with an endpoint the store would refuse changes
// nothing.
func TestReloadWebhookEndpoints(t *testing.T) { testReloadWebhookEndpoints(t) }

// TestReloadWebhookEndpointsPostgres is TestReloadWebhookEndpoints on
// PostgreSQL, and then a second server started on the same database with
// a changed file (a restart, or a replica with a newer file): it brings
// the stored endpoints in line as it starts.
func TestReloadWebhookEndpointsPostgres(t *testing.T) {
	testReloadWebhookEndpoints(t, "-database-url", testSchema(t, testenv.PostgresURL(t)))
}

func testReloadWebhookEndpoints(t *testing.T, args ...string) {
	is := is.New(t)
	got := make(chan delivery, 100)
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- delivery{r.URL.Path, r.Header.Clone(), body}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer rcv.Close()
	hook := func(id, path, secret string) map[string]any {
		return map[string]any{"id": id, "orgId": "org_a", "url": rcv.URL + path, "types": []string{"*"}, "secret": secret}
	}
	file := func(hooks ...map[string]any) dataFile {
		return dataFile{"organizations": {org("org_a")}, "apiKeys": {apiKeyItem("org_a", keyA)}, "webhookEndpoints": hooks}
	}
	keep, oldSecret, newSecret, gone, added := webhook.NewSecret(), webhook.NewSecret(), webhook.NewSecret(), webhook.NewSecret(), webhook.NewSecret()
	name := filepath.Join(t.TempDir(), "data.json")
	file(hook("we_keep", "/keep", keep), hook("we_change", "/old", oldSecret), hook("we_gone", "/gone", gone)).write(t, name)
	postgres := len(args) > 0
	args = append([]string{"-data", name, "-webhooks-allow-local", "-webhook-retries", "1s"}, args...)
	s := startServer(t, nil, args...)
	list := func() map[string]string { // id: url
		out := map[string]string{}
		for _, e := range read(t, s, "/v1/webhook_endpoints", keyA).json(t)["data"].([]any) {
			m := e.(map[string]any)
			out[m["id"].(string)] = m["url"].(string)
		}
		return out
	}
	is.Equal(list(), map[string]string{"we_keep": rcv.URL + "/keep", "we_change": rcv.URL + "/old", "we_gone": rcv.URL + "/gone"})

	after := file(hook("we_keep", "/keep", keep), hook("we_change", "/new", newSecret), hook("we_added", "/added", added))
	after.write(t, name)
	is.NoErr(s.reload(t))
	is.True(strings.Contains(s.stderr.String(), "webhook_endpoints_put=2 webhook_endpoints_removed=1")) // one added, one changed, one removed
	want := map[string]string{"we_keep": rcv.URL + "/keep", "we_change": rcv.URL + "/new", "we_added": rcv.URL + "/added"}
	is.Equal(list(), want)

	// A file whose endpoint the store would refuse changes nothing.
	broken := file(hook("we_keep", "/keep", keep), hook("we_change", "/new", newSecret), hook("we_added", "/added", added))
	broken["webhookEndpoints"][2]["url"] = "ftp://hooks.example.com/added"
	broken.write(t, name)
	err := s.reload(t)
	is.True(err != nil)                                                  // refused
	is.True(strings.Contains(err.Error(), "webhookEndpoints[2]"))        // naming the endpoint
	is.True(!strings.Contains(s.stderr.String(), added[len("whsec_"):])) // and never logging a secret
	is.Equal(list(), want)                                               // unchanged

	// An event after the reload reaches each endpoint of the file, signed
	// with the file's secret.
	after["invoices"] = []map[string]any{invoice("org_a", "i1", nil)}
	after.write(t, name)
	is.NoErr(s.reload(t))
	secrets := map[string]string{"/keep": keep, "/new": newSecret, "/added": added}
	for len(secrets) > 0 {
		var d delivery
		select {
		case d = <-got:
		case <-time.After(30 * time.Second):
			t.Fatalf("no delivery to %v", secrets)
		}
		secret, ok := secrets[d.path]
		if !ok {
			t.Fatalf("a delivery to %s, which the file no longer has or changed", d.path)
		}
		_, err := statusclient.VerifyWebhook(secret, d.header, d.body, time.Now())
		is.NoErr(err) // signed with the file's secret
		if d.path == "/new" {
			_, err := statusclient.VerifyWebhook(oldSecret, d.header, d.body, time.Now())
			is.NoErr(err) // and, during the overlap, with the one the file replaced
		}
		delete(secrets, d.path)
	}

	if postgres { // a second server, on a changed file: a second server, on a changed file
		restarted := file(hook("we_keep", "/kept", keep), hook("we_added", "/added", added))
		restarted["invoices"] = after["invoices"]
		restarted.write(t, name)
		startServer(t, nil, args...)
		is.Equal(list(), map[string]string{"we_keep": rcv.URL + "/kept", "we_change": rcv.URL + "/new", "we_added": rcv.URL + "/added"}) // changed at start; removing is a reload's, which knows the file before
	}
}

// TestReadinessIgnoresFailingEndpoint: an endpoint that fails every
// attempt is the endpoint's problem, logged in its deliveries; the
// server stays ready.
func TestReadinessIgnoresFailingEndpoint(t *testing.T) {
	is := is.New(t)
	got := make(chan struct{}, 100)
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		got <- struct{}{}
	}))
	defer rcv.Close()
	f := dataFile{"organizations": {org("org_a")}, "apiKeys": {apiKeyItem("org_a", keyA)},
		"webhookEndpoints": {{"id": "we_1", "orgId": "org_a", "url": rcv.URL, "types": []string{"*"}, "secret": webhook.NewSecret()}}}
	name := filepath.Join(t.TempDir(), "data.json")
	f.write(t, name)
	s := startServer(t, nil, "-data", name, "-webhooks-allow-local", "-webhook-retries", "1h")
	is.True(strings.Contains(s.stderr.String(), "-webhooks-allow-local")) // the development option is logged at start
	f["invoices"] = []map[string]any{invoice("org_a", "i1", nil)}
	f.write(t, name)
	is.NoErr(s.reload(t))
	select {
	case <-got:
	case <-time.After(30 * time.Second):
		t.Fatal("no attempt")
	}
	var attempts []any // the attempt is logged after its answer
	testenv.Poll(t, 30*time.Second, func() error {
		attempts = read(t, s, "/v1/webhook_endpoints/we_1/deliveries", keyA).json(t)["data"].([]any)
		if len(attempts) == 0 {
			return errors.New("the failed attempt is not in the endpoint's deliveries")
		}
		return nil
	})
	is.Equal(attempts[0].(map[string]any)["statusCode"], 500.0) // the attempt failed
	is.Equal(call(t, "GET", s.url+"/readyz", "").status, 200)   // and the server is ready all the same
}
