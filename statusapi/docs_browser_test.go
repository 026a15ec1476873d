package statusapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/internal/test/testenv"
	"github.com/clientstatus/clientstatus/openapi"
)

// TestDocsInBrowser opens the reference page in headless Chromium, with
// the handler mounted under /api on a loopback server, and checks what a
// reader gets: the page rendered, every path and operation of the OpenAPI
// document in it, nothing asked of another origin (the page's requests in
// Chromium's net log all go to the test server, and the browser reports no
// Content-Security-Policy violation nor script error), and every response
// the browser got matches the document. Chromium resolves no host name but
// 127.0.0.1, so nothing leaves the machine even if the page tried.
//
// It keeps a screenshot, docs.png, in $CLIENTSTATUS_ARTIFACTS (.ci/run
// sets .ci/artifacts), else in a temporary directory, and logs its path.
// Without Chromium it skips, saying how to install it (testenv.Chromium).
func TestDocsInBrowser(t *testing.T) {
	chromium := testenv.Chromium(t)
	if testing.Short() {
		t.Skip("opens a browser; not with -short")
	}
	is := is.New(t)
	api := newTestAPI(t)

	// The portal: the handler under /api, every answer checked against
	// the document as a mounted handler's; the paths asked, kept.
	var mu sync.Mutex
	var asked []string
	mounted := http.StripPrefix("/api", api.handler)
	checked := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.Method+" "+r.URL.Path)
		mu.Unlock()
		rec := httptest.NewRecorder()
		mounted.ServeHTTP(rec, r)
		checkResponse(t, spec.Mounted("/api"), r, rec)
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	})
	mux := http.NewServeMux()
	mux.Handle("/api/", checked)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	origin := srv.URL

	dir := t.TempDir()
	artifacts := os.Getenv("CLIENTSTATUS_ARTIFACTS")
	if artifacts == "" {
		artifacts = t.TempDir()
	}
	is.NoErr(os.MkdirAll(artifacts, 0o755))
	screenshot, err := filepath.Abs(filepath.Join(artifacts, "docs.png"))
	is.NoErr(err)
	_ = os.Remove(screenshot) // a stale one must not pass for this run's
	// Chromium now and then hangs in headless mode with a virtual time
	// budget (seen about one run in four on a machine loaded with other
	// builds, never twice in a row): each attempt has a few minutes, in a
	// fresh profile, and a hang is retried twice. Any other failure fails.
	var dom, console bytes.Buffer
	var netLog string
	for attempt := 1; ; attempt++ {
		run := filepath.Join(dir, "run"+strconv.Itoa(attempt))
		netLog = filepath.Join(run, "net.json")
		is.NoErr(os.MkdirAll(run, 0o755))
		dom.Reset()
		console.Reset()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		cmd := exec.CommandContext(ctx, chromium,
			"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
			"--no-first-run", "--no-default-browser-check", "--disable-background-networking",
			"--disable-component-update", "--disable-sync", "--disable-extensions",
			"--disable-default-apps", "--disable-domain-reliability", "--disable-breakpad",
			"--user-data-dir="+filepath.Join(run, "profile"),
			// Only the test server resolves: nothing can leave the machine.
			"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
			"--log-net-log="+netLog,
			// The console (CSP violations, script errors) on stderr.
			"--enable-logging=stderr", "--v=0",
			// Virtual time runs ahead while the page is idle: the budget
			// bounds the page's own timers, not the test's wall clock.
			"--virtual-time-budget=10000",
			"--window-size=1280,2000", "--screenshot="+screenshot,
			"--dump-dom", origin+"/api/v1/docs")
		cmd.Dir = run
		cmd.Stdout, cmd.Stderr = &dom, &console
		err := cmd.Run()
		hung := ctx.Err() != nil
		cancel()
		if err == nil {
			break
		}
		if !hung || attempt == 3 {
			t.Fatalf("chromium, attempt %d: %v\n%s", attempt, err, console.String())
		}
		t.Logf("chromium hung (attempt %d); trying again", attempt)
	}
	t.Logf("screenshot of the reference page: %s", screenshot)
	info, err := os.Stat(screenshot)
	is.NoErr(err)            // chromium took the screenshot
	is.True(info.Size() > 0) // and it is not empty

	// The page rendered the whole document: every path, and every
	// operation's summary, is in the DOM.
	text := html.UnescapeString(dom.String())
	var doc struct {
		Paths map[string]struct {
			Get, Head struct {
				Summary string `json:"summary"`
			}
		} `json:"paths"`
	}
	is.NoErr(json.Unmarshal(openapi.JSON(), &doc))
	is.True(len(doc.Paths) > 0)
	for path, ops := range doc.Paths {
		if !strings.Contains(text, path) {
			t.Errorf("the rendered page does not show the path %s", path)
		}
		for _, summary := range []string{ops.Get.Summary, ops.Head.Summary} {
			if summary == "" || !strings.Contains(text, summary) {
				t.Errorf("the rendered page does not show the operation %q of %s", summary, path)
			}
		}
	}

	// The browser said nothing of a blocked request or a script error.
	for _, line := range strings.Split(console.String(), "\n") {
		if !strings.Contains(line, ":CONSOLE") {
			continue
		}
		for _, bad := range []string{"Content Security Policy", "Refused", "Uncaught", "Failed to load"} {
			if strings.Contains(line, bad) {
				t.Errorf("browser console: %s", line)
			}
		}
	}

	// The page's requests, as the net log has them: on the test server
	// only, and the three the page needs among them.
	page := pageRequests(t, netLog, origin)
	for _, u := range page {
		if !strings.HasPrefix(u, origin+"/") {
			t.Errorf("the page asked another origin for %s", u)
		}
	}
	for _, want := range []string{"/api/v1/docs", "/api/v1/docs/redoc.standalone.js", "/api/v1/openapi.json"} {
		is.True(slices.Contains(page, origin+want)) // the page loaded it
	}
	mu.Lock()
	defer mu.Unlock()
	for _, want := range []string{"GET /api/v1/docs", "GET /api/v1/docs/redoc.standalone.js", "GET /api/v1/openapi.json"} {
		is.True(slices.Contains(asked, want)) // and the handler, under its prefix, served it
	}
}

