package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/internal/test/testenv"
	"github.com/clientstatus/clientstatus/statusclient"
)

// TestSettingsInBrowser drives the developer settings of the example
// server in headless Chromium, finding every control by its role and
// accessible name as the contract names them: the key flow (create, use
// on /v1, revoke, refused; roll), a webhook endpoint for a loopback receiver
// (test event, Deliveries, signature verified with the revealed secret),
// the request log's filters, the usage chart, sandbox and live, a
// member's view; the key flow again with scripts off and by keyboard
// alone. The console must report no blocked load and no script error. axe-core runs in each page (no serious or critical violation),
// and each page's screenshot is kept in $CLIENTSTATUS_ARTIFACTS. On
// memory, and on PostgreSQL with Redis.
func TestSettingsInBrowser(t *testing.T) {
	browser := newBrowser(t)
	axe := axeScript(t)
	args := []string{"-webhooks-allow-local", "-webhook-retries", "1s"}
	t.Run("memory", func(t *testing.T) {
		s := startServer(t, nil, args...)
		settingsFlow(t, browser, s, axe)
		keyFlowWithoutScripts(t, browser, s)
		keyFlowByKeyboard(t, browser, s)
	})
	t.Run("postgres-redis", func(t *testing.T) {
		dsn := testSchema(t, testenv.PostgresURL(t))
		prefix := fmt.Sprintf("clientstatus-test:settings:%d", time.Now().UnixNano())
		s := startServer(t, nil, append(args, "-database-url", dsn, "-redis-url", testenv.RedisURL(t), "-redis-prefix", prefix)...)
		settingsFlow(t, browser, s, "")
	})
}

// browserURL is the server's URL as the browser reaches it: 127.0.0.1,
// the one host it resolves.
func browserURL(s *testServer) string { return strings.Replace(s.url, "localhost", "127.0.0.1", 1) }

// signIn signs in through the demo form as role of the first organization.
func (b *tab) signIn(role string) {
	b.t.Helper()
	b.open("/settings/sign-in")
	b.run(chromedp.SetValue(label("combobox", "Organization"), demoOrgs[0].ID, byRole("combobox", "Organization")),
		chromedp.SetValue(label("combobox", "Role"), role, byRole("combobox", "Role")))
	b.click("button", "Sign in")
	b.heading("API keys")
}

// attr reads an attribute of the control of role and name.
func (b *tab) attr(role, name, attr string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.AttributeValue(label(role, name), attr, byRole(role, name)))
	if err != nil || !v.Exists {
		b.t.Fatalf("%s has no %s: %v\npage:\n%.3000s", label(role, name), attr, err, b.shown())
	}
	return v.Value
}

// hook is one request a webhook receiver got.
type hook struct {
	header http.Header
	body   []byte
}

// receiver is a loopback webhook receiver.
func receiver(t *testing.T) (*httptest.Server, chan hook) {
	got := make(chan hook, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		select {
		case got <- hook{r.Header.Clone(), b}:
		default:
		}
	}))
	t.Cleanup(srv.Close)
	return srv, got
}

