package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/internal/test/testenv"
)

const contractFile = "testdata/contract.json"

// testServer is a server started by run, as main would start it.
type testServer struct {
	url            string
	metricsURL     string // with -metrics-addr
	stdout, stderr *syncBuffer
	hup            chan os.Signal // as main's SIGHUP: see reload
	reloaded       chan error
	clock          aheadClock // the store's: see nextSecond
}

// aheadClock runs with this machine's clock, ahead of it by an offset that
// a test moves. It is safe for concurrent use.
type aheadClock struct {
	mu    sync.Mutex
	ahead time.Duration
}

// Now is the clock's time.
func (c *aheadClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.ahead)
}

// nextSecond moves the server's store's clock on to just past the next
// whole second, and returns that second: updatedAt is sent in whole
// seconds, so a change made within the second of the load before it would
// show the same updatedAt.
func (s *testServer) nextSecond() time.Time {
	c := &s.clock
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now().Add(c.ahead)
	next := now.Truncate(time.Second).Add(time.Second)
	c.ahead += next.Sub(now) + 10*time.Millisecond
	return next
}

// reload asks the server to read its data file again, as SIGHUP does, and
// returns the reload's error once it is done.
func (s *testServer) reload(t *testing.T) error {
	t.Helper()
	s.hup <- syscall.SIGHUP
	select {
	case err := <-s.reloaded:
		return err
	case <-time.After(time.Minute):
		t.Fatalf("no reload within a minute\nlog:\n%s", s.stderr)
		return nil
	}
}

// startServer runs the server with args on a free port and stops it when
// the test ends, failing the test when it does not stop cleanly.
func startServer(t *testing.T, env map[string]string, args ...string) *testServer {
	t.Helper()
	s := &testServer{stdout: &syncBuffer{}, stderr: &syncBuffer{}, hup: make(chan os.Signal, 1), reloaded: make(chan error, 8)}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan endpoints, 1)
	done := make(chan error, 1)
	getenv := func(k string) string { return env[k] }
	go func() {
		done <- run(ctx, append([]string{"-addr", "127.0.0.1:0"}, args...), getenv, s.stdout, s.stderr, hooks{
			ready:    func(e endpoints) { ready <- e },
			reload:   s.hup,
			reloaded: func(err error) { s.reloaded <- err },
			clock:    s.clock.Now,
		})
	}()
	select {
	case e := <-ready:
		s.url, s.metricsURL = e.api, e.metrics
	case err := <-done:
		cancel()
		t.Fatalf("server did not start: %v\nlog:\n%s", err, s.stderr)
	}
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("server did not stop cleanly: %v", err)
		}
	})
	return s
}

// startErr runs the server with args, expecting it to refuse to start,
// and returns its error.
func startErr(t *testing.T, args ...string) error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out syncBuffer
	err := run(ctx, append([]string{"-addr", "127.0.0.1:0"}, args...), func(string) string { return "" }, &out, &out,
		hooks{ready: func(endpoints) { cancel() }}) // started after all: stop it, and report below
	if err == nil {
		t.Fatalf("server started with %q; want it to refuse", args)
	}
	return err
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// logged returns the server's stderr once it holds n lines containing
// substr, polling: the request log is written in blocks, at least every
// accesslog.DefaultFlushInterval. It fails the test after 10 s.
func (s *testServer) logged(t *testing.T, substr string, n int) string {
	t.Helper()
	var log string
	testenv.Poll(t, 10*time.Second, func() error {
		log = s.stderr.String()
		if got := strings.Count(log, substr); got < n {
			return fmt.Errorf("the log holds %d lines with %q, want %d", got, substr, n)
		}
		return nil
	})
	return log
}

// response is what a client sees of one response.
type response struct {
	status int
	header http.Header
	body   []byte
}

// json decodes the body into a generic value.
func (r response) json(t *testing.T) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(r.body, &v); err != nil {
		t.Fatalf("body is not a JSON object: %v\n%s", err, r.body)
	}
	return v
}

func (r response) errorCode(t *testing.T) string {
	t.Helper()
	e, _ := r.json(t)["error"].(map[string]any)
	code, _ := e["code"].(string)
	return code
}

