package statusapi_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/statusapi"
)

// observed collects what an observer receives.
type observed struct {
	mu    sync.Mutex
	infos []statusapi.RequestInfo
}

func (o *observed) observe(_ *http.Request, info statusapi.RequestInfo) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.infos = append(o.infos, info)
}

func (o *observed) last() statusapi.RequestInfo {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.infos[len(o.infos)-1]
}

func TestObserver(t *testing.T) {
	obs := &observed{}
	a := newTestAPI(t, statusapi.WithObserver(obs.observe))
	for _, tc := range []struct {
		name, target, key   string
		route, org, keyName string
		status              int
		code, reason        string
	}{
		{"item", "/v1/projects/p1", "a", "/v1/projects/{id}", "org_a", "a", 200, "", ""},
		{"list", "/v1/invoices?limit=2", "b", "/v1/invoices", "org_b", "b", 200, "", ""},
		{"not found", "/v1/projects/nope", "a", "/v1/projects/{id}", "org_a", "a", 404, "NOT_FOUND", ""},
		{"revoked key", "/v1/projects", "revoked", "/v1/projects", "", "", 401, "UNAUTHORIZED", "revoked"},
		{"no such route", "/v1/nothing", "a", "", "", "", 404, "NOT_FOUND", ""},
		{"bad parameter", "/v1/invoices?status=PAID", "a", "/v1/invoices", "org_a", "a", 400, "INVALID_PARAMETER", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			res := a.do("GET", tc.target, tc.key)
			info := obs.last()
			is.Equal(info.Route, tc.route)   // the pattern, not the path
			is.Equal(info.Method, "GET")     // the method
			is.Equal(info.Status, tc.status) // the status sent
			is.Equal(res.Code, tc.status)
			is.Equal(info.ErrorCode, tc.code)                                      // the envelope's code
			is.Equal(info.OrgID, tc.org)                                           // the caller's organization
			is.Equal(info.RequestID, res.Header().Get("X-Request-Id"))             // the request id
			is.Equal(info.Bytes, int64(res.Body.Len()))                            // the bytes sent
			is.True(strings.Contains(info.Reason, tc.reason))                      // why it was refused
			is.True(info.Duration > 0 && !info.Start.IsZero())                     // timed
			is.True(tc.key == "" || !strings.Contains(info.Reason, a.Key(tc.key))) // never the key
			if tc.keyName != "" {
				is.True(strings.HasPrefix(info.KeyID, "key_")) // the key's id
			}
		})
	}
	is := is.New(t)
	a.do("GET", "/v1/projects", "a")
	is.True(obs.last().RateLimit.Limited) // the limiter's decision, for metrics
}

// TestTrack shows that middleware around a mounted handler reads the
// route and the caller of a request, which its own request cannot show.
func TestTrack(t *testing.T) {
	is := is.New(t)
	a := newTestAPI(t)
	var got *statusapi.RequestInfo
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", a.handler))
	outer := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r, info := statusapi.Track(r)
		mux.ServeHTTP(w, r)
		got = info
	})
	req := a.Request("GET", "/api/v1/projects/p1/milestones", "b")
	res := httptest.NewRecorder()
	outer.ServeHTTP(res, req)
	is.Equal(res.Code, 200)
	is.Equal(got.Route, "/v1/projects/{id}/milestones") // the inner pattern
	is.Equal(got.OrgID, "org_b")                        // who called
	is.Equal(got.Status, 200)
}

func TestCORS(t *testing.T) {
	a := newTestAPI(t, statusapi.WithCORS("https://dash.example"))
	t.Run("allowed origin", func(t *testing.T) {
		is := is.New(t)
		res := a.do("GET", "/v1/projects", "a", "Origin", "https://dash.example")
		is.Equal(res.Code, 200)
		is.Equal(res.Header().Get("Access-Control-Allow-Origin"), "https://dash.example")      // the origin, not *
		is.True(strings.Contains(res.Header().Get("Access-Control-Expose-Headers"), "ETag"))   // readable headers
		is.True(strings.Contains(res.Header().Get("Access-Control-Expose-Headers"), "X-Rate")) // rate limits too
		is.Equal(res.Header().Get("Access-Control-Allow-Credentials"), "")                     // never cookies
		is.True(strings.Contains(strings.Join(res.Header().Values("Vary"), ","), "Origin"))    // caches keep origins apart
	})
	t.Run("errors carry it too", func(t *testing.T) {
		is := is.New(t)
		res := a.do("GET", "/v1/projects", "", "Origin", "https://dash.example")
		is.Equal(res.Code, 401)
		is.Equal(res.Header().Get("Access-Control-Allow-Origin"), "https://dash.example") // the page can read the error
	})
	t.Run("preflight", func(t *testing.T) {
		is := is.New(t)
		req := httptest.NewRequest("OPTIONS", "/v1/invoices", nil)
		req.Header.Set("Origin", "https://dash.example")
		req.Header.Set("Access-Control-Request-Method", "GET")
		req.Header.Set("Access-Control-Request-Headers", "authorization")
		res := httptest.NewRecorder()
		a.handler.ServeHTTP(res, req)
		is.Equal(res.Code, 204)
		is.Equal(res.Header().Get("Access-Control-Allow-Methods"), "GET, HEAD")
		is.True(strings.Contains(res.Header().Get("Access-Control-Allow-Headers"), "Authorization"))
	})
	t.Run("other origin", func(t *testing.T) {
		is := is.New(t)
		res := a.do("GET", "/v1/projects", "a", "Origin", "https://evil.example")
		is.Equal(res.Code, 200)
		is.Equal(res.Header().Get("Access-Control-Allow-Origin"), "") // the browser refuses it
		req := httptest.NewRequest("OPTIONS", "/v1/invoices", nil)
		req.Header.Set("Origin", "https://evil.example")
		req.Header.Set("Access-Control-Request-Method", "GET")
		pre := httptest.NewRecorder()
		a.handler.ServeHTTP(pre, req)
		is.Equal(pre.Code, 405) // no preflight for it
	})
	t.Run("off by default", func(t *testing.T) {
		is := is.New(t)
		res := newTestAPI(t).do("GET", "/v1/projects", "a", "Origin", "https://dash.example")
		is.Equal(res.Header().Get("Access-Control-Allow-Origin"), "")
	})
}