func settingsFlow(t *testing.T, browser context.Context, s *testServer, axe string) {
	is := is.New(t)
	b := newTab(t, browser, browserURL(s), true)
	check := func(page string) {
		if axe != "" {
			b.axe(axe, page)
			b.shot("settings-" + page)
		}
	}
	b.open("/settings/keys")
	b.heading("Sign in to the developer settings") // not signed in: the sign-in
	check("sign-in")
	b.signIn("admin")

	// Create a key, use it, revoke it, and see /v1 refuse it.
	b.fill("textbox", "Name", "Browser key")
	b.click("checkbox", "projects:read")
	b.click("button", "Create key")
	secret := b.attr("textbox", "New API key", "value")
	is.True(strings.HasPrefix(secret, auth.KeyPrefix)) // the new key, shown once
	check("keys")
	is.Equal(call(t, "GET", s.url+"/v1/projects", secret).status, 200)         // answers /v1 at once
	is.Equal(call(t, "GET", s.url+"/v1/invoices", secret).status, 403)         // within its scopes
	is.Equal(call(t, "GET", s.url+"/v1/projects/no_such", secret).status, 404) // a 4xx for the log
	b.click("button", "Revoke", chromedp.FromNode(b.row("Browser key")))
	b.heading("Revoke a key")
	check("revoke")
	b.click("button", "Revoke key")
	b.sees("The key was revoked")
	testenv.Poll(t, time.Second, func() error {
		if got := call(t, "GET", s.url+"/v1/projects", secret).status; got != 401 {
			return fmt.Errorf("status %d, want 401", got)
		}
		return nil
	})

	// Roll a key: the new one shows once, the old one keeps working for
	// the time chosen.
	b.fill("textbox", "Name", "Rolled key")
	b.click("button", "Create key")
	old := b.attr("textbox", "New API key", "value")
	b.click("button", "Roll", chromedp.FromNode(b.row("Rolled key")))
	b.heading("Roll a key")
	check("roll")
	b.click("radio", "24 hours")
	b.click("button", "Roll key")
	rolled := b.attr("textbox", "New API key", "value")
	is.True(rolled != old)
	is.Equal(call(t, "GET", s.url+"/v1/projects", rolled).status, 200) // the new key answers
	is.Equal(call(t, "GET", s.url+"/v1/projects", old).status, 200)    // and the old one, for 24 hours

	// A webhook endpoint for a loopback receiver: a test event arrives,
	// signed with the secret that Reveal secret shows, and is listed
	// under Deliveries.
	recv, got := receiver(t)
	b.click("link", "Webhooks")
	b.heading("Webhooks")
	check("webhooks")
	b.fill("textbox", "URL", recv.URL+"/hook")
	b.click("button", "Add endpoint")
	b.heading("Webhook endpoint")
	endpoint, err := chromedp.Run(b.ctx, chromedp.Location())
	is.NoErr(err)
	endpoint, _, _ = strings.Cut(strings.TrimPrefix(endpoint, b.base), "?")
	b.click("button", "Send test event")
	b.sees("A test event was sent")
	var h hook
	select {
	case h = <-got:
	case <-time.After(20 * time.Second):
		t.Fatal("the test event did not arrive within 20 s")
	}
	testenv.Poll(t, 20*time.Second, func() error {
		b.open(endpoint)
		if !strings.Contains(b.text(), "<code>webhook.test</code>") {
			return fmt.Errorf("no webhook.test under Deliveries")
		}
		return nil
	})
	b.click("button", "Reveal secret")
	whsec := b.attr("textbox", "Signing secret", "value")
	ev, err := statusclient.VerifyWebhook(whsec, h.header, h.body, time.Now())
	is.NoErr(err) // signed with the revealed secret
	is.Equal(ev.Type, "webhook.test")
	check("endpoint")

	// The request log and its filters.
	b.click("link", "Requests")
	b.heading("Requests")
	check("requests")
	b.run(chromedp.SetValue(label("combobox", "Status"), "4xx", byRole("combobox", "Status")))
	b.click("button", "Filter")
	b.sees(`<option value="4xx" selected="">`)
	page := b.text()
	is.True(strings.Contains(page, "NOT_FOUND")) // the 404
	is.True(!strings.Contains(page, `<td class="num">200</td>`))
	b.run(chromedp.SetValue(label("combobox", "Status"), "2xx", byRole("combobox", "Status")))
	b.click("button", "Filter")
	b.sees(`<option value="2xx" selected="">`)
	page = b.text()
	is.True(strings.Contains(page, `<td class="num">200</td>`))
	is.True(!strings.Contains(page, "NOT_FOUND"))

	// Usage: the chart, named, and its table.
	b.click("link", "Usage")
	b.heading("Usage")
	is.True(b.hasNamed("image", "Requests per day")) // the chart's accessible name (Chromium calls role img "image")
	check("usage")

	// The sandbox and back.
	b.click("link", "Sandbox")
	b.sees("Showing the sandbox")
	b.click("link", "API keys")
	b.fill("textbox", "Name", "Sandbox key")
	b.click("button", "Create key")
	test := b.attr("textbox", "New API key", "value")
	is.True(strings.HasPrefix(test, auth.SandboxKeyPrefix)) // a sandbox key
	res := call(t, "GET", s.url+"/v1/projects", test)
	is.Equal(res.status, 200)
	is.Equal(res.header.Get("X-Sandbox"), "true") // reads the sandbox
	check("sandbox-keys")
	b.click("link", "Live")
	b.sees("Showing live data")
	is.True(!strings.Contains(b.text(), "Sandbox key")) // live keys only

	// A member sees the pages without their forms.
	b.signIn("member")
	is.True(!b.has("button", "Create key"))
	is.True(!b.has("button", "Revoke"))
	check("member-keys")
	b.open(endpoint)
	b.heading("Webhook endpoint")
	is.True(!b.has("button", "Reveal secret"))
	is.True(!b.has("button", "Send test event"))
	b.checkConsole() // no page broke its policy or threw
}

