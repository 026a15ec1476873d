package statusapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/internal/test/apitest"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/store"
)

// loggedAPI is the test API with a handler that records its requests.
func loggedAPI(t *testing.T) (*testAPI, *statusapi.RequestRecorder) {
	t.Helper()
	api := newTestAPIWith(t, unlimited)
	rec := statusapi.NewRequestRecorder(api.store)
	t.Cleanup(func() { _ = rec.Close(context.Background()) })
	api.handler = api.Replica(nil, statusapi.WithRequestLog(rec))
	return api, rec
}

// requestLogEntry is an item of GET /v1/request_logs.
type requestLogEntry struct {
	ID         string   `json:"id"`
	Method     string   `json:"method"`
	Path       string   `json:"path"`
	Route      string   `json:"route"`
	Query      []string `json:"query"`
	Status     int      `json:"status"`
	ErrorCode  *string  `json:"errorCode"`
	KeyID      *string  `json:"keyId"`
	DurationMs int64    `json:"durationMs"`
	CreatedAt  string   `json:"createdAt"`
}

func requestLogsOf(t *testing.T, res *httptest.ResponseRecorder) ([]requestLogEntry, int) {
	t.Helper()
	var body struct {
		Data []requestLogEntry   `json:"data"`
		Meta struct{ Total int } `json:"meta"`
	}
	if err := json.Unmarshal(res.Body.Bytes(), &body); err != nil {
		t.Fatalf("request log: %v: %s", err, res.Body)
	}
	return body.Data, body.Meta.Total
}

// keyIDOf returns the public id of org_a's test key name.
func keyIDOf(t *testing.T, api *testAPI, name string) string {
	t.Helper()
	keys, err := api.keys.List(context.Background(), "org_a")
	is.New(t).NoErr(err)
	for _, k := range keys {
		if k.Name == name {
			return k.ID
		}
	}
	t.Fatalf("no key %q", name)
	return ""
}