// ids returns the ids of the items of a list response, in order.
func (r response) ids(t *testing.T) []string {
	t.Helper()
	items, ok := r.json(t)["data"].([]any)
	if !ok {
		t.Fatalf("data is not a list: %s", r.body)
	}
	ids := make([]string, 0, len(items))
	for _, it := range items {
		ids = append(ids, it.(map[string]any)["id"].(string))
	}
	return ids
}

func (r response) meta(t *testing.T) (page, perPage, total int) {
	t.Helper()
	m, ok := r.json(t)["meta"].(map[string]any)
	if !ok {
		t.Fatalf("no meta: %s", r.body)
	}
	return int(m["page"].(float64)), int(m["per_page"].(float64)), int(m["total"].(float64))
}

// call sends one request with the key as a bearer token ("" for none).
func call(t *testing.T, method, url, key string) response {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	return do(t, req)
}

func do(t *testing.T, req *http.Request) response {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{res.StatusCode, res.Header, body}
}

func TestHealthz(t *testing.T) {
	is := is.New(t)
	s := startServer(t, nil, "-data", contractFile)
	res := call(t, "GET", s.url+"/healthz", "")
	is.Equal(res.status, 200)
	is.Equal(res.json(t)["status"], "ok")
}

// TestContract walks the contract as a client would, against the server on
// testdata/contract.json.
func TestContract(t *testing.T) {
	loaded := time.Now()
	s := startServer(t, nil, "-data", contractFile)
	const acme, bloom, p3 = "key-acme-1", "key-bloom", "key-acme-p3-accounting"

	lists := []struct {
		name, path, key string
		ids             []string
		total           int
	}{
		{"projects by startedAt desc, nulls last, then id", "/v1/projects", acme, []string{"p1", "p4", "p5", "p3", "p2"}, 5},
		{"project status filter", "/v1/projects?status=in_progress", acme, []string{"p1"}, 1},
		{"another organization's projects, same id", "/v1/projects", bloom, []string{"p1", "pb2"}, 2},
		{"milestones by dueAt, then id", "/v1/projects/p1/milestones", acme, []string{"m1", "m2", "m3", "m4"}, 4},
		{"milestone status filter", "/v1/projects/p1/milestones?status=pending", acme, []string{"m3", "m4"}, 2},
		{"deliverables by createdAt desc, then id", "/v1/deliverables", acme, []string{"d3", "d2", "d1", "d4", "d5"}, 5},
		{"deliverables of a project", "/v1/deliverables?projectId=p3", acme, []string{"d4", "d5"}, 2},
		{"deliverables of an unknown project", "/v1/deliverables?projectId=nope", acme, []string{}, 0},
		{"deliverables of another organization's project", "/v1/deliverables?projectId=pb2", acme, []string{}, 0},
		{"void invoices", "/v1/invoices?status=void", acme, []string{"i14", "i06"}, 2},
		{"invoices of a project", "/v1/invoices?projectId=p3&limit=3", acme, []string{"i24", "i20", "i16"}, 6},
		{"a page past the end", "/v1/invoices?page=3", acme, []string{}, 25},
		{"the last page", "/v1/invoices?page=2", acme, []string{"i05", "i04", "i03", "i02", "i01"}, 25},
		{"invoices of a key restricted to p3", "/v1/invoices", p3, []string{"i24", "i20", "i16", "i12", "i08", "i04"}, 6},
		{"deliverables of a key restricted to p3", "/v1/deliverables", p3, []string{"d4", "d5"}, 2},
		{"p1's invoices, asked by a key restricted to p3", "/v1/invoices?projectId=p1", p3, []string{}, 0},
	}
	for _, tt := range lists {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			res := call(t, "GET", s.url+tt.path, tt.key)
			is.Equal(res.status, 200) // body: see the failure's output
			is.Equal(res.ids(t), tt.ids)
			_, _, total := res.meta(t)
			is.Equal(total, tt.total) // meta.total counts every match
		})
	}

	errs := []struct {
		name, method, path, key string
		status                  int
		code                    string
	}{
		{"no key", "GET", "/v1/projects", "", 401, "UNAUTHORIZED"},
		{"unknown key", "GET", "/v1/projects", "key-nobody", 401, "UNAUTHORIZED"},
		{"expired key", "GET", "/v1/projects", "key-acme-expired", 401, "UNAUTHORIZED"},
		{"revoked key", "GET", "/v1/projects", "key-acme-revoked", 401, "UNAUTHORIZED"},
		{"retainer ended", "GET", "/v1/projects", "key-corvid-retainer-ended", 403, "FORBIDDEN"},
		{"API access off", "GET", "/v1/projects", "key-delta-api-off", 403, "FORBIDDEN"},
		{"unknown project", "GET", "/v1/projects/nope", acme, 404, "NOT_FOUND"},
		{"another organization's project", "GET", "/v1/projects/pc1", acme, 404, "NOT_FOUND"},
		{"milestones of an unknown project", "GET", "/v1/projects/nope/milestones", acme, 404, "NOT_FOUND"},
		{"unknown route", "GET", "/v1/nope", acme, 404, "NOT_FOUND"},
		{"POST", "POST", "/v1/projects", acme, 405, "METHOD_NOT_ALLOWED"},
		{"DELETE", "DELETE", "/v1/invoices", acme, 405, "METHOD_NOT_ALLOWED"},
		{"limit over 100", "GET", "/v1/invoices?limit=101", acme, 400, "INVALID_PARAMETER"},
		{"page 0", "GET", "/v1/invoices?page=0", acme, 400, "INVALID_PARAMETER"},
		{"status in capitals", "GET", "/v1/invoices?status=PAID", acme, 400, "INVALID_PARAMETER"},
		{"unknown parameter", "GET", "/v1/projects?satus=planned", acme, 400, "INVALID_PARAMETER"},
		{"parameter twice", "GET", "/v1/invoices?page=1&page=2", acme, 400, "INVALID_PARAMETER"},
		{"empty parameter", "GET", "/v1/invoices?status=", acme, 400, "INVALID_PARAMETER"},
		{"download without a file", "GET", "/v1/deliverables/d3/download", acme, 409, "FILE_NOT_AVAILABLE"},
		{"download of another organization's deliverable", "GET", "/v1/deliverables/db1/download", acme, 404, "NOT_FOUND"},
		{"a route outside the key's scopes", "GET", "/v1/projects", p3, 403, "INSUFFICIENT_SCOPE"},
		{"download of a deliverable outside the key's projects", "GET", "/v1/deliverables/d1/download", p3, 404, "NOT_FOUND"},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			res := call(t, tt.method, s.url+tt.path, tt.key)
			is.Equal(res.status, tt.status)
			is.Equal(res.errorCode(t), tt.code)
			is.Equal(res.header.Get("Content-Type"), "application/json; charset=utf-8")
			is.True(res.header.Get("X-Request-Id") != "") // every response carries a request id
		})
	}

	t.Run("401 says how to authenticate", func(t *testing.T) {
		is := is.New(t)
		res := call(t, "GET", s.url+"/v1/projects", "")
		is.True(strings.HasPrefix(res.header.Get("WWW-Authenticate"), "Bearer"))
	})
	t.Run("405 lists the allowed methods", func(t *testing.T) {
		is := is.New(t)
		res := call(t, "PUT", s.url+"/v1/projects/p1", acme)
		is.Equal(res.header.Get("Allow"), "GET, HEAD")
	})
	t.Run("HEAD has GET's headers and no body", func(t *testing.T) {
		is := is.New(t)
		res := call(t, "HEAD", s.url+"/v1/projects", bloom)
		is.Equal(res.status, 200)
		is.Equal(res.header.Get("Content-Type"), "application/json; charset=utf-8")
		is.Equal(len(res.body), 0)
	})
	t.Run("project fields", func(t *testing.T) {
		is := is.New(t)
		res := call(t, "GET", s.url+"/v1/projects/p2", acme)
		is.Equal(res.status, 200)
		data, _ := res.json(t)["data"].(map[string]any)
		updated, err := time.Parse(time.RFC3339, fmt.Sprint(data["updatedAt"]))
		is.NoErr(err)                                                                        // updatedAt is a time
		is.True(!updated.Before(loaded.Truncate(time.Second)) && !updated.After(time.Now())) // updatedAt is when the store took the item, not the file's
		delete(data, "updatedAt")
		is.Equal(data, map[string]any{
			"id": "p2", "name": "Mobile app", "status": "planned",
			"startedAt": nil, "dueAt": nil,
		}) // absent values are null, never omitted
	})
	t.Run("the scheme is case-insensitive", func(t *testing.T) {
		is := is.New(t)
		req, _ := http.NewRequest("GET", s.url+"/v1/projects", nil)
		req.Header.Set("Authorization", "bearer "+acme)
		is.Equal(do(t, req).status, 200)
	})
	t.Run("invoice pages hold every invoice exactly once", func(t *testing.T) {
		is := is.New(t)
		seen := map[string]bool{}
		for page := 1; page <= 4; page++ {
			res := call(t, "GET", fmt.Sprintf("%s/v1/invoices?limit=7&page=%d", s.url, page), acme)
			is.Equal(res.status, 200)
			p, perPage, total := res.meta(t)
			is.Equal([]int{p, perPage, total}, []int{page, 7, 25})
			for _, id := range res.ids(t) {
				is.True(!seen[id]) // an invoice on two pages
				seen[id] = true
			}
		}
		is.Equal(len(seen), 25)
	})
	t.Run("default and maximum page sizes", func(t *testing.T) {
		is := is.New(t)
		_, perPage, _ := call(t, "GET", s.url+"/v1/invoices", acme).meta(t)
		is.Equal(perPage, 20)
		res := call(t, "GET", s.url+"/v1/invoices?limit=100", acme)
		is.Equal(len(res.ids(t)), 25)
	})
	t.Run("rate-limit headers for limited plans only", func(t *testing.T) {
		is := is.New(t)
		is.Equal(call(t, "GET", s.url+"/v1/projects", acme).header.Get("X-RateLimit-Limit"), "300") // growth
		is.Equal(call(t, "GET", s.url+"/v1/projects", bloom).header.Get("X-RateLimit-Limit"), "")   // enterprise
	})
}

