package statusclient_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/clientstatus/clientstatus/statusclient"
)

// fakeAPI is a small /v1 server written from the wire contract alone, so the
// client can be tested without the real handler: bearer auth, the list
// parameters and their errors, paging with meta, 404s, X-Request-Id. Its
// items are the client's own types; decoding of the contract's literal JSON
// is tested separately, against bodies written by hand.
type fakeAPI struct {
	key          string
	projects     []statusclient.Project
	milestones   map[string][]statusclient.Milestone
	deliverables []statusclient.Deliverable
	links        map[string]statusclient.DownloadLink // deliverable id -> link; absent: no file
	invoices     []statusclient.Invoice
	threads      []statusclient.Thread  // nil: the server holds no threads, and their routes are 404
	messages     []statusclient.Message // in the contract's order (CreatedAt, then ID)

	mu       sync.Mutex
	requests []string // request URIs, in order
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r.URL.RequestURI())
	n := len(f.requests)
	f.mu.Unlock()
	w.Header().Set("X-Request-Id", "req-"+strconv.Itoa(n))
	if r.Header.Get("Authorization") != "Bearer "+f.key {
		w.Header().Set("WWW-Authenticate", "Bearer")
		writeError(w, http.StatusUnauthorized, "UNAUTHORIZED", "invalid API key", "")
		return
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/projects", func(w http.ResponseWriter, r *http.Request) {
		servePage(w, r, f.projects, func(p statusclient.Project) bool {
			return matches(r, "status", string(p.Status))
		}, "status")
	})
	mux.HandleFunc("GET /v1/projects/{id}", func(w http.ResponseWriter, r *http.Request) {
		i := slices.IndexFunc(f.projects, func(p statusclient.Project) bool { return p.ID == r.PathValue("id") })
		if i < 0 {
			writeError(w, http.StatusNotFound, "NOT_FOUND", "no such project", "")
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"data": f.projects[i]})
	})
	mux.HandleFunc("GET /v1/projects/{id}/milestones", func(w http.ResponseWriter, r *http.Request) {
		ms, ok := f.milestones[r.PathValue("id")]
		if !ok {
			writeError(w, http.StatusNotFound, "NOT_FOUND", "no such project", "")
			return
		}
		servePage(w, r, ms, func(m statusclient.Milestone) bool {
			return matches(r, "status", string(m.Status))
		}, "status")
	})
	mux.HandleFunc("GET /v1/deliverables", func(w http.ResponseWriter, r *http.Request) {
		servePage(w, r, f.deliverables, func(d statusclient.Deliverable) bool {
			return matches(r, "status", string(d.Status)) && matches(r, "projectId", d.ProjectID)
		}, "status", "projectId")
	})
	mux.HandleFunc("GET /v1/deliverables/{id}/download", func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		if !slices.ContainsFunc(f.deliverables, func(d statusclient.Deliverable) bool { return d.ID == id }) {
			writeError(w, http.StatusNotFound, "NOT_FOUND", "no such deliverable", "")
			return
		}
		link, ok := f.links[id]
		if !ok {
			writeError(w, http.StatusConflict, "FILE_NOT_AVAILABLE", "no file attached", "")
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"data": link})
	})
	mux.HandleFunc("GET /v1/invoices", func(w http.ResponseWriter, r *http.Request) {
		servePage(w, r, f.invoices, func(i statusclient.Invoice) bool {
			pid := ""
			if i.ProjectID != nil {
				pid = *i.ProjectID
			}
			return matches(r, "status", string(i.Status)) && matches(r, "projectId", pid)
		}, "status", "projectId")
	})
	if f.threads != nil {
		f.threadRoutes(mux)
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "NOT_FOUND", "no such route", "")
	})
	mux.ServeHTTP(w, r)
}

// threadRoutes adds the routes of a server that holds threads.
func (f *fakeAPI) threadRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /v1/threads", func(w http.ResponseWriter, r *http.Request) {
		servePage(w, r, f.threads, func(t statusclient.Thread) bool {
			return matches(r, "status", string(t.Status)) && matches(r, "projectId", deref(t.ProjectID))
		}, "status", "projectId")
	})
	mux.HandleFunc("GET /v1/threads/{id}", func(w http.ResponseWriter, r *http.Request) {
		i := slices.IndexFunc(f.threads, func(t statusclient.Thread) bool { return t.ID == r.PathValue("id") })
		if i < 0 {
			writeError(w, http.StatusNotFound, "NOT_FOUND", "no such thread", "")
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"data": f.threads[i]})
	})
	mux.HandleFunc("GET /v1/threads/{id}/messages", func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		if !slices.ContainsFunc(f.threads, func(t statusclient.Thread) bool { return t.ID == id }) {
			writeError(w, http.StatusNotFound, "NOT_FOUND", "no such thread", "")
			return
		}
		servePage(w, r, f.messages, func(m statusclient.Message) bool { return m.ThreadID == id })
	})
	mux.HandleFunc("GET /v1/messages", func(w http.ResponseWriter, r *http.Request) {
		servePage(w, r, f.messages, func(m statusclient.Message) bool {
			i := slices.IndexFunc(f.threads, func(t statusclient.Thread) bool { return t.ID == m.ThreadID })
			return i >= 0 && matches(r, "threadId", m.ThreadID) && matches(r, "projectId", deref(f.threads[i].ProjectID))
		}, "threadId", "projectId")
	})
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// requestLog returns the request URIs served so far.
func (f *fakeAPI) requestLog() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.requests)
}

