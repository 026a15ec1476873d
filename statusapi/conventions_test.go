package statusapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/store"
	"github.com/clientstatus/clientstatus/storetest"
)

// table is every route of a handler with every opt-in option, as the
// handler's one table of routes declares it (statusapi.RouteTable, in
// routes.go): so that a new route is tested here or the tests fail.
var table = routeTable()

// routes are a request to every route that takes a key, one that succeeds
// with test key "a": the examples the table declares.
var routes = exampleRequests()

// allOptIns are the options of every opt-in route, as the test harness
// gives them. Routes only asks whether a recorder is given, so an idle
// one stands for it.
func allOptIns() []statusapi.Option {
	return []statusapi.Option{statusapi.WithWebhookEndpoints(memstore.New()),
		statusapi.WithRequestLog(new(statusapi.RequestRecorder))}
}

// routeTable reads the table and refuses a route that declares neither
// an example request nor why it has none, an example of a route that
// takes no key, and an example that the route's pattern does not match.
func routeTable() []statusapi.RouteInfo {
	all := statusapi.RouteTable(allOptIns()...)
	for _, rt := range all {
		switch {
		case (rt.Example == "") == (rt.Exempt == ""):
			panic("statusapi tests: route " + rt.Pattern + " declares no example request (or both an example and an exemption): give it one in its table entry (see route in routes.go), or exemptBecause naming the test that covers it")
		case rt.Example != "" && !rt.Keyed:
			panic("statusapi tests: route " + rt.Pattern + " takes no key, and so no example: the shared tests send keys")
		case rt.Example != "" && !patternMatches(rt.Pattern, rt.Example):
			panic("statusapi tests: the example request " + rt.Example + " is not one of route " + rt.Pattern)
		}
	}
	return all
}

// patternMatches reports whether target's path is one of pattern's: the
// same segments, a wildcard {name} matching any one.
func patternMatches(pattern, target string) bool {
	path, _, _ := strings.Cut(target, "?")
	want, got := strings.Split(pattern, "/"), strings.Split(path, "/")
	if len(want) != len(got) {
		return false
	}
	for i, seg := range want {
		if seg != got[i] && !(strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") && got[i] != "") {
			return false
		}
	}
	return true
}

func exampleRequests() []string {
	var out []string
	for _, rt := range table {
		if rt.Example != "" {
			out = append(out, rt.Example)
		}
	}
	return out
}

func TestContentTypeAndEnvelope(t *testing.T) {
	api := newTestAPI(t)
	for _, path := range routes {
		t.Run(path, func(t *testing.T) {
			is := is.New(t)
			res := api.do("GET", path, "a")
			is.Equal(res.Code, 200)
			is.Equal(res.Header().Get("Content-Type"), "application/json; charset=utf-8")
			var body map[string]json.RawMessage
			is.NoErr(json.Unmarshal(res.Body.Bytes(), &body))
			_, hasData := body["data"]
			is.True(hasData) // success has data
			base, _, _ := strings.Cut(path, "?")
			isList := strings.HasSuffix(base, "s") // /v1/projects, /v1/threads/t1/messages; not /v1/projects/p1 nor a download link
			if isList {
				is.Equal(len(body), 2) // a list has data and meta only
				var meta map[string]any
				is.NoErr(json.Unmarshal(body["meta"], &meta))
				keys := 3 // meta has page, per_page, total
				if strings.Contains(path, "since=") || strings.Contains(path, "Since=") {
					keys = 5 // and syncedThrough and next on a page of changes
					is.True(meta["syncedThrough"] != nil)
					_, hasNext := meta["next"]
					is.True(hasNext) // next, a cursor or null, on a page of changes
				}
				is.Equal(len(meta), keys)
				is.True(body["data"][0] == '[')
			} else {
				is.Equal(len(body), 1) // a single item has data only
				is.True(body["data"][0] == '{')
			}
		})
	}
}