// TestDownload fetches a deliverable's file through its signed link, end
// to end, and checks that a changed link is refused.
func TestDownload(t *testing.T) {
	is := is.New(t)
	s := startServer(t, nil, "-data", contractFile)
	before := time.Now()
	res := call(t, "GET", s.url+"/v1/deliverables/d1/download", "key-acme-1")
	is.Equal(res.status, 200)
	data := res.json(t)["data"].(map[string]any)
	link := data["url"].(string)
	is.True(strings.HasPrefix(link, s.url+"/")) // links use the public URL
	expires, err := time.Parse(time.RFC3339, data["expiresAt"].(string))
	is.NoErr(err)
	is.True(expires.After(before.Add(14*time.Minute)) && !expires.After(time.Now().Add(15*time.Minute))) // valid 15 minutes

	file := call(t, "GET", link, "") // a link needs no key
	is.Equal(file.status, 200)
	is.Equal(string(file.body), "Home, About, Shop, Contact\n")
	is.Equal(file.header.Get("Content-Type"), "text/plain; charset=utf-8")

	u, err := url.Parse(link)
	is.NoErr(err)
	q := u.Query()
	for name, vals := range q {
		changed := *u
		q2 := u.Query()
		q2.Set(name, vals[0]+"x")
		changed.RawQuery = q2.Encode()
		res := call(t, "GET", changed.String(), "")
		is.Equal(res.status, 403) // a changed link is refused
		code := res.errorCode(t)
		is.True(code == "INVALID_SIGNATURE" || code == "LINK_EXPIRED")
	}
	other := call(t, "GET", s.url+"/v1/deliverables/d4/download", "key-acme-1")
	forged := strings.Replace(link, "d1", "d4", 1)
	is.True(forged != link)
	is.Equal(call(t, "GET", forged, "").status, 403) // one deliverable's signature opens no other
	is.Equal(other.status, 200)
}