// TestRequestLog makes a 400 and other requests, then lists them: the
// 400's route, error code and query names without values; never a key;
// not the public routes, the refused credentials or the log itself; a
// restricted key sees its own requests only.
func TestRequestLog(t *testing.T) {
	is := is.New(t)
	api, rec := loggedAPI(t)
	step := func() { api.clock.Advance(time.Second) }

	bad := api.do("GET", "/v1/invoices?limit=500&status=paid", "a", "X-Request-Id", "bad-limit-1")
	is.Equal(bad.Code, 400)
	step()
	is.Equal(api.do("GET", "/v1/projects/p1", "a").Code, 200)
	step()
	is.Equal(api.do("GET", "/v1/openapi.json", "").Code, 200)      // public: not logged
	is.Equal(api.do("GET", "/v1/projects", "").Code, 401)          // no caller: not logged
	is.Equal(api.do("GET", "/v1/projects", "revoked").Code, 401)   // no caller: not logged
	is.Equal(api.do("GET", "/v1/request_logs", "a").Code, 200)     // the log itself: not logged
	is.Equal(api.do("HEAD", "/v1/request_logs", "a").Code, 200)    // nor its HEAD
	is.Equal(api.do("GET", "/v1/projects", "logs:read").Code, 403) // outside its scopes: logged
	step()
	is.NoErr(rec.Flush(context.Background()))

	res := api.do("GET", "/v1/request_logs", "a")
	is.Equal(res.Code, 200)
	for _, key := range api.KeyValues() {
		is.True(!strings.Contains(res.Body.String(), key)) // no key ever appears
	}
	is.True(!strings.Contains(res.Body.String(), "paid")) // no query value
	items, total := requestLogsOf(t, res)
	is.Equal(total, 3)
	is.Equal(len(items), 3)
	is.Equal(items[0].Status, 403) // newest first
	is.Equal(*items[0].ErrorCode, "INSUFFICIENT_SCOPE")
	is.Equal(*items[0].KeyID, keyIDOf(t, api, "logs:read"))
	is.Equal(items[1].Route, "/v1/projects/{id}")
	is.Equal(items[1].Path, "/v1/projects/p1")
	is.True(items[1].ErrorCode == nil) // null on success
	is.Equal(items[1].Query, []string{})

	got := items[2]
	is.Equal(got.ID, "bad-limit-1") // the request id
	is.Equal(got.Method, "GET")
	is.Equal(got.Path, "/v1/invoices")
	is.Equal(got.Route, "/v1/invoices")
	is.Equal(got.Query, []string{"limit", "status"}) // names only, sorted
	is.Equal(got.Status, 400)
	is.Equal(*got.ErrorCode, "INVALID_PARAMETER")
	is.Equal(*got.KeyID, keyIDOf(t, api, "a"))
	is.True(got.DurationMs >= 0)
	is.Equal(got.CreatedAt, now.Format(time.RFC3339)) // the handler's clock, to the second

	// Filters.
	for _, tc := range []struct {
		status string
		want   []int
	}{
		{"4xx", []int{403, 400}},
		{"400", []int{400}},
		{"200", []int{200}},
		{"5xx", nil},
	} {
		items, total := requestLogsOf(t, api.do("GET", "/v1/request_logs?status="+tc.status, "a"))
		var statuses []int
		for _, it := range items {
			statuses = append(statuses, it.Status)
		}
		is.Equal(statuses, tc.want) // status filter
		is.Equal(total, len(tc.want))
	}
	for _, v := range []string{"4XX", "abc", "99", "600", "4xx5", "040", "+40"} {
		res := api.do("GET", "/v1/request_logs?status="+v, "a")
		is.Equal(res.Code, 400) // a bad status
		is.Equal(errorOf(t, res).Error.Param, "status")
	}
	is.Equal(api.do("GET", "/v1/request_logs?since=2026-01-01T00:00:00Z", "a").Code, 400) // any other parameter

	// Paging.
	page2, total := requestLogsOf(t, api.do("GET", "/v1/request_logs?limit=2&page=2", "a"))
	is.Equal(total, 3)
	is.Equal(len(page2), 1)
	is.Equal(page2[0].ID, "bad-limit-1")

	// A restricted key sees only its own requests.
	mine, total := requestLogsOf(t, api.do("GET", "/v1/request_logs", "logs:read"))
	is.Equal(total, 1)
	is.Equal(mine[0].Status, 403)
	is.Equal(api.do("GET", "/v1/request_logs", "invoices:read").Code, 403) // the scope logs:read is needed

	// Another organization sees none of it.
	_, total = requestLogsOf(t, api.do("GET", "/v1/request_logs", "b"))
	is.Equal(total, 0)

	// The usage per key, for the portal.
	u, err := api.store.KeyUsage(context.Background(), "org_a", keyIDOf(t, api, "a"))
	is.NoErr(err)
	today := u.Days[len(u.Days)-1]
	is.Equal(today.Requests, int64(2)) // the 400 and the 200
	is.Equal(today.Errors, int64(1))
	is.Equal(*u.LastUsedAt, now.Add(time.Second).Truncate(time.Minute))
}

// gatedLog is a store.RequestLog whose appends wait for gate, and which
// counts its prunes.
type gatedLog struct {
	*memstore.Store

	mu      sync.Mutex
	gate    chan struct{} // nil: appends do not wait
	batches []int
	prunes  int
}

// hold makes appends wait until the function it returns is called.
func (g *gatedLog) hold() (release func()) {
	g.mu.Lock()
	defer g.mu.Unlock()
	gate := make(chan struct{})
	g.gate = gate
	return func() {
		g.mu.Lock()
		g.gate = nil
		g.mu.Unlock()
		close(gate)
	}
}

func (g *gatedLog) AppendRequests(ctx context.Context, records []store.RequestRecord) error {
	g.mu.Lock()
	gate := g.gate
	g.mu.Unlock()
	if gate != nil {
		<-gate
	}
	g.mu.Lock()
	g.batches = append(g.batches, len(records))
	g.mu.Unlock()
	return g.Store.AppendRequests(ctx, records)
}