// hasNamed reports whether the page holds an element of role whose
// accessible name contains name.
func (b *tab) hasNamed(role, name string) bool {
	b.t.Helper()
	nodes, err := chromedp.Run(b.ctx, chromedp.Nodes(label(role, ""), byRole(role, ""), chromedp.AtLeast(0)))
	if err != nil {
		b.t.Fatal(err)
	}
	for _, n := range nodes {
		if strings.Contains(b.axName(n), name) {
			return true
		}
	}
	return false
}

// keyFlowWithoutScripts makes, uses and revokes a key with scripts off,
// in a browser context of its own (a session of its own).
func keyFlowWithoutScripts(t *testing.T, browser context.Context, s *testServer) {
	is := is.New(t)
	ctx, cancel := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	b := newTab(t, ctx, browserURL(s), false)
	b.open("/settings/sign-in")
	b.click("button", "Sign in") // the first organization, admin: the form's defaults
	b.heading("API keys")
	b.fill("textbox", "Name", "No script key")
	b.click("button", "Create key")
	secret := b.attr("textbox", "New API key", "value")
	is.True(!b.has("button", "Copy New API key")) // the copy button is the script's
	b.shot("settings-noscript-new-key")
	is.Equal(call(t, "GET", s.url+"/v1/projects", secret).status, 200)
	b.click("button", "Revoke", chromedp.FromNode(b.row("No script key")))
	b.click("button", "Revoke key")
	b.sees("The key was revoked")
	b.shot("settings-noscript-revoked")
	is.Equal(call(t, "GET", s.url+"/v1/projects", secret).status, 401)
}

// keyFlowByKeyboard makes and revokes a key with the keyboard alone.
func keyFlowByKeyboard(t *testing.T, browser context.Context, s *testServer) {
	is := is.New(t)
	b := newTab(t, browser, browserURL(s), true)
	b.open("/settings/sign-in")
	b.tabTo("button", "Sign in")
	b.key("\r")
	b.heading("API keys")
	b.tabTo("textbox", "Name")
	b.key("Keyboard key")
	b.tabTo("button", "Create key")
	b.key("\r")
	secret := b.attr("textbox", "New API key", "value")
	b.tabTo("button", "Copy New API key") // the script's button is reachable too
	is.Equal(call(t, "GET", s.url+"/v1/projects", secret).status, 200)
	b.tabTo("button", "Revoke") // the newest key's row comes first
	b.key("\r")
	b.heading("Revoke a key")
	b.sees("Keyboard key")
	b.tabTo("button", "Revoke key")
	b.shot("settings-keyboard-revoke") // the focus on the button Enter presses
	b.key("\r")
	b.sees("The key was revoked")
	is.Equal(call(t, "GET", s.url+"/v1/projects", secret).status, 401)
	b.checkConsole()
}