// TestLinkFromAnyReplica checks that two servers with the same signing
// key serve each other's download links.
func TestLinkFromAnyReplica(t *testing.T) {
	is := is.New(t)
	env := map[string]string{envSigningKey: "the same 32-byte secret on every replica"}
	a := startServer(t, env, "-data", contractFile)
	b := startServer(t, env, "-data", contractFile)
	res := call(t, "GET", a.url+"/v1/deliverables/d2/download", "key-acme-1")
	is.Equal(res.status, 200)
	link := res.json(t)["data"].(map[string]any)["url"].(string)
	file := call(t, "GET", strings.Replace(link, a.url, b.url, 1), "")
	is.Equal(file.status, 200) // b verifies a's link
	is.Equal(string(file.body), "week,visits\n1,120\n2,135\n")

	c := startServer(t, nil, "-data", contractFile) // a random key of its own
	is.Equal(call(t, "GET", strings.Replace(link, a.url, c.url, 1), "").status, 403)
}

// TestUncleanPaths checks that paths a ServeMux would redirect (double
// slashes, dot segments) reach the API and get its JSON 404, not an HTML
// redirect.
func TestUncleanPaths(t *testing.T) {
	s := startServer(t, nil, "-data", contractFile)
	for _, path := range []string{"/v1//projects", "/v1/./projects", "/v1/projects/../invoices", "/v1/projects/..", "/v1/deliverables/../../etc/passwd/file"} {
		t.Run(path, func(t *testing.T) {
			is := is.New(t)
			req, err := http.NewRequest(http.MethodGet, s.url+path, nil)
			is.NoErr(err)
			req.URL.Opaque = path // send the path as it is, uncleaned
			req.Header.Set("Authorization", "Bearer key-acme-1")
			res := do(t, req)
			is.Equal(res.status, http.StatusNotFound) // not a redirect
			is.Equal(res.errorCode(t), "NOT_FOUND")   // the API's JSON answer
			is.True(res.header.Get("X-Request-Id") != "")
		})
	}
}