func (g *gatedLog) PruneRequestLogs(ctx context.Context) (int, error) {
	g.mu.Lock()
	g.prunes++
	g.mu.Unlock()
	return g.Store.PruneRequestLogs(ctx)
}

func (g *gatedLog) seen() ([]int, int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]int(nil), g.batches...), g.prunes
}

// failingPrune is a request log whose retention job fails.
type failingPrune struct{ *memstore.Store }

func (failingPrune) PruneRequestLogs(context.Context) (int, error) {
	return 0, errors.New("disk full")
}

// TestRecorderLogsWhereTheHandlerDoes: a recorder given no logger of its
// own logs through the logger of the handler it is given to
// (WithLogger), so that a server sets its logger once.
func TestRecorderLogsWhereTheHandlerDoes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		is := is.New(t)
		var out bytes.Buffer
		var mu sync.Mutex
		logger := slog.New(slog.NewTextHandler(lockedWriter{&mu, &out}, nil))
		rec := statusapi.NewRequestRecorder(failingPrune{memstore.New()}, statusapi.WithRecorderPruneInterval(time.Hour))
		defer rec.Close(context.Background())
		apitest.Handler(memstore.New(), auth.ResolverFunc(func(context.Context, string) (auth.Principal, error) {
			return auth.Principal{}, auth.ErrInvalidKey
		}), nil, statusapi.WithLogger(logger), statusapi.WithRequestLog(rec))
		time.Sleep(time.Hour) // fake time (synctest): the retention job runs, and fails
		synctest.Wait()
		mu.Lock()
		defer mu.Unlock()
		is.True(strings.Contains(out.String(), "retention job failed")) // through the handler's logger
	})
}

// lockedWriter serializes writes to w.
type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestRequestRecorder checks the recorder's lifecycle on a fake clock: a
// request waits in the buffer until the flush interval or a full batch;
// a full buffer drops and counts rather than blocks; the retention job
// runs every prune interval; Close writes what is left and drops what
// comes after.
func TestRequestRecorder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		is := is.New(t)
		ctx := context.Background()
		st := memstore.New()
		org := store.Organization{ID: "org_a", Plan: store.PlanEnterprise, RetainerActive: true, APIEnabled: true}
		is.NoErr(st.PutOrganization(ctx, org))
		sink := &gatedLog{Store: st}
		rec := statusapi.NewRequestRecorder(sink, statusapi.WithRecorderBuffer(3), statusapi.WithRecorderBatch(2),
			statusapi.WithRecorderFlushInterval(time.Second), statusapi.WithRecorderPruneInterval(time.Hour))
		keys := auth.ResolverFunc(func(context.Context, string) (auth.Principal, error) {
			return auth.Principal{Org: org, KeyID: "k1"}, nil
		})
		h := apitest.Handler(st, keys, nil, statusapi.WithRequestLog(rec))
		get := func() {
			is.Equal(serveWith(t, h, apitest.NewRequest("GET", "/v1/projects?limit=5", "k")).Code, 200)
		}
		logged := func() int {
			p, err := st.ListRequestLogs(ctx, "org_a", store.RequestLogQuery{PageRequest: store.PageRequest{Page: 1, Limit: 100}})
			is.NoErr(err)
			return p.Total
		}

		get()
		synctest.Wait()
		is.Equal(logged(), 0)   // buffered: nothing written on the request's path
		time.Sleep(time.Second) // fake time (synctest): the flush interval passes at once
		synctest.Wait()
		is.Equal(logged(), 1) // written at the flush interval

		get()
		get()
		synctest.Wait()
		is.Equal(logged(), 3) // a full batch is written at once, without waiting for the interval

		// A sink that does not answer: the buffer fills, and then
		// requests are dropped and counted, never held.
		release := sink.hold()
		get()
		get() // a full batch: the flusher takes it and waits for the sink
		synctest.Wait()
		get()
		get()
		get() // the buffer (3) is full
		get()
		get()
		is.Equal(rec.Dropped(), int64(2)) // two requests not recorded
		release()
		synctest.Wait()
		time.Sleep(time.Second) // fake time (synctest)
		synctest.Wait()
		is.Equal(logged(), 3+2+3)

		_, prunes := sink.seen()
		is.Equal(prunes, 0)
		time.Sleep(time.Hour) // fake time (synctest)
		synctest.Wait()
		_, prunes = sink.seen()
		is.Equal(prunes, 1) // the retention job, once an hour

		get()
		is.NoErr(rec.Close(ctx))
		is.Equal(logged(), 3+2+3+1) // Close writes what is left
		get()
		is.Equal(rec.Dropped(), int64(3)) // after Close, requests are dropped
		is.NoErr(rec.Close(ctx))          // twice is fine
		batches, _ := sink.seen()
		for _, n := range batches {
			is.True(n <= 2) // no batch over WithRecorderBatch
		}
	})
}