// matches reports whether the filter named param is absent or equal to v.
func matches(r *http.Request, param, v string) bool {
	want := r.URL.Query().Get(param)
	return want == "" || want == v
}

// servePage answers a list route as the contract says: page >= 1, limit
// 1..100 (default 20), no unknown, repeated or empty parameter.
func servePage[T any](w http.ResponseWriter, r *http.Request, all []T, keep func(T) bool, filters ...string) {
	servePageSynced(w, r, all, keep, time.Time{}, nil, filters...)
}

// servePageSynced is servePage with meta.syncedThrough, unless through is
// zero, and, when pos is not nil, walks by cursor: meta.next, and after,
// which names the position (pos) of the last item of the page before.
func servePageSynced[T any](w http.ResponseWriter, r *http.Request, all []T, keep func(T) bool, through time.Time, pos func(T) string, filters ...string) {
	page, limit := 1, 20
	var after []byte
	if r.URL.Query().Has("after") && r.URL.Query().Has("page") {
		writeError(w, http.StatusBadRequest, "INVALID_PARAMETER", "after or page, not both", "after")
		return
	}
	for name, vs := range r.URL.Query() {
		if len(vs) != 1 || vs[0] == "" {
			writeError(w, http.StatusBadRequest, "INVALID_PARAMETER", "give it once, not empty", name)
			return
		}
		var err error
		switch {
		case name == "page":
			page, err = strconv.Atoi(vs[0])
			if page < 1 {
				err = strconv.ErrRange
			}
		case name == "limit":
			limit, err = strconv.Atoi(vs[0])
			if limit < 1 || limit > 100 {
				err = strconv.ErrRange
			}
		case name == "after" && pos != nil:
			after, err = base64.RawURLEncoding.DecodeString(vs[0])
		case slices.Contains(filters, name):
		default:
			err = strconv.ErrSyntax
		}
		if err != nil {
			writeError(w, http.StatusBadRequest, "INVALID_PARAMETER", "bad "+name, name)
			return
		}
	}
	var kept []T
	for _, v := range all {
		if keep(v) {
			kept = append(kept, v)
		}
	}
	if after != nil {
		kept = slices.DeleteFunc(kept, func(v T) bool { return pos(v) <= string(after) })
	}
	from := min((page-1)*limit, len(kept))
	to := min(from+limit, len(kept))
	data := kept[from:to]
	if data == nil {
		data = []T{}
	}
	m := meta(page, limit, len(kept), through)
	if pos != nil {
		m["next"] = nil
		if to < len(kept) {
			m["next"] = base64.RawURLEncoding.EncodeToString([]byte(pos(kept[to-1])))
		}
	}
	body, _ := json.Marshal(map[string]any{"data": data, "meta": m})
	// The tag leaves syncedThrough out, as the handler's: it follows the
	// clock, and an unchanged page revalidates with a 304.
	delete(m, "syncedThrough")
	tagged, _ := json.Marshal(map[string]any{"data": data, "meta": m})
	etag := fmt.Sprintf(`W/"%x"`, sha256.Sum256(tagged))
	w.Header().Set("ETag", etag)
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_, _ = w.Write(body)
}

// meta is a list's meta, with syncedThrough unless through is zero.
func meta(page, limit, total int, through time.Time) map[string]any {
	m := map[string]any{"page": page, "per_page": limit, "total": total}
	if !through.IsZero() {
		m["syncedThrough"] = through.UTC().Format("2006-01-02T15:04:05Z")
	}
	return m
}

func writeError(w http.ResponseWriter, status int, code, message, param string) {
	e := map[string]string{"code": code, "message": message, "request_id": w.Header().Get("X-Request-Id")}
	if param != "" {
		e["param"] = param
	}
	writeJSON(w, status, map[string]any{"error": e})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