func TestHelp(t *testing.T) {
	is := is.New(t)
	var out syncBuffer
	err := run(context.Background(), []string{"-h"}, func(string) string { return "" }, &out, &out, hooks{})
	is.True(errors.Is(err, flag.ErrHelp))
	is.True(strings.Contains(out.String(), "-database-url")) // the flags are listed
}

func TestRateLimited(t *testing.T) {
	is := is.New(t)
	s := startServer(t, nil, "-data", contractFile)
	for i := 0; i < 60; i++ {
		res := call(t, "GET", s.url+"/v1/projects", "key-echo")
		is.Equal(res.status, 200) // starter: 60 a minute
	}
	res := call(t, "GET", s.url+"/v1/projects", "key-echo")
	is.Equal(res.status, 429)
	is.Equal(res.errorCode(t), "RATE_LIMITED")
	is.True(res.header.Get("Retry-After") != "")
	is.Equal(call(t, "GET", s.url+"/v1/projects", "key-acme-1").status, 200) // other organizations keep their budget
}

// TestLogsHoldNoSecrets checks that neither a key nor a link's signature
// reaches the log.
func TestLogsHoldNoSecrets(t *testing.T) {
	is := is.New(t)
	const secret = "signing-secret-0123456789abcdefghijklmnop"
	s := startServer(t, map[string]string{envSigningKey: secret}, "-data", contractFile, "-log-format", "json")
	res := call(t, "GET", s.url+"/v1/deliverables/d1/download", "key-acme-1")
	link := res.json(t)["data"].(map[string]any)["url"].(string)
	is.Equal(call(t, "GET", link, "").status, 200)
	call(t, "GET", s.url+"/v1/projects", "key-acme-revoked")
	u, _ := url.Parse(link)

	log := s.logged(t, `"path":"/v1/projects"`, 1) // requests are logged
	is.True(!strings.Contains(log, "key-acme"))    // no key in the log
	if u.RawQuery != "" {
		is.True(!strings.Contains(log, u.RawQuery)) // no signature in the log
	}
}

