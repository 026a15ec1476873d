package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/internal/test/testenv"
	"github.com/clientstatus/clientstatus/sandbox"
)

// TestDemoSandboxKey calls the demo data's sandbox key: it reads Acme's
// sandbox, with its demo files, and Acme's live key never does.
func TestDemoSandboxKey(t *testing.T) {
	is := is.New(t)
	s := startServer(t, nil)
	is.True(strings.Contains(s.stdout.String(), demoSandboxKey)) // listed with the demo keys

	res := call(t, "GET", s.url+"/v1/projects", demoSandboxKey)
	is.Equal(res.status, 200)
	is.Equal(res.header.Get("X-Sandbox"), "true")
	is.Equal(res.ids(t), []string{"prj_sandbox_website", "prj_sandbox_app"})

	live := call(t, "GET", s.url+"/v1/projects/prj_sandbox_website", demoOrgs[0].key)
	is.Equal(live.status, 404)
	is.Equal(live.header.Get("X-Sandbox"), "")

	res = call(t, "GET", s.url+"/v1/deliverables/dlv_sandbox_mockup/download", demoSandboxKey)
	is.Equal(res.status, 200)
	file := call(t, "GET", res.json(t)["data"].(map[string]any)["url"].(string), "")
	is.Equal(file.status, 200)
	is.True(strings.HasPrefix(string(file.body), "Sandbox demo file"))
}

// TestDataFileSandboxKey loads a data file with a sandbox key: its
// organization's sandbox is seeded; an organization id ending in the
// sandbox suffix, or a csk_test_ key without "sandbox": true, is refused.
func TestDataFileSandboxKey(t *testing.T) {
	testDataFileSandboxKey(t)
}

// TestPostgresSandboxKey is TestDataFileSandboxKey on PostgreSQL, where
// webhooks run too: the file's sandbox endpoint is the sandbox's, and
// listed to the sandbox key only.
func TestPostgresSandboxKey(t *testing.T) {
	testDataFileSandboxKey(t, "-database-url", testSchema(t, testenv.PostgresURL(t)))
}

func testDataFileSandboxKey(t *testing.T, args ...string) {
	is := is.New(t)
	raw, err := os.ReadFile(contractFile)
	is.NoErr(err)
	write := func(change func(d map[string]any)) string {
		var d map[string]any
		is.NoErr(json.Unmarshal(raw, &d))
		change(d)
		b, err := json.Marshal(d)
		is.NoErr(err)
		name := filepath.Join(t.TempDir(), "data.json")
		is.NoErr(os.WriteFile(name, b, 0o600))
		return name
	}
	addKey := func(k map[string]any) func(d map[string]any) {
		return func(d map[string]any) { d["apiKeys"] = append(d["apiKeys"].([]any), k) }
	}
	file := write(func(d map[string]any) {
		addKey(map[string]any{"orgId": "org_a", "key": "sandbox-key-a", "sandbox": true})(d)
		d["webhookEndpoints"] = []any{map[string]any{"id": "we_sandbox", "orgId": "org_a", "url": "https://hooks.example.com/sandbox",
			"types": []string{"invoice.paid"}, "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "sandbox": true}}
	})
	s := startServer(t, nil, append([]string{"-data", file, "-sandbox-interval", "0"}, args...)...)
	res := call(t, "GET", s.url+"/v1/invoices", "sandbox-key-a")
	is.Equal(res.status, 200)
	is.Equal(res.header.Get("X-Sandbox"), "true")
	for _, id := range res.ids(t) {
		is.True(strings.HasPrefix(id, "inv_sandbox_")) // the sandbox's invoices only
	}
	for _, id := range call(t, "GET", s.url+"/v1/invoices", "key-acme-1").ids(t) {
		is.True(!strings.HasPrefix(id, "inv_sandbox_")) // the live key's, none of the sandbox's
	}
	if len(args) > 0 { // PostgreSQL: webhooks run
		is.Equal(call(t, "GET", s.url+"/v1/webhook_endpoints", "sandbox-key-a").ids(t), []string{"we_sandbox"}) // the sandbox's endpoint
		is.Equal(len(call(t, "GET", s.url+"/v1/webhook_endpoints", "key-acme-1").ids(t)), 0)                    // not the live account's
		return                                                                                                  // the refusals below are the data file's, the same on any store
	}

	err = startErr(t, "-data", write(addKey(map[string]any{"orgId": "org_a", "key": "csk_test_DemoAcmeSandboxKey0000000000000119FJce"})))
	is.True(strings.Contains(err.Error(), "sandbox"))
	err = startErr(t, "-data", write(func(d map[string]any) {
		d["organizations"] = append(d["organizations"].([]any), map[string]any{"id": "org_a~sandbox", "name": "X", "plan": "starter", "retainerActive": true, "apiEnabled": true})
	}))
	is.True(strings.Contains(err.Error(), "reserved"))
}

// TestDemoSandboxStream: the demo sandbox moves every few seconds, so
// that the README's first stream shows an event soon; a sandbox key's
// stream stays open past its access re-checks and shows the sandbox's
// changes as they come.
func TestDemoSandboxStream(t *testing.T) {
	is := is.New(t)
	cfg, err := parseConfig(nil, func(string) string { return "" }, io.Discard)
	is.NoErr(err)
	is.Equal(cfg.sandboxInterval, demoSandboxInterval) // demo data: it moves every few seconds
	cfg, err = parseConfig([]string{"-data", "testdata/contract.json"}, func(string) string { return "" }, io.Discard)
	is.NoErr(err)
	is.Equal(cfg.sandboxInterval, sandbox.DefaultInterval) // a data file of one's own: the default
	cfg, err = parseConfig([]string{"-sandbox-interval", "0"}, func(string) string { return "" }, io.Discard)
	is.NoErr(err)
	is.Equal(cfg.sandboxInterval, time.Duration(0)) // as asked

	s := startServer(t, nil, "-sandbox-interval", "300ms")
	req, err := http.NewRequest("GET", s.url+"/v1/events", nil)
	is.NoErr(err)
	req.Header.Set("Authorization", "Bearer "+demoSandboxKey)
	req.Header.Set("Accept", "text/event-stream")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a generous bound
	defer cancel()
	res, err := http.DefaultClient.Do(req.WithContext(ctx))
	is.NoErr(err)
	defer res.Body.Close()
	is.Equal(res.StatusCode, 200)
	start := time.Now()
	sc := bufio.NewScanner(res.Body)
	late := false // an event after the stream's second access re-check
	for !late && sc.Scan() {
		late = strings.HasPrefix(sc.Text(), "event: ") && time.Since(start) > 2500*time.Millisecond
	}
	is.True(late)             // the stream stayed open, showing the sandbox's changes
	is.True(ctx.Err() == nil) // within the bound
}