// The store failures of conventions_test.go also fail the request log.

func (s failStore) AppendRequests(context.Context, []store.RequestRecord) error { return s.err }
func (s failStore) ListRequestLogs(context.Context, string, store.RequestLogQuery) (store.Page[store.RequestRecord], error) {
	return store.Page[store.RequestRecord]{}, s.err
}
func (s failStore) KeyUsage(context.Context, string, string) (store.Usage, error) {
	return store.Usage{}, s.err
}
func (s failStore) PruneRequestLogs(context.Context) (int, error) { return 0, s.err }

func (b blockingStore) AppendRequests(ctx context.Context, _ []store.RequestRecord) error {
	return b.wait(ctx)
}
func (b blockingStore) ListRequestLogs(ctx context.Context, _ string, _ store.RequestLogQuery) (store.Page[store.RequestRecord], error) {
	return store.Page[store.RequestRecord]{}, b.wait(ctx)
}
func (b blockingStore) KeyUsage(ctx context.Context, _, _ string) (store.Usage, error) {
	return store.Usage{}, b.wait(ctx)
}
func (b blockingStore) PruneRequestLogs(ctx context.Context) (int, error) { return 0, b.wait(ctx) }

// BenchmarkRequestLog measures the cost of the request log on the request
// path: BenchmarkCachedPage's request, with a recorder on the memory
// store (flushed in the background) and without. Compare ns/op and
// allocs/op of the two.
//
// The allocations of the background writes are counted too (B/op and
// allocs/op count the whole process): "on-discard" writes to a sink that
// keeps nothing, so that it shows the request path's own cost.
func BenchmarkRequestLog(b *testing.B) {
	for _, name := range []string{"off", "on", "on-discard"} {
		on := name != "off"
		b.Run(name, func(b *testing.B) {
			api := newTestAPIWith(b, unlimited)
			cache := auth.NewCache(api.keys)
			b.Cleanup(func() { _ = cache.Close() })
			opts := []statusapi.Option{statusapi.WithPublicURL("https://portal.example.com/api")}
			if on {
				var sink store.RequestLog = api.store
				if name == "on-discard" {
					sink = discardLog{api.store}
				}
				rec := statusapi.NewRequestRecorder(sink)
				b.Cleanup(func() { _ = rec.Close(context.Background()) })
				opts = append(opts, statusapi.WithRequestLog(rec))
			}
			h := apitest.Handler(api.store, cache, ratelimit.NewMemory(ratelimit.WithRate(store.PlanStarter, ratelimit.Unlimited)), opts...)
			discardEach(b, h, pageRequest(api))
		})
	}
}

// discardLog is a store.RequestLog that keeps nothing.
type discardLog struct{ *memstore.Store }

func (discardLog) AppendRequests(context.Context, []store.RequestRecord) error { return nil }