func TestDemoData(t *testing.T) {
	is := is.New(t)
	s := startServer(t, nil)
	out := s.stdout.String()
	is.True(strings.Contains(out, "curl -H \"Authorization: Bearer "+demoOrgs[0].key+"\" "+s.url+"/v1/projects"))
	for _, o := range demoOrgs {
		is.True(strings.Contains(out, o.key)) // every demo key is printed
		want := 200
		if !o.RetainerActive || !o.APIEnabled {
			want = 403
		}
		is.Equal(call(t, "GET", s.url+"/v1/projects", o.key).status, want)
	}
	// The demo data shows what the contract has: every project status,
	// files to download, invoices to page through.
	statuses := map[string]bool{}
	res := call(t, "GET", s.url+"/v1/projects?limit=100", demoOrgs[0].key)
	for _, p := range res.json(t)["data"].([]any) {
		statuses[p.(map[string]any)["status"].(string)] = true
	}
	is.Equal(len(statuses), 5) // projects in every state
	_, _, total := call(t, "GET", s.url+"/v1/invoices", demoOrgs[0].key).meta(t)
	is.True(total > 40) // enough invoices to page through
	dl := call(t, "GET", s.url+"/v1/deliverables?status=approved&limit=1", demoOrgs[0].key).ids(t)
	is.Equal(len(dl), 1)
	res = call(t, "GET", s.url+"/v1/deliverables/"+dl[0]+"/download", demoOrgs[0].key)
	is.Equal(res.status, 200)
	file := call(t, "GET", res.json(t)["data"].(map[string]any)["url"].(string), "")
	is.Equal(file.status, 200)
	is.True(len(file.body) > 0)

	// Threads: on projects and about the whole account, one resolved, an
	// internal one and an internal note nowhere to be seen, attachments
	// to download.
	key := demoOrgs[0].key
	threads := call(t, "GET", s.url+"/v1/threads?limit=100", key)
	is.Equal(threads.status, 200)
	byID := map[string]map[string]any{}
	for _, th := range threads.json(t)["data"].([]any) {
		byID[th.(map[string]any)["id"].(string)] = th.(map[string]any)
	}
	is.Equal(len(byID), 3)                            // the internal thread is absent
	is.Equal(byID["thr_acme_1"]["messageCount"], 3.0) // the internal note is not counted
	is.Equal(byID["thr_acme_2"]["status"], "resolved")
	is.Equal(byID["thr_acme_3"]["projectId"], nil) // about the whole account
	is.Equal(call(t, "GET", s.url+"/v1/threads/thr_acme_4", key).status, 404)
	msgs := call(t, "GET", s.url+"/v1/threads/thr_acme_2/messages", key).json(t)["data"].([]any)
	is.True(msgs[0].(map[string]any)["editedAt"] != nil) // an edited message
	res = call(t, "GET", s.url+"/v1/attachments/att_acme_1/download", key)
	is.Equal(res.status, 200)
	is.Equal(string(call(t, "GET", res.json(t)["data"].(map[string]any)["url"].(string), "").body), demoFiles[0].content)
	is.Equal(call(t, "GET", s.url+"/v1/attachments/att_acme_4/download", key).status, 404) // the internal thread's
}

// TestDemoDataIsValid runs the demo data through the checks a data file
// gets.
func TestDemoDataIsValid(t *testing.T) {
	is := is.New(t)
	ds := demoData()
	is.NoErr(ds.check())
	is.Equal(demoData(), ds) // the same on every call
}