// pageRequests returns the URL of every request in Chromium's net log
// (--log-net-log) that the page at origin made: its own navigation and
// what it initiated (scripts, fetches, images, workers, whatever their
// destination). The browser's own background requests (initiator "not an
// origin", and a site other than the page's) are left out: they are not
// the page's, and the host resolver rules stop them anyway.
func pageRequests(t *testing.T, path, origin string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the net log: %v", err)
	}
	var log struct {
		Constants struct {
			LogEventTypes map[string]int `json:"logEventTypes"`
		} `json:"constants"`
		Events []struct {
			Type   int `json:"type"`
			Params struct {
				URL           string `json:"url"`
				Initiator     string `json:"initiator"`
				SiteForCookie string `json:"site_for_cookies"`
			} `json:"params"`
		} `json:"events"`
	}
	if err := json.Unmarshal(raw, &log); err != nil {
		// A log that Chromium did not finish lacks its closing "]}".
		trimmed := strings.TrimRight(string(raw), " \n\r\t,")
		if err2 := json.Unmarshal([]byte(trimmed+"]}"), &log); err2 != nil {
			t.Fatalf("the net log does not parse: %v", err)
		}
	}
	start, ok := log.Constants.LogEventTypes["URL_REQUEST_START_JOB"]
	if !ok {
		t.Fatal("the net log has no URL_REQUEST_START_JOB event type")
	}
	u, err := url.Parse(origin)
	if err != nil {
		t.Fatal(err)
	}
	site := "site=" + u.Scheme + "://" + u.Hostname() + ";" // as the log writes a SiteForCookies
	var out []string
	for _, e := range log.Events {
		p := e.Params
		if e.Type != start || p.URL == "" {
			continue
		}
		if p.Initiator == origin || strings.Contains(p.SiteForCookie, site) {
			out = append(out, p.URL)
		}
	}
	return out
}