// wireKeys are the keys of every item type, always all present.
var wireKeys = map[string][]string{
	"/v1/projects":               {"id", "name", "status", "startedAt", "dueAt", "updatedAt"},
	"/v1/projects/p1/milestones": {"id", "projectId", "name", "status", "dueAt", "completedAt", "updatedAt"},
	"/v1/deliverables":           {"id", "projectId", "name", "status", "fileName", "contentType", "sizeBytes", "createdAt", "updatedAt"},
	"/v1/invoices":               {"id", "number", "projectId", "status", "currency", "total", "amountDue", "issuedAt", "dueAt", "paidAt", "documentAvailable", "updatedAt"},
}

var timestampRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$`)

func TestItemsHaveEveryKeyAndTimestampsAreUTCSeconds(t *testing.T) {
	api := newTestAPI(t)
	for path, keys := range wireKeys {
		t.Run(path, func(t *testing.T) {
			is := is.New(t)
			l := listOf(t, api.do("GET", path+"?limit=100", "a"))
			sawNull := false
			for _, it := range l.Data {
				is.Equal(len(it), len(keys)) // no key beyond the contract's
				for _, k := range keys {
					v, ok := it[k]
					is.True(ok) // every key present, even when null
					if v == nil {
						sawNull = true
					}
					if s, isStr := v.(string); isStr && strings.HasSuffix(k, "At") {
						is.True(timestampRE.MatchString(s)) // RFC 3339, UTC, whole seconds
					}
				}
			}
			is.True(sawNull) // the test data has a null in every type
		})
	}
}

func TestNullableKeysAreNull(t *testing.T) {
	is := is.New(t)
	api := newTestAPI(t)
	p := item(t, api.do("GET", "/v1/projects/p3", "a"))
	is.Equal(p["startedAt"], nil) // not started: null
	is.Equal(p["dueAt"], nil)     // open-ended: null

	l := listOf(t, api.do("GET", "/v1/deliverables", "a"))
	d2 := l.Data[2]
	is.Equal(d2["id"], "d2")
	is.Equal(d2["fileName"], nil)    // no file yet
	is.Equal(d2["contentType"], nil) // no file yet
	is.Equal(d2["sizeBytes"], nil)   // no file yet
}

func TestTimestampFormat(t *testing.T) {
	is := is.New(t)
	api := newTestAPI(t)
	p := item(t, api.do("GET", "/v1/projects/p1", "a"))
	// Stored as 2026-01-05T10:00:00.5+01:00; updated (by the store) at t0.
	is.Equal(p["startedAt"], "2026-01-05T09:00:00Z") // UTC, truncated to the second
	is.Equal(p["updatedAt"], "2026-03-01T09:00:00Z") // UTC
}

func TestMoney(t *testing.T) {
	is := is.New(t)
	api := newTestAPI(t)
	res := api.do("GET", "/v1/invoices?limit=1", "a")
	is.Equal(res.Code, 200)
	// i25: total 250000 cents, EUR, void, retainer (no project).
	is.True(strings.Contains(res.Body.String(), `"currency":"EUR","total":250000,"amountDue":250000`)) // integer minor units and a currency
}

func TestAnotherOrganizationsIDIsNotFound(t *testing.T) {
	api := newTestAPI(t)
	for _, tc := range []struct {
		name, path, key string
	}{
		{"colliding id shows own data", "/v1/projects/p1", ""},
		{"project of another org", "/v1/projects/pb", "a"},
		{"project that does not exist", "/v1/projects/nope", "a"},
		{"milestones of another org's project", "/v1/projects/pb/milestones", "a"},
		{"milestones of unknown project", "/v1/projects/nope/milestones", "a"},
		{"download of another org's deliverable", "/v1/deliverables/db/download", "a"},
		{"download of unknown deliverable", "/v1/deliverables/nope/download", "a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			if tc.key == "" {
				p := item(t, api.do("GET", tc.path, "b"))
				is.Equal(p["name"], "B's secret") // org_b sees its own p1
				p = item(t, api.do("GET", tc.path, "a"))
				is.Equal(p["name"], "Website") // org_a sees its own p1
				return
			}
			res := api.do("GET", tc.path, tc.key)
			is.Equal(res.Code, 404) // another org's id answers as one that does not exist
			e := errorOf(t, res)
			is.Equal(e.Error.Code, "NOT_FOUND")
		})
	}
	t.Run("same answer for another org's id and a missing one", func(t *testing.T) {
		is := is.New(t)
		other := api.do("GET", "/v1/projects/pb", "a", "X-Request-Id", "same")
		missing := api.do("GET", "/v1/projects/nope", "a", "X-Request-Id", "same")
		is.Equal(other.Body.String(), missing.Body.String()) // nothing tells them apart
	})
	t.Run("lists hold only the org's items", func(t *testing.T) {
		is := is.New(t)
		l := listOf(t, api.do("GET", "/v1/invoices?limit=100", "b"))
		is.Equal(l.ids(), []string{"i01"}) // org_b's one invoice
		is.Equal(l.Data[0]["number"], "B-1")
	})
}

func TestRequestID(t *testing.T) {
	api := newTestAPI(t)
	generated := regexp.MustCompile(`^[0-9a-f]{32}$`)
	long := strings.Repeat("a", 128)
	for _, tc := range []struct {
		name, sent string
		kept       bool
	}{
		{"none sent", "", false},
		{"sane one kept", "req-1.2_3:abc", true},
		{"128 chars kept", long, true},
		{"129 chars replaced", long + "a", false},
		{"space replaced", "a b", false},
		{"slash replaced", "a/b", false},
		{"non-ASCII replaced", "é", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			var hdr []string
			if tc.sent != "" {
				hdr = []string{"X-Request-Id", tc.sent}
			}
			for _, path := range []string{"/v1/projects", "/v1/nope"} {
				res := api.do("GET", path, "a", hdr...)
				id := res.Header().Get("X-Request-Id")
				if tc.kept {
					is.Equal(id, tc.sent) // the client's id is echoed
				} else {
					is.True(generated.MatchString(id)) // a new id: 32 hex digits
				}
				if res.Code != 200 {
					is.Equal(errorOf(t, res).Error.RequestID, id) // error.request_id is the header's
				}
			}
		})
	}
	t.Run("each request gets its own", func(t *testing.T) {
		is := is.New(t)
		a := api.do("GET", "/v1/projects", "a").Header().Get("X-Request-Id")
		b := api.do("GET", "/v1/projects", "a").Header().Get("X-Request-Id")
		is.True(a != b)
	})
	t.Run("two headers replaced", func(t *testing.T) {
		is := is.New(t)
		res := api.do("GET", "/v1/projects", "a", "X-Request-Id", "one", "X-Request-Id", "two")
		is.True(generated.MatchString(res.Header().Get("X-Request-Id")))
	})
}

func TestHead(t *testing.T) {
	api := newTestAPI(t)
	for _, path := range append(routes, "/v1/projects/nope", "/v1/nope", "/v1/invoices?page=0") {
		t.Run(path, func(t *testing.T) {
			is := is.New(t)
			get := api.do("GET", path, "a", "X-Request-Id", "r1")
			head := api.do("HEAD", path, "a", "X-Request-Id", "r1")
			is.Equal(head.Code, get.Code)                                             // same status
			is.Equal(head.Body.Len(), 0)                                              // no body
			is.Equal(head.Header().Get("Content-Length"), fmt.Sprint(get.Body.Len())) // the GET body's length
			for _, h := range []string{"Content-Type", "X-Request-Id", "Cache-Control", "Allow", "WWW-Authenticate"} {
				is.Equal(head.Header().Get(h), get.Header().Get(h)) // same headers
			}
		})
	}
}

func TestMethodNotAllowed(t *testing.T) {
	api := newTestAPI(t)
	for _, path := range append(routes, "/v1/deliverables/d1/file") {
		for _, method := range []string{"POST", "PUT", "DELETE", "PATCH", "OPTIONS"} {
			t.Run(method+" "+path, func(t *testing.T) {
				is := is.New(t)
				res := api.do(method, path, "a")
				is.Equal(res.Code, 405)
				is.Equal(res.Header().Get("Allow"), "GET, HEAD")
				is.Equal(errorOf(t, res).Error.Code, "METHOD_NOT_ALLOWED")
			})
		}
	}
	t.Run("not counted against the limit", func(t *testing.T) {
		is := is.New(t)
		res := api.do("POST", "/v1/projects", "a")
		is.Equal(res.Header().Get("X-RateLimit-Limit"), "") // routing comes before the limit
	})
}

func TestUnknownRoutes(t *testing.T) {
	api := newTestAPI(t)
	for _, path := range []string{
		"/", "/v1", "/v1/", "/v2/projects", "/v1/nope", "/v1/projects/", "/v1/projects/p1/",
		"/v1/projects/p1/nope", "/v1//projects", "/v1/projects/../invoices", "/v1/deliverables/d1/nope",
		"/V1/projects", "/favicon.ico",
	} {
		for _, key := range []string{"a", ""} {
			t.Run(path+" "+key, func(t *testing.T) {
				is := is.New(t)
				res := api.do("GET", path, key)
				is.Equal(res.Code, 404)
				is.Equal(errorOf(t, res).Error.Code, "NOT_FOUND") // JSON, not the mux's text
			})
		}
	}
}

func TestPanicIsInternalWithoutInternals(t *testing.T) {
	is := is.New(t)
	api := newTestAPIWith(t, setup{wrap: func(st store.Store) store.Store { return panicStore{st} }})
	res := api.do("GET", "/v1/projects", "a", "X-Request-Id", "panic-1")
	is.Equal(res.Code, 500)
	e := errorOf(t, res)
	is.Equal(e.Error.Code, "INTERNAL")
	is.Equal(e.Error.Message, "internal error")                       // generic
	is.True(!strings.Contains(res.Body.String(), "secret internals")) // no panic value
	is.True(!strings.Contains(res.Body.String(), "goroutine"))        // no stack
	logs := api.logs.String()
	is.True(strings.Contains(logs, "secret internals")) // the panic is logged
	is.True(strings.Contains(logs, "panic-1"))          // with the request id
	is.True(strings.Contains(logs, "panicStore"))       // and the stack
	is.True(!strings.Contains(logs, api.Key("a")))      // never the key

	res = api.do("GET", "/v1/invoices", "a")
	is.Equal(res.Code, 200) // the handler keeps serving
}

type panicStore struct{ store.Store }

func (panicStore) ListProjects(context.Context, string, store.ProjectQuery) (store.Page[store.Project], error) {
	panic("secret internals")
}

// failing is a store whose every read fails, its request log and webhook
// endpoints too.
type failing interface {
	store.Store
	store.RequestLog
	store.WebhookEndpoints
}

// failStore fails every read with err (Ping too): each of store.Store's
// reads, through storetest.Unimplemented, and those of the request log
// and webhook endpoints.
type failStore struct {
	storetest.Unimplemented
	err error
}

func newFailStore(err error) failStore {
	return failStore{Unimplemented: storetest.Unimplemented{Err: func(context.Context, string) error { return err }}, err: err}
}

func (s failStore) Ping(context.Context) error { return s.err }

// blockingStore answers every read only when ctx is done.
type blockingStore struct{ storetest.Unimplemented }

func newBlockingStore() blockingStore {
	return blockingStore{storetest.Unimplemented{Err: func(ctx context.Context, _ string) error { return blockingStore{}.wait(ctx) }}}
}

func (blockingStore) wait(ctx context.Context) error {
	<-ctx.Done()
	return fmt.Errorf("memory: %w", ctx.Err())
}

// TestStoreFailures runs every route, the signed file link included,
// against a store that fails: an unexpected error is 500 INTERNAL with its
// cause logged, never sent; an unreachable or slow store is 503. Only the
// slow store's case has a short request timeout, which it is about (a
// blocked store answers 503 however loaded the machine is); the others'
// cannot pass while the test runs, so that a slow machine does not turn
// their answer into the timeout's 503.
func TestStoreFailures(t *testing.T) {
	for _, tc := range []struct {
		name, code string
		status     int
		st         failing
		timeout    time.Duration
	}{
		{"unexpected error", "INTERNAL", 500, newFailStore(errors.New("pq: relation secret_table does not exist")), time.Hour},
		{"ErrUnavailable", "UNAVAILABLE", 503, newFailStore(fmt.Errorf("bunstore: dial tcp secret_host: %w", store.ErrUnavailable)), time.Hour},
		{"deadline", "UNAVAILABLE", 503, newFailStore(fmt.Errorf("bunstore: secret_table: %w", context.DeadlineExceeded)), time.Hour},
		{"timeout", "UNAVAILABLE", 503, newBlockingStore(), 10 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			healthy := newTestAPI(t)
			link, _ := healthy.link("d1")
			// A replica with the same signing key whose store fails,
			// the request log and webhook endpoints too (a recorder that
			// never flushes while the test runs).
			rec := statusapi.NewRequestRecorder(tc.st, statusapi.WithRecorderFlushInterval(time.Hour))
			t.Cleanup(func() {
				done, cancel := context.WithCancel(context.Background())
				cancel()
				_ = rec.Close(done)
			})
			api := newTestAPIWith(t, setup{wrap: func(store.Store) store.Store { return tc.st }},
				statusapi.WithTimeout(tc.timeout), statusapi.WithRequestLog(rec), statusapi.WithWebhookEndpoints(tc.st))
			attachment, _ := healthy.attachmentLink("att1")
			document, _ := healthy.downloadLink("/v1/invoices/i24/document")
			for _, target := range append(routes, link.RequestURI(), attachment.RequestURI(), document.RequestURI()) {
				is := is.New(t)
				res := api.do("GET", target, "a", "X-Request-Id", "fail-1")
				is.Equal(res.Code, tc.status) // status of target
				e := errorOf(t, res)
				is.Equal(e.Error.Code, tc.code)
				is.True(!strings.Contains(res.Body.String(), "secret_")) // no internals
				if tc.status == 503 {
					is.Equal(res.Header().Get("Retry-After"), "1") // a 503 says when to retry
				} else {
					is.Equal(res.Header().Get("Retry-After"), "") // only a 503 does
				}
			}
			if tc.status == 500 {
				is := is.New(t)
				is.True(strings.Contains(api.logs.String(), "secret_table")) // the cause is logged
				is.True(strings.Contains(api.logs.String(), "fail-1"))       // with the request id
			}
		})
	}
}

func TestCacheHeaders(t *testing.T) {
	is := is.New(t)
	api := newTestAPI(t)
	res := api.do("GET", "/v1/projects", "a")
	is.Equal(res.Header().Get("Cache-Control"), "private, no-cache") // a client's own cache may revalidate
	is.Equal(res.Header().Get("Vary"), "Authorization")
	res = api.do("GET", "/v1/projects/nope", "a")
	is.Equal(res.Header().Get("Cache-Control"), "no-store") // errors are never stored
	res = api.do("GET", "/v1/deliverables/d1/download", "a")
	is.Equal(res.Header().Get("Cache-Control"), "no-store") // a link is a credential
}

func TestClientGoneWritesNothing(t *testing.T) {
	is := is.New(t)
	api := newTestAPIWith(t, setup{wrap: func(st store.Store) store.Store { return newBlockingStore() }})
	ctx, cancel := context.WithCancel(context.Background())
	req := api.Request("GET", "/v1/invoices", "a").WithContext(ctx)
	cancel()
	// Not through api.serve: nothing is answered, so there is no response
	// to check against the document.
	res := httptest.NewRecorder()
	api.handler.ServeHTTP(res, req)
	is.Equal(res.Body.Len(), 0)                                  // nobody is there to read an error
	is.True(!strings.Contains(api.logs.String(), "level=ERROR")) // nor is it an error worth logging
}