// TestBadDataFile checks that a data file that does not parse, or refers
// to what it does not hold, stops the server with a message naming the
// item.
func TestBadDataFile(t *testing.T) {
	good, err := os.ReadFile(contractFile)
	if err != nil {
		t.Fatal(err)
	}
	// edit returns the contract file changed by f.
	edit := func(f func(d map[string]any)) string {
		var d map[string]any
		if err := json.Unmarshal(good, &d); err != nil {
			t.Fatal(err)
		}
		f(d)
		b, _ := json.Marshal(d)
		return string(b)
	}
	item := func(d map[string]any, section string, i int) map[string]any {
		return d[section].([]any)[i].(map[string]any)
	}
	tests := []struct {
		name, file, want string
	}{
		{"not JSON", `{"organizations": [`, "not valid JSON"},
		{"syntax error in an item", "{\"organizations\": [],\n \"invoices\": [{\"id\": \"i1\"},\n   {\"id\": \"i2\" \"number\": \"x\"}]}",
			`invoices[1], line 3, column 16: not valid JSON`},
		{"cut short in an item", `{"organizations": [{"id": "o1"}, {"id":`, `organizations[1], line 1, column 40: not valid JSON: it ends too soon`},
		{"empty", ``, "empty file"},
		{"two values", `{} {}`, "after the JSON value"},
		{"section name in the wrong case", `{"Projects": []}`, `unknown field "Projects": did you mean "projects"?`},
		{"item not an object", `{"projects": [1]}`, `projects[0]: want an object, not number`},
		{"field name in the wrong case", edit(func(d map[string]any) { item(d, "projects", 2)["dueat"] = nil }),
			`projects[2] (id "p3"): unknown field "dueat": did you mean "dueAt"?`},
		{"unknown organization", edit(func(d map[string]any) { item(d, "projects", 3)["orgId"] = "org_x" }),
			`projects[3] (id "p4"): unknown organization "org_x"`},
		{"unknown project", edit(func(d map[string]any) { item(d, "milestones", 1)["projectId"] = "p9" }),
			`milestones[1] (id "m2"): unknown project "p9"`},
		{"project of another organization", edit(func(d map[string]any) { item(d, "invoices", 0)["projectId"] = "pc1" }),
			`invoices[0] (id "i01"): project "pc1" belongs to organization "org_c", not "org_a"`},
		{"key of an unknown organization", edit(func(d map[string]any) { item(d, "apiKeys", 1)["orgId"] = "org_x" }),
			`apiKeys[1]: unknown organization "org_x"`},
		{"key with an unknown scope", edit(func(d map[string]any) { item(d, "apiKeys", 4)["scopes"] = []any{"invoices:write"} }),
			`apiKeys[4]: auth: invalid scope "invoices:write"`},
		{"key with no scope", edit(func(d map[string]any) { item(d, "apiKeys", 4)["scopes"] = []any{} }),
			`apiKeys[4]: auth: invalid restriction: an empty list of scopes`},
		{"key restricted to another organization's project", edit(func(d map[string]any) { item(d, "apiKeys", 4)["projectIds"] = []any{"pc1"} }),
			`apiKeys[4]: projectIds: organization "org_a" has no project "pc1"`},
		{"bad status", edit(func(d map[string]any) { item(d, "deliverables", 2)["status"] = "done" }),
			`deliverables[2] (id "d3"): store: deliverable "d3": status "done"`},
		{"bad plan", edit(func(d map[string]any) { item(d, "organizations", 1)["plan"] = "gold" }),
			`organizations[1] (id "org_b")`},
		{"bad time", edit(func(d map[string]any) { item(d, "invoices", 4)["issuedAt"] = "2026-02-30" }),
			`invoices[4] (id "i05"): issuedAt: "2026-02-30" is not an RFC 3339 time`},
		{"missing time", edit(func(d map[string]any) { delete(item(d, "milestones", 0), "dueAt") }),
			`milestones[0] (id "m1"): dueAt is required`},
		{"bad updatedAt, though the store sets its own", edit(func(d map[string]any) { item(d, "projects", 0)["updatedAt"] = "yesterday" }),
			`projects[0] (id "p1"): updatedAt: "yesterday" is not an RFC 3339 time`},
		{"amount not an integer", edit(func(d map[string]any) { item(d, "invoices", 2)["total"] = 12.5 }),
			`invoices[2] (id "i03"): total: number 12.5 is not an integer`},
		{"duplicate id", edit(func(d map[string]any) { item(d, "deliverables", 1)["id"] = "d1" }),
			`deliverables[1] (id "d1"): duplicate id in organization "org_a"`},
		{"size not that of content", edit(func(d map[string]any) { item(d, "deliverables", 0)["sizeBytes"] = 3 }),
			`deliverables[0] (id "d1"): sizeBytes 3 is not the length of content (27 bytes)`},
	}
	dir := t.TempDir()
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			name := filepath.Join(dir, fmt.Sprintf("bad%d.json", i))
			is.NoErr(os.WriteFile(name, []byte(tt.file), 0o600))
			err := startErr(t, "-data", name)
			is.True(strings.Contains(err.Error(), tt.want)) // the message names the item: see the next line
			t.Log(err)
			is.True(strings.Contains(err.Error(), name))    // and the file
			is.True(!strings.Contains(err.Error(), "key-")) // and never a key
		})
	}
}

// TestUnknownFieldsAreIgnored checks that fields the data-file format does
// not have are left out with a warning naming them, rather than stopping
// the server: a file written for a richer format still loads.
func TestUnknownFieldsAreIgnored(t *testing.T) {
	is := is.New(t)
	good, err := os.ReadFile(contractFile)
	is.NoErr(err)
	var d map[string]any
	is.NoErr(json.Unmarshal(good, &d))
	d["comment"] = "written by a newer tool"
	d["projects"].([]any)[0].(map[string]any)["owner"] = "someone"
	b, _ := json.Marshal(d)
	name := filepath.Join(t.TempDir(), "extra.json")
	is.NoErr(os.WriteFile(name, b, 0o600))

	s := startServer(t, nil, "-data", name)
	res := call(t, http.MethodGet, s.url+"/v1/projects/p1", "key-acme-1")
	is.Equal(res.status, http.StatusOK)                                           // the file loaded
	is.True(!strings.Contains(string(res.body), "owner"))                         // the unknown field is not served
	is.True(strings.Contains(s.stderr.String(), `projects[0] (id \"p1\").owner`)) // the warning names it
	is.True(strings.Contains(s.stderr.String(), "comment"))                       // and the file's own
}

func TestBadFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"missing data file", []string{"-data", "testdata/nope.json"}, "-data"},
		{"short signing key", []string{"-signing-key", "short"}, "-signing-key or $CLIENTSTATUS_SIGNING_KEY: statusapi: WithSigningKey: the key is 5 bytes"},
		{"link ttl under a second", []string{"-link-ttl", "10ms"}, "-link-ttl"},
		{"public URL not absolute", []string{"-public-url", "portal.example.com"}, "-public-url"},
		{"negative response cache", []string{"-response-cache-mb", "-1"}, "-response-cache-mb -1"},
		// Refused by the option before Redis is dialled: the flag is named.
		{"negative Redis timeout", []string{"-redis-url", "redis://127.0.0.1:1/0", "-redis-timeout", "-1s"}, "-redis-timeout -1s: ratelimit: WithTimeout: -1s is negative"},
		{"negative Redis timeout without Redis", []string{"-redis-timeout", "-1s"}, "-redis-timeout -1s"},
		{"negative sandbox interval", []string{"-sandbox-interval", "-1m"}, "-sandbox-interval -1m0s: sandbox: WithInterval"},
		{"unreachable Redis", []string{"-redis-url", "redis://127.0.0.1:1/0"}, "Redis does not answer"},
		{"Redis URL of another scheme", []string{"-redis-url", "http://user:secret@host"}, "-redis-url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			err := startErr(t, tt.args...)
			is.True(strings.Contains(err.Error(), tt.want))
			is.True(!strings.Contains(err.Error(), "secret")) // passwords in URLs are not repeated
		})
	}
}

// TestListensOnLoopback: by default the server, which prints public demo
// keys, listens on the loopback interface only, and names it localhost;
// -addr opens it wider.
func TestListensOnLoopback(t *testing.T) {
	is := is.New(t)
	cfg, err := parseConfig(nil, func(string) string { return "" }, io.Discard)
	is.NoErr(err)
	host, port, err := net.SplitHostPort(cfg.addr)
	is.NoErr(err)
	is.Equal(host, "127.0.0.1") // loopback only
	is.Equal(port, "8080")
	is.Equal(defaultPublicURL(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}), "http://localhost:8080")
	cfg, err = parseConfig([]string{"-addr", ":9090"}, func(string) string { return "" }, io.Discard)
	is.NoErr(err)
	is.Equal(cfg.addr, ":9090") // every interface, when asked
}
